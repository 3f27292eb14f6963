package lab

import (
	"context"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/crdlab/crdlab/lab/kubeminor"
	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/timeline"
)

// Options configures a lab. The zero value works: an ephemeral control plane
// on free ports of 127.0.0.1, run from this program's own executable.
type Options struct {
	// WorkDir holds the lab's working files: the links to the component
	// binaries, the apiserver's certificates and the components' logs.
	// Empty: a temporary directory, removed by Stop.
	WorkDir string

	// DataDir keeps etcd's data, so that a lab started again on the same
	// DataDir has every object the last one had. Empty: etcd runs on a
	// temporary directory removed by Stop.
	DataDir string

	// NoEtcdTemplate turns off starting an ephemeral etcd from a copy of
	// an already bootstrapped data dir (kept in the user's cache dir, made by
	// the first lab of each Kubernetes version), which saves the apiserver
	// its storage bootstrap. See docs/boot.md.
	NoEtcdTemplate bool

	// Port is the kube-apiserver's secure port on 127.0.0.1.
	// Zero: a free port.
	Port int

	// BinaryAssetsDirectory is a folder holding etcd and kube-apiserver
	// binaries to run instead of the ones compiled into this program.
	// Empty: the KUBEBUILDER_ASSETS environment variable if set (with
	// envtest's TEST_ASSET_ETCD and TEST_ASSET_KUBE_APISERVER honoured as
	// usual), otherwise this program itself, which runs the components
	// compiled into it when called by their names (see the package doc).
	BinaryAssetsDirectory string

	// KubernetesVersion is the Kubernetes minor the lab serves, one of
	// kubeminor.Supported() ("1.36"; "v1.36" and the exact patch served,
	// "1.36.5", are taken too). kubeminor.BuiltIn is built into this
	// program; another minor runs from its components executable,
	// crdlab-k8s-<minor> (found as docs/testing-your-operator.md says; etcd
	// is always this program's). Empty: $CRDLAB_KUBERNETES_VERSION if set,
	// else kubeminor.BuiltIn. A minor given here or by that variable wins
	// over KUBEBUILDER_ASSETS. Ignored when Kubernetes is set.
	KubernetesVersion string

	// Kubernetes is the Kubernetes to serve as the caller resolved it
	// already (kubeminor.Resolve: crdlab up resolves --kubernetes once, to
	// say early what is missing). Zero: Start resolves KubernetesVersion.
	Kubernetes kubeminor.Kubernetes

	// APIServerFlags are added to the kube-apiserver's command line, after
	// the lab's own, as name=value pairs without the leading dashes; a flag
	// named here replaces the lab's value for it.
	APIServerFlags map[string]string

	// Components lists the optional components to run besides etcd and
	// kube-apiserver: ControllerManager, Scheduler, Nodes, AggregatedAPI
	// (the names 'crdlab up --components' takes).
	// Nil: all of them.
	// An empty, non-nil list gives plain envtest: etcd and kube-apiserver
	// only, where nothing reconciles Deployments, collects garbage or
	// finishes namespace deletions.
	Components []string

	// Nodes is how many simulated nodes to run when Nodes is a component.
	// Zero: 3.
	Nodes int

	// Zones spreads the simulated nodes over this many zones, round robin
	// (topology.kubernetes.io/zone zone-a, zone-b...; kubelet.Options.Zones),
	// at most kubelet.MaxZones and no more than the nodes (ErrZones). Zero:
	// no zone labels.
	Zones int

	// NodeCapacity is each simulated node's capacity (and allocatable):
	// cpu, memory and pods, each positive (ErrNodeCapacity); a resource not
	// named keeps its default (kubelet.DefaultCapacity: 32 CPUs, 256Gi of
	// memory, 400 Pods). The scheduler fits Pods' requests and counts them
	// against it.
	NodeCapacity corev1.ResourceList

	// PodStartDelay is how long a Pod bound to a simulated node takes to
	// become Running. Zero: at once.
	PodStartDelay time.Duration

	// CRDs are installed once the apiserver is ready; Start returns once
	// they are established.
	CRDs []*apiextensionsv1.CustomResourceDefinition

	// CRDDirectoryPaths are folders (or files) of CRD manifests to install
	// like CRDs; a path that does not exist is an error.
	CRDDirectoryPaths []string

	// Objects are applied (server-side, field manager crdlab) once the CRDs
	// are installed, before Start returns: part of the state Reset returns
	// to (admission policies, for example).
	Objects []client.Object

	// WebhookInstallOptions installs admission webhook configurations and
	// sets up CRD conversion webhooks as envtest does: the lab makes a
	// serving CA and certificate for 127.0.0.1 (in LocalServingCertDir),
	// chooses a port (LocalServingPort), and installs the configurations
	// with their clientConfig rewritten to https://127.0.0.1:PORT/path and
	// the CA bundle set; a CRD whose kind is convertible in Scheme gets a
	// conversion webhook at /convert. Serve them there (controller-runtime's
	// webhook server, with Lab.WebhookInstallOptions's host, port and cert
	// dir).
	WebhookInstallOptions envtest.WebhookInstallOptions

	// Webhooks are folders or files of your own webhook configurations
	// (MutatingWebhookConfiguration and ValidatingWebhookConfiguration, as
	// controller-gen writes them to config/webhook; Services and
	// kustomize's files there are skipped), for a webhook server of yours:
	// in your test process, for example. The lab makes a CA and a serving
	// certificate for 127.0.0.1 and installs the configurations with each
	// clientConfig pointing at the lab's front, which forwards every call
	// to your server on 127.0.0.1:WebhookPort (a service's path as it is)
	// and puts it on the timeline. The conversion webhooks of CRDs whose
	// kind Scheme cannot convert go there too. Lab.Webhooks says where to
	// serve. A clientConfig URL that is not on 127.0.0.1 is an error
	// (ErrWebhooks).
	Webhooks []string

	// WebhookPort is the port of 127.0.0.1 your webhook server listens on.
	// Zero: a free port (Lab.Webhooks says which).
	WebhookPort int

	// StartTimeout bounds the start of each component. Zero: 60 seconds.
	StartTimeout time.Duration

	// StopTimeout bounds the stop of each component before it is killed.
	// Zero: 20 seconds.
	StopTimeout time.Duration

	// Scheme is used by the lab's client. Nil: client-go's scheme plus
	// apiextensions.k8s.io/v1.
	Scheme *runtime.Scheme

	// Logger receives the lab's diagnostics: its start, its components'
	// health, crashes and restarts. The zero Logger discards them. Start sets
	// no global logger: envtest, which installs the CRDs and webhooks, logs
	// through controller-runtime's root logger, and the in-process
	// aggregated API server through klog; a program sets those itself
	// (log.SetLogger, klog.SetLogger), a test suite in its setup.
	Logger logr.Logger

	// Progress, if set, is called as each phase of the start comes, with
	// the phase and its values (no words: the caller words them, in its
	// user's language), so that a UI can show progress. Calls may come
	// from several goroutines at once.
	Progress func(Progress)

	// Events, if set, receives the timeline events only the lab's process
	// sees, which no watch of the cluster shows: each request the aggregated
	// API server answers (who asked for what, through the aggregator), each
	// call to your webhooks through the lab's front (Options.Webhooks), each
	// Reset, and each supervised process crashing and restarting.
	Events timeline.Sink

	// OnHealth, if set, is called with the lab's Health whenever a
	// supervised process (etcd, kube-apiserver, kube-controller-manager,
	// kube-scheduler) exits on its own or is healthy again after its
	// restart. Calls may come from several goroutines at once.
	OnHealth func(control.Health)

	// Alongside, if set, runs once kube-apiserver serves and the CRDs and
	// Objects are in, while the components start; Start returns once it has
	// returned too, and fails with its error. crdlab up starts its sample
	// operators so, rather than after the components are healthy. The
	// Operators it returns, if not nil, become components of the lab:
	// listed by Components, stopped and started by StopComponent and
	// StartComponent.
	Alongside func(ctx context.Context, l *Lab) (Operators, error)
}

func (o *Options) defaults() {
	if o.StartTimeout == 0 {
		o.StartTimeout = 60 * time.Second
	}
	if o.StopTimeout == 0 {
		o.StopTimeout = 20 * time.Second
	}
	if o.Progress == nil {
		o.Progress = func(Progress) {}
	}
}
