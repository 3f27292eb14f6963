package server

import (
	"strings"

	"github.com/crdlab/crdlab/lab"
	"github.com/crdlab/crdlab/lab/lang"
)

// progressText words p, a phase of the lab's start, in l: the one place a
// phase becomes words ('crdlab up' prints them as they come).
func progressText(l lang.Lang, p lab.Progress) string {
	switch p.Phase {
	case lab.PhaseControlPlaneStarting:
		return l.Msg("starting etcd and kube-apiserver")
	case lab.PhaseEtcdTemplate:
		return l.Msg("bootstrapping an etcd template for later labs (once per Kubernetes version)")
	case lab.PhaseAPIServerReady:
		return l.Msgf("kube-apiserver ready at %s", p.Endpoint)
	case lab.PhaseControllersStarting:
		return l.Msg("starting kube-controller-manager and kube-scheduler")
	case lab.PhaseNodesReady:
		return l.Msgf("%d simulated nodes ready", p.Nodes)
	case lab.PhaseAggregatedAPIReady:
		return l.Msg("aggregated API server ready: metrics.k8s.io, lab.crdlab.dev")
	case lab.PhaseOperatorsRunning:
		return l.Msgf("sample operators running: %s; the WebApp's webhooks served on https://%s", strings.Join(p.Operators, ", "), p.Webhooks)
	case lab.PhaseControllersHealthy:
		return l.Msg("kube-controller-manager and kube-scheduler healthy")
	}
	return string(p.Phase) // a phase this package does not know yet (TestEveryPhaseIsWorded)
}
