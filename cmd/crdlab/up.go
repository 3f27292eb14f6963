package main

import (
	"context"
	"errors"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/crdlab/crdlab/lab"
	"github.com/crdlab/crdlab/lab/full"
	"github.com/crdlab/crdlab/lab/kubeminor"
	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/lab/multicall"
	"github.com/crdlab/crdlab/lab/server"
	"github.com/crdlab/crdlab/lab/ui"
)

// detachedEnv marks the background process that 'crdlab up -d' starts.
const detachedEnv = "CRDLAB_DETACHED"

type upFlags struct {
	*globalFlags
	detach      bool
	dataDir     string
	port        int
	assetsDir   string
	timeout     time.Duration
	components  []string
	nodes       int
	zones       int
	nodeCap     map[string]string
	capacity    corev1.ResourceList // of --node-capacity (validate)
	podDelay    time.Duration
	noSamples   bool
	crds        []string
	webhooks    []string
	webhookPort int
	uiPort      int
	noUI        bool
	owners      []int
	kubernetes  string
	kube        kubeminor.Kubernetes // of --kubernetes or its variable, resolved once (validate)
}

func newUpCommand(g *globalFlags) *cobra.Command {
	f := &upFlags{globalFlags: g}
	cmd := &cobra.Command{
		Use:   "up",
		Short: "Start a lab: a real control plane and simulated nodes on 127.0.0.1",
		Long: minorText(`Start a lab: a real etcd and a real kube-apiserver on 127.0.0.1, run from
this binary through controller-runtime's envtest, then the real
kube-controller-manager and kube-scheduler, and simulated nodes whose
simulated kubelet runs the Pods bound to them (no container ever runs), so
that Deployments get Pods, deleted Pods come back, garbage is collected and
namespaces finish deleting; and an aggregated API server (metrics.k8s.io,
so kubectl top and the HorizontalPodAutoscaler work, and lab.crdlab.dev)
that the apiserver's aggregator routes to. --components none gives plain
envtest.

--nodes N runs N simulated nodes (a thousand fit on a laptop); up returns
once every one is Ready, or fails after --timeout saying how many are and
which are not. Each node renews its Lease every 4 s (up to 10 s, a
kubelet's own, above 400 nodes) and reports its status when it changes or
every 5 minutes, as a kubelet does. --node-capacity sets each node's cpu,
memory and pods (cpu=32,memory=256Gi,pods=400 unless given), which the
scheduler fits the Pods' requests to (docs/workloads.md). --zones Z spreads
the nodes over Z zones (the label topology.kubernetes.io/zone: zone-a,
zone-b...), which the scheduler spreads Pods over and the node lifecycle
controller counts failures in; above 50 nodes the lab taints failed nodes
at nodes/50 a second (--node-eviction-rate; Kubernetes' default is 0.1).

The sample CRDs (the seed's User, users.auth.ilinux.io, short name u;
WebApp, short name wa; RedisCluster, short name redis; and RedisBackup,
short name rb, all in samples.crdlab.dev) are installed and the WebApp and
Redis operators run inside crdlab, unless --no-samples is given; --crds
installs your own CRDs.

--webhooks installs your own webhook configurations (controller-gen's
config/webhook) for a webhook server you run: the lab makes its
certificate for 127.0.0.1, points every clientConfig (and the conversion
webhook of every --crds CRD) at a front that forwards each call to your
server on 127.0.0.1:--webhook-port and puts it on the timeline, and prints
where to serve (docs/admission.md).

When the apiserver is ready, the admin kubeconfig is written to
<state-dir>/kubeconfig and up stays in the foreground, showing what happens
in the cluster, until Ctrl-C: one line per change, in the cluster's order
(etcd revisions; each line is held half a second for the lines before it)
with the time the apiserver answered the write. The same ordered lines go
to <state-dir>/logs/timeline.log, the web UI and the scenario runs.

It also serves a web UI on 127.0.0.1 and prints its URL, which carries a
token ('crdlab status' shows it again): the objects as a graph of
ownerReferences down to the node each Pod runs on, the timeline in lanes
per actor, each object's YAML, managers and history of changes with their
diffs, and the scenario that runs against the lab (docs/ui.md). --ui-port
picks its port, --no-ui turns it off. With -d it returns once the lab is ready and
leaves it running in the background; 'crdlab down' stops it.

etcd's data is removed when the lab stops, unless --data-dir names a
folder to keep it in: a lab started again on it has every object it had.

--kubernetes {OTHERS} (or $CRDLAB_KUBERNETES_VERSION) serves another
Kubernetes minor: its kube-apiserver, kube-controller-manager,
kube-scheduler and kubectl run from crdlab-k8s-<minor> (make components
K8S=<minor>, or the release's download), found next to crdlab or in
$CRDLAB_COMPONENTS_DIR; etcd is crdlab's own. {BUILTIN} is built in. A data dir
keeps the minor that wrote it; 'crdlab status' says which one runs.

--lang zh (or a Chinese locale: LANG=zh_CN.UTF-8) makes the lab speak
Chinese: what up prints, the timeline's actors (with a gloss), the web
UI's default language (a switch in the page changes it), and the
scenarios run against it, unless their own --lang or locale says
otherwise. docs/zh is the guide in Chinese.`),
		Example: minorText(`  crdlab up
  crdlab up -d && export KUBECONFIG=~/.crdlab/kubeconfig
  crdlab up -d --kubernetes {OLDEST}
  crdlab up -d --nodes 1000 --node-capacity cpu=8,memory=32Gi,pods=110
  crdlab up --data-dir ~/.crdlab-data --port 6443`),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.detach {
				return runDetached(cmd.Context(), cmd.OutOrStdout(), f)
			}
			return runUp(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), f)
		},
	}
	f.addFlags(cmd)
	return cmd
}

