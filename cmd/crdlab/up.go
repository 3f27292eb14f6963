package main

import (
	"cmp"
	"context"
	"errors"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
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

// upFlags are up's flags: its own fill a control.UpOptions, the one shape
// of a lab's options outside a lab's process (options gives them with the
// global ones).
type upFlags struct {
	*globalFlags
	up       control.UpOptions
	changed  func(name string) bool // whether a flag was given on the command line (addFlags)
	capacity corev1.ResourceList    // of --node-capacity (validate)
	kube     kubeminor.Kubernetes   // of --kubernetes or its variable, resolved once (validate)
}

func newUpCommand(g *globalFlags) *cobra.Command {
	cmd, _ := upCommand(g)
	return cmd
}

// upCommand is 'crdlab up' and the flags it parses into.
func upCommand(g *globalFlags) (*cobra.Command, *upFlags) {
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
every 5 minutes, as a kubelet does. From 1,000 nodes the lab runs as a
cluster at scale: kube-apiserver serves 2,000 requests at once, 1,000 of
them writes (400 and 200 below), and its watch cache keeps no snapshots
(the feature gate ListFromCacheSnapshot off: less memory per Pod; a
list at an older resourceVersion is read from etcd; docs/scale.md).
--node-capacity sets each node's cpu,
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
			if f.up.Detach {
				return runDetached(cmd.Context(), cmd.OutOrStdout(), f)
			}
			return runUp(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), f)
		},
	}
	f.addFlags(cmd)
	return cmd, f
}

// addFlags gives cmd up's flags, bound to f.up. Each flag's zero value is
// its default, as control.UpOptions' is; the help says what that default is.
func (f *upFlags) addFlags(cmd *cobra.Command) {
	o := &f.up
	fs := cmd.Flags()
	f.changed = fs.Changed
	fs.BoolVarP(&o.Detach, "detach", "d", false, "return once the lab is ready, leaving it running in the background")
	fs.StringVar(&o.DataDir, "data-dir", "", "folder that keeps etcd's data across runs (default: ephemeral)")
	fs.IntVar(&o.Port, "port", 0, "kube-apiserver secure port on 127.0.0.1 (default: a free port)")
	fs.StringVar(&o.BinaryAssetsDir, "binary-assets-dir", "",
		"folder with etcd and kube-apiserver binaries to run instead of the built-in ones (default: $KUBEBUILDER_ASSETS if set)")
	fs.DurationVar(&o.Timeout, "timeout", 0, "how long each component may take to start")
	fs.Lookup("timeout").DefValue = defaultUpTimeout.String()
	fs.Var(&componentsFlag{list: &o.Components}, "components",
		"optional components to run besides etcd and kube-apiserver: controller-manager, scheduler, nodes, aggregated-api; "+
			"'all', or 'none' for plain envtest (apiserver only)")
	fs.Lookup("components").DefValue = "[all]"
	fs.IntVar(&o.Nodes, "nodes", 0, "how many simulated nodes to run (at most 16384: each gets a /23 of the Pod range 10.128.0.0/9)")
	fs.Lookup("nodes").DefValue = strconv.Itoa(defaultUpNodes)
	fs.IntVar(&o.Zones, "zones", 0, "spread the simulated nodes over this many zones (topology.kubernetes.io/zone zone-a, zone-b...; at most 26)")
	fs.StringToStringVar(&o.NodeCapacity, "node-capacity", nil,
		"each simulated node's capacity: any of cpu, memory and pods, the others as by default")
	fs.Lookup("node-capacity").DefValue = "cpu=32,memory=256Gi,pods=400"
	fs.BoolVar(&o.NoSamples, "no-samples", false, "do not install the sample CRDs nor run the sample operators")
	fs.StringArrayVar(&o.CRDs, "crds", nil, "a folder or file of your own CRD manifests to install (repeatable)")
	fs.StringArrayVar(&o.Webhooks, "webhooks", nil,
		"a folder or file of your own webhook configurations (controller-gen's config/webhook) for a webhook server you run (repeatable)")
	fs.IntVar(&o.WebhookPort, "webhook-port", 0, "port on 127.0.0.1 your webhook server listens on (default: a free port)")
	fs.IntVar(&o.UIPort, "ui-port", 0, "port on 127.0.0.1 of the web UI (default: a free port)")
	fs.BoolVar(&o.NoUI, "no-ui", false, "do not serve the web UI")
	addKubernetesFlag(cmd, &o.Kubernetes)
	fs.DurationVar(&o.PodStartDelay, "pod-start-delay", 0, "how long a Pod bound to a simulated node takes to become Running")
	f.addLangFlag(cmd, false)
	// For lab/labtest and a lab started for one run (startLab): the lab
	// stops when the test binary, 'go test' or the run ends.
	fs.IntSliceVar(&o.OwnerPIDs, "owner-pid", nil, "stop the lab when this process ends (repeatable)")
	_ = fs.MarkHidden("owner-pid")
}

