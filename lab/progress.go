package lab

// Progress is a phase of a lab's start, as Options.Progress receives it:
// which phase, and its values. It carries no words: what shows it words
// it, in the user's language ('crdlab up' through lab/server and
// lab/lang's catalog).
type Progress struct {
	Phase Phase
	// Endpoint is kube-apiserver's address (PhaseAPIServerReady).
	Endpoint string
	// Nodes is how many simulated nodes are ready (PhaseNodesReady).
	Nodes int
	// Operators are the names of the operators that run, and Webhooks
	// where their webhooks are served, host:port (PhaseOperatorsRunning).
	Operators []string
	Webhooks  string
}

// Phase is a phase of a lab's start.
type Phase string

// The phases of a lab's start, in the order they come (some at once).
const (
	// PhaseControlPlaneStarting: etcd and kube-apiserver start.
	PhaseControlPlaneStarting Phase = "control-plane-starting"
	// PhaseEtcdTemplate: an etcd template for later labs is made, once per
	// Kubernetes version.
	PhaseEtcdTemplate Phase = "etcd-template"
	// PhaseAPIServerReady: kube-apiserver serves, at Endpoint.
	PhaseAPIServerReady Phase = "apiserver-ready"
	// PhaseControllersStarting: kube-controller-manager and kube-scheduler
	// start.
	PhaseControllersStarting Phase = "controllers-starting"
	// PhaseNodesReady: Nodes simulated nodes are ready.
	PhaseNodesReady Phase = "nodes-ready"
	// PhaseAggregatedAPIReady: the aggregated API server serves
	// metrics.k8s.io and lab.crdlab.dev.
	PhaseAggregatedAPIReady Phase = "aggregated-api-ready"
	// PhaseOperatorsRunning: the Operators of Options.Alongside run
	// (lab/full's samples), their webhooks served on Webhooks.
	PhaseOperatorsRunning Phase = "operators-running"
	// PhaseControllersHealthy: kube-controller-manager and kube-scheduler
	// are healthy.
	PhaseControllersHealthy Phase = "controllers-healthy"
)

// Phases lists every phase of a lab's start, for the packages that word
// them to check that they word each.
func Phases() []Phase {
	return []Phase{
		PhaseControlPlaneStarting, PhaseEtcdTemplate, PhaseAPIServerReady, PhaseControllersStarting,
		PhaseNodesReady, PhaseAggregatedAPIReady, PhaseOperatorsRunning, PhaseControllersHealthy,
	}
}
