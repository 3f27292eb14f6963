package labtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/labtest/install"
)

// Environment variables, read by Start when the matching field is empty.
const (
	// BinaryEnv names the crdlab executable.
	BinaryEnv = install.BinaryEnv
	// VersionEnv is the crdlab release to download when no binary is
	// found (default: this module's version).
	VersionEnv = install.VersionEnv
	// DownloadURLEnv is the base URL of crdlab's releases.
	DownloadURLEnv = install.DownloadURLEnv
	// AttachEnv names the state dir of a running lab to attach to.
	AttachEnv = "CRDLAB_ATTACH"
	// ExistingClusterEnv set to "true" uses the cluster of $KUBECONFIG
	// (the variable envtest reads for the same thing).
	ExistingClusterEnv = "USE_EXISTING_CLUSTER"
	// LabEnv is set by Start, for this process and the commands it runs,
	// to the state dir of the lab the Environment runs or attached to, and
	// unset by Stop: how the labtest/trace module's controller wrapper
	// finds the lab to put your controller's reconcile passes on.
	LabEnv = "CRDLAB_LAB"
)

// Errors of an Environment.
var (
	// ErrNoBinary: no crdlab executable was found nor downloaded (the
	// error also wraps package install's sentinel saying why).
	ErrNoBinary = install.ErrNotFound
	// ErrNotRunning: no lab runs on the state dir to attach to.
	ErrNotRunning = control.ErrNotRunning
	// ErrNotALab: a lab-only call (nodes, components, Reset) on a cluster
	// that is not a crdlab lab (UseExistingCluster).
	ErrNotALab = errors.New("not a crdlab lab")
	// ErrCRDPath: a CRDDirectoryPaths entry does not exist or holds a bad
	// manifest.
	ErrCRDPath = errors.New("unusable CRD path")
	// ErrWebhookPath: a WebhookInstallOptions.Paths entry does not exist,
	// or webhooks are asked of a lab that cannot serve them.
	ErrWebhookPath = errors.New("unusable webhook path")
	// ErrUnknownNode: the lab has no simulated node of that name.
	ErrUnknownNode = control.ErrUnknownNode
	// ErrUnknownComponent: the lab has no component of that name.
	ErrUnknownComponent = control.ErrUnknownComponent
)

// Environment is a lab for a test suite. The zero value works: a lab of
// its own with every component and no sample CRDs.
type Environment struct {
	// Binary is the crdlab executable. Empty: $CRDLAB_BINARY, then crdlab
	// on $PATH if it is the release of this module's version (or
	// $CRDLAB_VERSION; another is refused), then that release downloaded
	// from $CRDLAB_DOWNLOAD_URL into the user cache dir, checked (see
	// package install).
	Binary string

	// AttachTo is the state dir of a lab 'crdlab up -d' runs, to use
	// instead of starting one. Empty: $CRDLAB_ATTACH.
	AttachTo string

	// UseExistingCluster uses the cluster of the current kubeconfig
	// ($KUBECONFIG, ~/.kube/config) instead of a lab. Nil: true when
	// $USE_EXISTING_CLUSTER is "true".
	UseExistingCluster *bool

	// CRDDirectoryPaths are folders or files of CRD manifests (YAML or
	// JSON) to install once the cluster serves; Start waits until they are
	// established.
	CRDDirectoryPaths []string

	// ErrorIfCRDPathMissing makes a missing CRDDirectoryPaths entry an
	// error; otherwise it is skipped, as envtest does.
	ErrorIfCRDPathMissing bool

	// NodeCount is how many simulated nodes a lab of its own runs
	// (default 3). Start returns once every one is Ready (a thousand take
	// seconds), or fails saying how many are; Args of
	// {"--node-capacity", "cpu=8,memory=32Gi,pods=110"} sets their capacity.
	NodeCount int

	// Zones spreads the nodes of a lab of its own round robin over that
	// many zones, zone-a, zone-b…: each node is labelled
	// topology.kubernetes.io/zone with its zone (and
	// topology.kubernetes.io/region "lab"), for a controller or a Pod's
	// topology spread constraint to spread over ('crdlab up --zones'; at
	// most 26, and no more than the nodes). 0: no zone labels.
	Zones int

	// WithComponents are the optional components a lab of its own runs
	// (controller-manager, scheduler, nodes, aggregated-api; nil: all;
	// empty: none, an apiserver alone as in envtest).
	WithComponents []string

	// KubernetesVersion is the Kubernetes minor a lab of its own serves,
	// as "1.36": one of those 'crdlab version' lists ('crdlab up
	// --kubernetes'; a minor not built into crdlab runs from its
	// components executable, crdlab-k8s-<minor>, which crdlab finds next
	// to itself or downloads). Empty: $CRDLAB_KUBERNETES_VERSION if set,
	// else the minor built into crdlab. An attached lab or an existing
	// cluster serves what it serves.
	KubernetesVersion string

	// Samples also installs crdlab's sample CRDs and runs its sample
	// operators in a lab of its own.
	Samples bool

	// WebhookInstallOptions are your own webhooks (see its doc); Start
	// sets where to serve them.
	WebhookInstallOptions WebhookInstallOptions

	// Args are more 'crdlab up' flags for a lab of its own.
	Args []string

	// StartTimeout bounds Start (default 90s).
	StartTimeout time.Duration

	// Config is the admin configuration of the cluster, set by Start.
	Config *rest.Config

	stateDir   string // the lab's state dir, own or attached
	ownDir     bool
	kubeconfig string
	child      *control.Process // a lab of its own
	childLog   string
	existing   bool
	ctl        *control.Client

	marks *marks // the cluster's revision at each Mark
}