// given reports whether flag was given on the command line (false for
// options that came from no command line: startLab's).
func (f *upFlags) given(flag string) bool { return f.changed != nil && f.changed(flag) }

// up's defaults where a flag's zero value stands for another value (as in
// control.UpOptions and lab.Options).
const (
	defaultUpTimeout = time.Minute
	defaultUpNodes   = 3
)

// options returns the options the flags ask for, with the global flags
// (--state-dir, --lang, --verbose): what Args turns back into this command
// line.
func (f *upFlags) options() control.UpOptions {
	o := f.up
	o.StateDir = f.stateDir
	o.Lang = string(f.lang.l)
	o.Verbosity = f.verbosity
	return o
}

// componentsFlag is --components: comma-separated, repeatable; "all" alone
// is nil (the default), "none" (or "apiserver") alone is empty (plain
// envtest). Any other list is kept as given, for validate to check.
type componentsFlag struct {
	list  *[]string
	given []string
}

func (c *componentsFlag) Type() string { return "strings" }

func (c *componentsFlag) String() string {
	switch {
	case *c.list == nil:
		return "[all]"
	case len(*c.list) == 0:
		return "[none]"
	}
	return "[" + strings.Join(*c.list, ",") + "]"
}

func (c *componentsFlag) Set(v string) error {
	c.given = append(c.given, strings.Split(v, ",")...)
	switch {
	case slices.Equal(c.given, []string{"all"}):
		*c.list = nil
	case slices.Equal(c.given, []string{"none"}), slices.Equal(c.given, []string{"apiserver"}):
		*c.list = []string{}
	default:
		*c.list = slices.Clone(c.given)
	}
	return nil
}