// addFlags gives cmd up's flags, bound to f, with their defaults.
func (f *upFlags) addFlags(cmd *cobra.Command) {
	cmd.Flags().BoolVarP(&f.detach, "detach", "d", false, "return once the lab is ready, leaving it running in the background")
	cmd.Flags().StringVar(&f.dataDir, "data-dir", "", "folder that keeps etcd's data across runs (default: ephemeral)")
	cmd.Flags().IntVar(&f.port, "port", 0, "kube-apiserver secure port on 127.0.0.1 (default: a free port)")
	cmd.Flags().StringVar(&f.assetsDir, "binary-assets-dir", "",
		"folder with etcd and kube-apiserver binaries to run instead of the built-in ones (default: $KUBEBUILDER_ASSETS if set)")
	cmd.Flags().DurationVar(&f.timeout, "timeout", time.Minute, "how long each component may take to start")
	cmd.Flags().StringSliceVar(&f.components, "components", []string{"all"},
		"optional components to run besides etcd and kube-apiserver: controller-manager, scheduler, nodes, aggregated-api; "+
			"'all', or 'none' for plain envtest (apiserver only)")
	cmd.Flags().IntVar(&f.nodes, "nodes", 3, "how many simulated nodes to run")
	cmd.Flags().IntVar(&f.zones, "zones", 0, "spread the simulated nodes over this many zones (topology.kubernetes.io/zone zone-a, zone-b...; at most 26)")
	cmd.Flags().StringToStringVar(&f.nodeCap, "node-capacity", nil,
		"each simulated node's capacity: any of cpu, memory and pods, the others as by default")
	cmd.Flags().Lookup("node-capacity").DefValue = "cpu=32,memory=256Gi,pods=400"
	cmd.Flags().BoolVar(&f.noSamples, "no-samples", false, "do not install the sample CRDs nor run the sample operators")
	cmd.Flags().StringArrayVar(&f.crds, "crds", nil, "a folder or file of your own CRD manifests to install (repeatable)")
	cmd.Flags().StringArrayVar(&f.webhooks, "webhooks", nil,
		"a folder or file of your own webhook configurations (controller-gen's config/webhook) for a webhook server you run (repeatable)")
	cmd.Flags().IntVar(&f.webhookPort, "webhook-port", 0, "port on 127.0.0.1 your webhook server listens on (default: a free port)")
	cmd.Flags().IntVar(&f.uiPort, "ui-port", 0, "port on 127.0.0.1 of the web UI (default: a free port)")
	cmd.Flags().BoolVar(&f.noUI, "no-ui", false, "do not serve the web UI")
	addKubernetesFlag(cmd, &f.kubernetes)
	cmd.Flags().DurationVar(&f.podDelay, "pod-start-delay", 0, "how long a Pod bound to a simulated node takes to become Running")
	f.addLangFlag(cmd, false)
	// For lab/labtest and a lab started for one run (startLab): the lab
	// stops when the test binary, 'go test' or the run ends.
	cmd.Flags().IntSliceVar(&f.owners, "owner-pid", nil, "stop the lab when this process ends (repeatable)")
	_ = cmd.Flags().MarkHidden("owner-pid")
}