// Start starts the lab (or attaches to one, or connects to the existing
// cluster), installs the CRDs and returns the admin configuration.
func (e *Environment) Start() (*rest.Config, error) {
	timeout := e.StartTimeout
	if timeout <= 0 {
		timeout = 90 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	crds, err := readCRDs(e.CRDDirectoryPaths, e.ErrorIfCRDPathMissing)
	if err != nil {
		return nil, err
	}
	if err := e.start(ctx, crds); err != nil {
		_ = e.Stop()
		return nil, err
	}
	if e.child != nil {
		_, crds = conversionFiles(crds) // 'crdlab up --crds' installed the others
	}
	if err := installCRDs(ctx, e.Config, crds); err != nil {
		_ = e.Stop()
		return nil, err
	}
	if e.stateDir != "" {
		_ = os.Setenv(LabEnv, e.stateDir) // fails only on a name or value with NUL
	}
	return e.Config, nil
}

func (e *Environment) start(ctx context.Context, crds []crd) error {
	existing := os.Getenv(ExistingClusterEnv) == "true"
	if e.UseExistingCluster != nil {
		existing = *e.UseExistingCluster
	}
	for i, p := range e.WebhookInstallOptions.Paths {
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("%w: WebhookInstallOptions.Paths[%d] %s does not exist; give the folder of your webhook configurations (config/webhook in a kubebuilder project)", ErrWebhookPath, i, p)
		}
	}
	if existing && len(e.WebhookInstallOptions.Paths) > 0 {
		return fmt.Errorf("%w: WebhookInstallOptions.Paths with UseExistingCluster: a cluster of your own calls the webhooks you deploy to it; leave Paths empty", ErrWebhookPath)
	}
	if existing {
		rules := clientcmd.NewDefaultClientConfigLoadingRules()
		cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
		if err != nil {
			return fmt.Errorf("UseExistingCluster: unable to load the kubeconfig: %w", err)
		}
		e.Config, e.existing = cfg, true
		for _, p := range rules.GetLoadingPrecedence() {
			if _, err := os.Stat(p); err == nil {
				e.kubeconfig = p // for RunScenario
				break
			}
		}
		return nil
	}
	attach := e.AttachTo
	if attach == "" {
		attach = os.Getenv(AttachEnv)
	}
	if attach != "" {
		if err := checkAttachedConversion(crds, attach); err != nil {
			return err
		}
		if err := e.attach(ctx, attach); err != nil {
			return err
		}
		if err := readWebhookServing(attach, &e.WebhookInstallOptions); err != nil {
			return err
		}
		return e.checkAttachedWebhooks(ctx)
	}
	if err := e.startChild(ctx, crds); err != nil {
		return err
	}
	return readWebhookServing(e.stateDir, &e.WebhookInstallOptions)
}

// attach uses the lab running on state dir dir.
func (e *Environment) attach(ctx context.Context, dir string) error {
	ctl, err := dialState(dir)
	if err != nil {
		return err
	}
	if _, err := ctl.Components(ctx); err != nil {
		return fmt.Errorf("%w on state dir %s: its control socket does not answer (%w); start one with 'crdlab up -d --state-dir %s'",
			ErrNotRunning, dir, err, dir)
	}
	e.stateDir, e.ctl = dir, ctl
	return e.loadKubeconfig(control.Dir(dir).Kubeconfig())
}

// stopTimeout bounds how long Stop waits for a lab of its own to stop
// before it kills it.
const stopTimeout = 30 * time.Second

// downloadTimeout bounds finding crdlab, a download included, apart from
// StartTimeout, which is the lab's boot.
const downloadTimeout = 10 * time.Minute