// validate checks flag values before anything starts, and that the
// components of the Kubernetes minor asked for are there.
func (f *upFlags) validate(ctx context.Context) error {
	l := f.language()
	o := &f.up
	kube, err := resolveKubernetes(ctx, l, o.Kubernetes)
	if err != nil {
		return err
	}
	f.kube = kube
	if kube.Chosen && o.BinaryAssetsDir != "" {
		return errors.New(l.Msgf("--binary-assets-dir %s and --kubernetes %s: give one or the other (the binaries there serve a Kubernetes of their own)", o.BinaryAssetsDir, kube.Minor))
	}
	if err := f.state().CheckPathLength(); err != nil {
		return lang.Errorf("--state-dir: %w", err)
	}
	if o.Port < 0 || o.Port > 65535 {
		return errors.New(l.Msgf("--port %d: must be between 1 and 65535", o.Port))
	}
	if o.WebhookPort < 0 || o.WebhookPort > 65535 {
		return errors.New(l.Msgf("--webhook-port %d: must be between 1 and 65535", o.WebhookPort))
	}
	if o.WebhookPort != 0 && len(o.Webhooks) == 0 && len(o.CRDs) == 0 {
		return errors.New(l.Msgf("--webhook-port %d: no webhook of yours to serve: give --webhooks (or --crds with a conversion webhook)", o.WebhookPort))
	}
	if o.UIPort < 0 || o.UIPort > 65535 {
		return errors.New(l.Msgf("--ui-port %d: must be between 1 and 65535", o.UIPort))
	}
	if o.UIPort != 0 && o.NoUI {
		return errors.New(l.Msgf("--ui-port %d: the web UI is off (--no-ui): give one or the other", o.UIPort))
	}
	if o.Nodes < 0 || o.Nodes == 0 && f.given("nodes") {
		return errors.New(l.Msgf("--nodes %d: must be at least 1", o.Nodes))
	}
	if o.Nodes > lab.MaxNodes {
		return errors.New(l.Msgf("--nodes %d: at most %d (each node gets a /%d of the Pod range %s)", o.Nodes, lab.MaxNodes, lab.NodeCIDRMaskSize, lab.ClusterCIDR))
	}
	nodes := cmp.Or(o.Nodes, defaultUpNodes)
	if o.Zones < 0 || o.Zones > lab.MaxZones || o.Zones > nodes {
		return errors.New(l.Msgf("--zones %d: want 0 to %d, and no more than --nodes (%d)", o.Zones, lab.MaxZones, nodes))
	}
	if f.capacity, err = parseNodeCapacity(o.NodeCapacity); err != nil {
		return err
	}
	if pods, ok := f.capacity[corev1.ResourcePods]; ok && pods.Value() > lab.MaxPodsPerNode {
		return errors.New(l.Msgf("--node-capacity pods=%s: at most %d (a node's Pod addresses are a /%d)", pods.String(), lab.MaxPodsPerNode, lab.NodeCIDRMaskSize))
	}
	if o.PodStartDelay < 0 {
		return errors.New(l.Msgf("--pod-start-delay %s: must not be negative", o.PodStartDelay))
	}
	for _, c := range o.Components {
		if !slices.Contains(lab.ComponentNames(), c) {
			return errors.New(l.Msgf("--components: unknown component %q (known: %s, or all, none)", c, strings.Join(lab.ComponentNames(), ", ")))
		}
	}
	if o.Timeout < 0 || o.Timeout == 0 && f.given("timeout") {
		return errors.New(l.Msgf("--timeout %s: must be positive", o.Timeout))
	}
	if o.BinaryAssetsDir != "" {
		if fi, err := os.Stat(o.BinaryAssetsDir); err != nil || !fi.IsDir() {
			return errors.New(l.Msgf("--binary-assets-dir %s: not a folder", o.BinaryAssetsDir))
		}
	}
	return nil
}

// runUp runs a lab in this process until ctx is done.
func runUp(ctx context.Context, out, errOut io.Writer, f *upFlags) error {
	if err := f.validate(ctx); err != nil {
		return err
	}
	o := f.up
	multicall.TuneGC()
	ctx, cancel, err := stopWithOwners(ctx, o.OwnerPIDs)
	if err != nil {
		return err
	}
	defer cancel()
	var web *server.UIOptions
	if !o.NoUI {
		sd := f.state()
		web = &server.UIOptions{Port: o.UIPort, Course: func() ([]ui.Lesson, error) { return courseMap(sd, lang.All...) }}
	}
	err = server.Run(ctx, f.state(), server.Options{
		Out: out, ErrOut: errOut, UI: web,
		ShowTimeline: os.Getenv(detachedEnv) == "", // a detached lab's output is its log
		Lang:         f.language(),
		Ready:        multicall.BootDone,
		Lab: full.Options{NoSamples: o.NoSamples, Lab: lab.Options{
			DataDir:               o.DataDir,
			Port:                  o.Port,
			BinaryAssetsDirectory: o.BinaryAssetsDir,
			Kubernetes:            f.kube,
			StartTimeout:          cmp.Or(o.Timeout, defaultUpTimeout),
			Components:            o.Components,
			Nodes:                 cmp.Or(o.Nodes, defaultUpNodes),
			Zones:                 o.Zones,
			NodeCapacity:          f.capacity,
			PodStartDelay:         o.PodStartDelay,
			CRDDirectoryPaths:     o.CRDs,
			Webhooks:              o.Webhooks,
			WebhookPort:           o.WebhookPort,
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