// validate checks flag values before anything starts, and that the
// components of the Kubernetes minor asked for are there.
func (f *upFlags) validate(ctx context.Context) error {
	l := f.language()
	kube, err := resolveKubernetes(ctx, l, f.kubernetes)
	if err != nil {
		return err
	}
	f.kube = kube
	if kube.Chosen && f.assetsDir != "" {
		return errors.New(l.Msgf("--binary-assets-dir %s and --kubernetes %s: give one or the other (the binaries there serve a Kubernetes of their own)", f.assetsDir, kube.Minor))
	}
	if err := f.state().CheckPathLength(); err != nil {
		return lang.Errorf("--state-dir: %w", err)

	}
	if f.port < 0 || f.port > 65535 {
		return errors.New(l.Msgf("--port %d: must be between 1 and 65535", f.port))
	}
	if f.webhookPort < 0 || f.webhookPort > 65535 {
		return errors.New(l.Msgf("--webhook-port %d: must be between 1 and 65535", f.webhookPort))
	}
	if f.webhookPort != 0 && len(f.webhooks) == 0 && len(f.crds) == 0 {
		return errors.New(l.Msgf("--webhook-port %d: no webhook of yours to serve: give --webhooks (or --crds with a conversion webhook)", f.webhookPort))
	}
	if f.uiPort < 0 || f.uiPort > 65535 {
		return errors.New(l.Msgf("--ui-port %d: must be between 1 and 65535", f.uiPort))
	}
	if f.uiPort != 0 && f.noUI {
		return errors.New(l.Msgf("--ui-port %d: the web UI is off (--no-ui): give one or the other", f.uiPort))
	}
	if f.nodes < 1 {
		return errors.New(l.Msgf("--nodes %d: must be at least 1", f.nodes))
	}
	if f.zones < 0 || f.zones > lab.MaxZones || f.zones > f.nodes {
		return errors.New(l.Msgf("--zones %d: want 0 to %d, and no more than --nodes (%d)", f.zones, lab.MaxZones, f.nodes))
	}
	if f.capacity, err = parseNodeCapacity(f.nodeCap); err != nil {
		return err
	}
	if f.podDelay < 0 {
		return errors.New(l.Msgf("--pod-start-delay %s: must not be negative", f.podDelay))
	}
	if _, err := f.labComponents(); err != nil {
		return err
	}
	if f.timeout <= 0 {
		return errors.New(l.Msgf("--timeout %s: must be positive", f.timeout))
	}
	if f.assetsDir != "" {
		if fi, err := os.Stat(f.assetsDir); err != nil || !fi.IsDir() {
			return errors.New(l.Msgf("--binary-assets-dir %s: not a folder", f.assetsDir))
		}
	}
	return nil
}

// labComponents turns --components into lab.Options.Components.
func (f *upFlags) labComponents() ([]string, error) {
	l := f.language()
	switch {
	case len(f.components) == 1 && f.components[0] == "all":
		return nil, nil
	case len(f.components) == 1 && (f.components[0] == "none" || f.components[0] == "apiserver"):
		return []string{}, nil
	}
	for _, c := range f.components {
		if !slices.Contains(lab.ComponentNames(), c) {
			return nil, errors.New(l.Msgf("--components: unknown component %q (known: %s, or all, none)", c, strings.Join(lab.ComponentNames(), ", ")))
		}
	}
	return f.components, nil
}