// binary finds the crdlab executable, downloading it if it must.
func (e *Environment) binary(ctx context.Context) (string, error) {
	return install.Find(ctx, install.Options{Binary: e.Binary})
}

// startChild runs 'crdlab up' on a temporary state dir and waits until the
// lab is ready.
func (e *Environment) startChild(ctx context.Context, crds []crd) error {
	findCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), downloadTimeout)
	bin, err := e.binary(findCtx)
	cancel()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "crdlab-")
	if err != nil {
		return fmt.Errorf("unable to make a state dir: %w", err)
	}
	e.stateDir, e.ownDir = dir, true
	up := control.UpOptions{
		StateDir:   dir,
		OwnerPIDs:  []int{os.Getpid()},
		NoSamples:  !e.Samples,
		Nodes:      max(e.NodeCount, 0),
		Zones:      max(e.Zones, 0),
		Components: e.WithComponents,
		Webhooks:   e.WebhookInstallOptions.Paths,
		Kubernetes: e.KubernetesVersion,
	}
	// 'go test' runs the test binary as its child: the lab also stops when
	// 'go test' is killed, which leaves the test binary running.
	if ppid := os.Getppid(); ppid > 1 {
		up.OwnerPIDs = append(up.OwnerPIDs, ppid)
	}
	up.CRDs, _ = conversionFiles(crds)
	if p := e.WebhookInstallOptions.LocalServingPort; p != 0 && (len(up.Webhooks) > 0 || len(up.CRDs) > 0) {
		up.WebhookPort = p
	}
	args := append(up.Args(), e.Args...)

	e.childLog = filepath.Join(dir, "up.log")
	logFile, err := os.Create(e.childLog)
	if err != nil {
		return fmt.Errorf("unable to create %s: %w", e.childLog, err)
	}
	defer logFile.Close() // the lab has its own descriptor of it
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Env = append(childEnv(), "CRDLAB_STATE_DIR="+dir)
	// The kernel stops the lab when the thread that started it ends with
	// the test process, however it ends (Linux only); --owner-pid is the
	// lab's own check of the same.
	setParentDeathSignal(cmd)
	p, err := control.Start(cmd)
	if err != nil {
		return fmt.Errorf("unable to run %s: %w", bin, err)
	}
	e.child = p
	switch err := p.Ready(ctx); {
	case errors.Is(err, control.ErrExited):
		return fmt.Errorf("crdlab up exited before the lab was ready: %s (log %s)", lastLines(e.childLog, 5), e.childLog)
	case err != nil:
		return fmt.Errorf("the lab was not ready in time (log %s): %w", e.childLog, err)
	}
	ctl, err := dialState(dir)
	if err != nil {
		return err
	}
	e.ctl = ctl
	return e.loadKubeconfig(control.Dir(dir).Kubeconfig())
}

// childEnv is the environment of 'crdlab up': this process's, less envtest's
// binary variables. A kubebuilder Makefile sets KUBEBUILDER_ASSETS for the
// suite's envtest, and crdlab up would run those binaries instead of the
// components compiled into it (Args can pass --binary-assets-dir).
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name == "KUBEBUILDER_ASSETS" || strings.HasPrefix(name, "TEST_ASSET_") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

func (e *Environment) loadKubeconfig(path string) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		return fmt.Errorf("the lab's kubeconfig %s: %w", path, err)
	}
	// As envtest's: a test suite's requests are not to be throttled.
	cfg.QPS, cfg.Burst = 1000, 2000
	e.Config, e.kubeconfig = cfg, path
	return nil
}

// Stop stops a lab of its own and removes its state dir; an attached lab
// and an existing cluster are left as they are.
func (e *Environment) Stop() error {
	if e.stateDir != "" && os.Getenv(LabEnv) == e.stateDir {
		_ = os.Unsetenv(LabEnv)
	}
	var err error
	if e.child != nil {
		if err = e.child.Stop(stopTimeout); err != nil {
			err = fmt.Errorf("%w (log %s)", err, e.childLog)
		}
		e.child = nil
	}
	if e.ownDir && e.stateDir != "" && err == nil {
		_ = os.RemoveAll(e.stateDir)
		e.stateDir, e.ownDir = "", false
	}
	e.ctl = nil
	return err
}

// StateDir is the lab's state dir (empty on an existing cluster): its
// kubeconfig, its logs (logs/NAME.log) and its timeline.
func (e *Environment) StateDir() string { return e.stateDir }

// KubeconfigPath is the path of the lab's admin kubeconfig (empty on an
// existing cluster), for kubectl.
func (e *Environment) KubeconfigPath() string { return e.kubeconfig }

func lastLines(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
