package control

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// UpOptions are the options of 'crdlab up', for a program that starts a lab
// as a process of its own: crdlab's own commands ('crdlab up -d', a
// scenario run, 'crdlab learn'), a suite's labtest.Environment and crdlab's
// release check. crdlab up's flags fill it, and Args gives the command line
// that asks for it: the one place where options become crdlab up's
// arguments.
//
// The zero value is crdlab up's defaults. Each field says its flag.
type UpOptions struct {
	// StateDir is --state-dir: the folder of the lab's kubeconfig, status,
	// control socket and logs (Dir). Empty: crdlab's default
	// ($CRDLAB_STATE_DIR, else ~/.crdlab).
	StateDir string

	// Detach is -d: crdlab up returns once the lab is ready and leaves it
	// running in the background.
	Detach bool

	// DataDir is --data-dir: a folder that keeps etcd's data across runs.
	// Empty: etcd's data is removed when the lab stops.
	DataDir string

	// Port is --port: kube-apiserver's secure port on 127.0.0.1. Zero: a
	// free port.
	Port int

	// BinaryAssetsDir is --binary-assets-dir: a folder of etcd and
	// kube-apiserver binaries to run instead of crdlab's own. Empty:
	// $KUBEBUILDER_ASSETS if set, else crdlab's own.
	BinaryAssetsDir string

	// Timeout is --timeout: how long each component may take to start.
	// Zero: a minute.
	Timeout time.Duration

	// Components is --components: the optional components to run besides
	// etcd and kube-apiserver (controller-manager, scheduler, nodes,
	// aggregated-api). Nil: all of them; empty and not nil: none, an
	// apiserver alone as in envtest.
	Components []string

	// Nodes is --nodes: how many simulated nodes to run. Zero: 3.
	Nodes int

	// Zones is --zones: spread the simulated nodes over this many zones.
	// Zero: no zone labels.
	Zones int

	// NodeCapacity is --node-capacity: each simulated node's capacity, by
	// resource name (cpu, memory, pods) as a quantity ("8", "32Gi").
	// A resource not named keeps its default.
	NodeCapacity map[string]string

	// PodStartDelay is --pod-start-delay: how long a Pod bound to a
	// simulated node takes to become Running. Zero: at once.
	PodStartDelay time.Duration

	// NoSamples is --no-samples: neither the sample CRDs nor the sample
	// operators.
	NoSamples bool

	// CRDs is --crds, once each: folders or files of CRD manifests to
	// install.
	CRDs []string

	// Webhooks is --webhooks, once each: folders or files of webhook
	// configurations for a webhook server of the caller's.
	Webhooks []string

	// WebhookPort is --webhook-port: the port of 127.0.0.1 that webhook
	// server listens on. Zero: a free port.
	WebhookPort int

	// UIPort is --ui-port: the web UI's port on 127.0.0.1. Zero: a free
	// port.
	UIPort int

	// NoUI is --no-ui: no web UI.
	NoUI bool

	// Kubernetes is --kubernetes: the Kubernetes minor to serve ("1.36").
	// Empty: $CRDLAB_KUBERNETES_VERSION if set, else the minor built into
	// crdlab.
	Kubernetes string

	// Lang is --lang: the language the lab speaks, en or zh. Empty: from
	// the locale.
	Lang string

	// Verbosity is --verbose: the diagnostics' verbosity. Zero: quiet.
	Verbosity int

	// OwnerPIDs is --owner-pid, once each: the lab stops when any of these
	// processes ends.
	OwnerPIDs []int
}

// Args returns the command line of 'crdlab up' with these options, from
// "up" on: a flag for each field that is not zero, none for the others.
func (o UpOptions) Args() []string {
	args := []string{"up"}
	str := func(flag, v string) {
		if v != "" {
			args = append(args, flag, v)
		}
	}
	num := func(flag string, v int) {
		if v != 0 {
			args = append(args, flag, strconv.Itoa(v))
		}
	}
	dur := func(flag string, v time.Duration) {
		if v != 0 {
			args = append(args, flag, v.String())
		}
	}
	boolean := func(flag string, v bool) {
		if v {
			args = append(args, flag)
		}
	}
	str("--state-dir", o.StateDir)
	boolean("--detach", o.Detach)
	str("--data-dir", o.DataDir)
	num("--port", o.Port)
	str("--binary-assets-dir", o.BinaryAssetsDir)
	dur("--timeout", o.Timeout)
	switch {
	case o.Components == nil:
	case len(o.Components) == 0:
		args = append(args, "--components", "none")
	default:
		args = append(args, "--components", strings.Join(o.Components, ","))
	}
	num("--nodes", o.Nodes)
	num("--zones", o.Zones)
	if len(o.NodeCapacity) > 0 {
		var pairs []string
		for _, name := range slices.Sorted(maps.Keys(o.NodeCapacity)) {
			pairs = append(pairs, name+"="+o.NodeCapacity[name])
		}
		args = append(args, "--node-capacity", strings.Join(pairs, ","))
	}
	dur("--pod-start-delay", o.PodStartDelay)
	boolean("--no-samples", o.NoSamples)
	for _, p := range o.CRDs {
		args = append(args, "--crds", p)
	}
	for _, p := range o.Webhooks {
		args = append(args, "--webhooks", p)
	}
	num("--webhook-port", o.WebhookPort)
	num("--ui-port", o.UIPort)
	boolean("--no-ui", o.NoUI)
	str("--kubernetes", o.Kubernetes)
	str("--lang", o.Lang)
	num("--verbose", o.Verbosity)
	for _, pid := range o.OwnerPIDs {
		args = append(args, "--owner-pid", strconv.Itoa(pid))
	}
	return args
}