// runUp runs a lab in this process until ctx is done.
func runUp(ctx context.Context, out, errOut io.Writer, f *upFlags) error {
	if err := f.validate(ctx); err != nil {
		return err
	}
	components, _ := f.labComponents() // checked by validate
	multicall.TuneGC()
	ctx, cancel, err := stopWithOwners(ctx, f.owners)
	if err != nil {
		return err
	}
	defer cancel()
	var web *server.UIOptions
	if !f.noUI {
		sd := f.state()
		web = &server.UIOptions{Port: f.uiPort, Course: func() ([]ui.Lesson, error) { return courseMap(sd, lang.All...) }}
	}
	err = server.Run(ctx, f.state(), server.Options{
		Out: out, ErrOut: errOut, UI: web,
		ShowTimeline: os.Getenv(detachedEnv) == "", // a detached lab's output is its log
		Lang:         f.language(),
		Ready:        multicall.BootDone,
		Lab: full.Options{NoSamples: f.noSamples, Lab: lab.Options{
			DataDir:               f.dataDir,
			Port:                  f.port,
			BinaryAssetsDirectory: f.assetsDir,
			Kubernetes:            f.kube,
			StartTimeout:          f.timeout,
			Components:            components,
			Nodes:                 f.nodes,
			Zones:                 f.zones,
			NodeCapacity:          f.capacity,
			PodStartDelay:         f.podDelay,
			CRDDirectoryPaths:     f.crds,
			Webhooks:              f.webhooks,
			WebhookPort:           f.webhookPort,
			Logger:                f.useLoggers(),
		}},
	})
	return flagError(err)
}

// flagError names the flag behind a start error a user can fix.
func flagError(err error) error {
	switch {
	case errors.Is(err, control.ErrRunning):
		return lang.Errorf("--state-dir: %w", err)
	case errors.Is(err, lab.ErrPortInUse):
		return lang.Errorf("--port: %w", err)
	case errors.Is(err, lab.ErrDataDir):
		return lang.Errorf("--data-dir: %w", err)
	case errors.Is(err, lab.ErrCRDPath):
		return lang.Errorf("--crds: %w", err)
	case errors.Is(err, lab.ErrWebhooks):
		return lang.Errorf("--webhooks: %w", err)
	case errors.Is(err, server.ErrUIPort):
		return lang.Errorf("--ui-port: %w", err)
	case errors.Is(err, lab.ErrWorkDir):
		return lang.Errorf("--state-dir: %w", err)
	case errors.Is(err, lab.ErrNodesNotReady):
		return lang.Errorf("--timeout: %w", err)
	case errors.Is(err, lab.ErrNodeCapacity):
		return lang.Errorf("--node-capacity: %w", err)
	case errors.Is(err, lab.ErrZones):
		return lang.Errorf("--zones: %w", err)
	}
	return err
}

// parseNodeCapacity reads --node-capacity: cpu, memory and pods, each a
// positive quantity (pods a whole number).
func parseNodeCapacity(in map[string]string) (corev1.ResourceList, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := corev1.ResourceList{}
	for _, name := range slices.Sorted(maps.Keys(in)) {
		v := in[name]
		switch corev1.ResourceName(name) {
		case corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods:
		default:
			return nil, lang.Errorf("--node-capacity %s=%s: unknown resource %q (want cpu, memory or pods)", name, v, name)
		}
		q, err := resource.ParseQuantity(v)
		if err != nil { // its regular expression says no more than this
			return nil, lang.Errorf("--node-capacity %s=%s: not a quantity (like 8, 500m, 16Gi)", name, v)
		}
		if q.Sign() <= 0 {
			return nil, lang.Errorf("--node-capacity %s=%s: must be positive", name, v)
		}
		if name == string(corev1.ResourcePods) && q.MilliValue()%1000 != 0 {
			return nil, lang.Errorf("--node-capacity pods=%s: must be a whole number", v)
		}
		out[corev1.ResourceName(name)] = q
	}
	return out, nil
}
