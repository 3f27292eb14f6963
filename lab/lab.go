package lab

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	clientv3 "go.etcd.io/etcd/client/v3"
	"golang.org/x/sync/errgroup"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/crdlab/crdlab/lab/aggregated"
	"github.com/crdlab/crdlab/lab/internal/proc"
	"github.com/crdlab/crdlab/lab/internal/reset"
	"github.com/crdlab/crdlab/lab/internal/webhooks"
	"github.com/crdlab/crdlab/lab/kubelet"
	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/multicall"
)

// Lab is a running control plane: a real etcd and a real kube-apiserver
// started through controller-runtime's envtest.
type Lab struct {
	opts       Options
	env        *envtest.Environment
	config     *rest.Config
	client     client.Client
	kubeconfig []byte
	dir        control.Dir
	ownDir     bool // a temporary work dir, removed by Stop
	started    time.Time
	logFiles   []*os.File
	ownDataDir string                 // an ephemeral etcd data dir the lab made
	children   map[string]*proc.Child // by component: controller-manager, scheduler
	serving    servingFiles           // the components' serving certificate
	// controlPlane are etcd and kube-apiserver, adopted once envtest
	// started them (see superviseControlPlane).
	controlPlane []*proc.Child
	kubelet      *kubelet.Kubelet
	// startsTogether: etcd and kube-apiserver are the lab's own binaries,
	// started at the same time (see startEnvironment); ownsControlPlane:
	// they were, so Stop stops them, not envtest.
	startsTogether, ownsControlPlane bool

	mu        sync.Mutex
	operators Operators // attached in-process operators, if any
	problems  []string  // what the lab lost for good (see Health)

	egress     *aggregated.Egress         // the apiserver's way into the "cluster"
	frontProxy aggregated.FrontProxyFiles // the aggregator's client certificate
	aggregated *aggregated.Server         // the aggregated API server, while it runs
	aggAddr    string                     // where it listens, kept across restarts

	front         *webhooks.Front // calls to the user's own webhooks
	manifests     *webhooks.Manifests
	convertedCRDs []*apiextensionsv1.CustomResourceDefinition // by the user's server

	etcd     *clientv3.Client // for Reset
	baseline *reset.Baseline  // etcd's content when Start returned
}

// Errors of Start, StopComponent, StartComponent, StopNode and StartNode;
// each names the option or the name at fault.
var (
	// ErrPortInUse: Options.Port is taken.
	ErrPortInUse = errors.New("port in use")
	// ErrWorkDir: Options.WorkDir cannot be created or written.
	ErrWorkDir = errors.New("work dir unusable")
	// ErrDataDir: Options.DataDir cannot be created or written.
	ErrDataDir = errors.New("data dir unusable")
	// ErrCRDPath: an Options.CRDDirectoryPaths entry does not exist or holds no CRD.
	ErrCRDPath = errors.New("unusable CRD path")
	// ErrUnknownComponent: the lab has no component of that name (in
	// Options.Components, or to stop or start). The same value as
	// control.ErrUnknownComponent, so that errors.Is works through the
	// control socket too.
	ErrUnknownComponent = control.ErrUnknownComponent
	// ErrUnknownNode: the lab has no simulated node of that name.
	ErrUnknownNode = control.ErrUnknownNode
)

// Start boots etcd and kube-apiserver and returns once the apiserver serves
// requests and the default namespace exists. On error, or when ctx is done
// before the lab is ready, nothing it started is left running.
func Start(ctx context.Context, opts Options) (_ *Lab, retErr error) {
	opts.defaults()
	l := &Lab{opts: opts, started: time.Now(), children: map[string]*proc.Child{}}
	defer func() {
		if retErr != nil {
			_ = l.Stop()
		}
	}()

	if opts.Logger.GetSink() != nil {
		ctrllog.SetLogger(opts.Logger) // envtest logs through controller-runtime's root logger
	} else {
		// No logger: quiet. The in-process parts built on Kubernetes'
		// libraries (the aggregated API server) log through klog, and
		// controller-runtime complains once when its logger is never set.
		ctrllog.SetLogger(logr.Discard())
		klog.SetLogger(logr.Discard())
	}
	if err := validComponents(opts.Components); err != nil {
		return nil, err
	}
	if err := l.prepareDirs(); err != nil {
		return nil, err
	}
	if opts.DataDir != "" {
		if err := l.checkDataDir(); err != nil {
			return nil, err
		}
	}
	if opts.Port != 0 {
		if err := checkPortFree(opts.Port); err != nil {
			return nil, err
		}
	}
	scheme := opts.Scheme
	if scheme == nil {
		scheme = DefaultScheme()
	}
	crds, err := l.prepareWebhooks(scheme)
	if err != nil {
		return nil, err
	}
	env, err := l.environment(crds)
	if err != nil {
		return nil, err
	}
	l.env = env

	// Children compare their parent with this, to exit when started by a
	// parent that died already (see dieWithParent).
	if err := os.Setenv(multicall.ParentPIDEnv, strconv.Itoa(os.Getpid())); err != nil {
		return nil, fmt.Errorf("unable to set %s: %w", multicall.ParentPIDEnv, err)
	}

	opts.Progress("starting etcd and kube-apiserver")
	cfg, err := l.startEnvironment(env)
	if err != nil {
		// envtest says which process did not start.
		if opts.DataDir != "" && strings.Contains(err.Error(), "process etcd ") {
			return nil, l.explainDataDirError(err)
		}
		return nil, l.explainStartError(err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l.config = cfg
	opts.Progress("kube-apiserver ready at " + cfg.Host)

	if l.client, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		return nil, fmt.Errorf("unable to create a client for %s: %w", cfg.Host, err)
	}
	if l.kubeconfig, err = kubeconfigFor(cfg); err != nil {
		return nil, err
	}
	if err := l.superviseControlPlane(); err != nil {
		return nil, err
	}
	// What goes into the apiserver (CRDs, webhook configurations, Objects,
	// then Options.Alongside) goes in while the components start: neither
	// waits for the other.
	install := func(ctx context.Context) error {
		if err := l.installEnvironment(); err != nil {
			return l.explainStartError(err)
		}
		if err := l.installWebhooks(ctx); err != nil {
			return err
		}
		for _, obj := range opts.Objects {
			if err := l.client.Patch(ctx, obj, client.Apply, client.FieldOwner("crdlab"), client.ForceOwnership); err != nil {
				return fmt.Errorf("unable to apply %s %s: %w", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), err)
			}
		}
		if opts.Alongside != nil {
			return opts.Alongside(ctx, l)
		}
		return nil
	}
	if err := l.startWorkloadComponents(ctx, install); err != nil {
		return nil, err
	}
	if err := l.takeBaseline(ctx); err != nil {
		return nil, err
	}
	if err := l.recordDataDir(); err != nil {
		return nil, err
	}
	return l, nil
}

// startWorkloadComponents starts kube-controller-manager, kube-scheduler,
// the simulated nodes and the aggregated API server, as the options ask,
// and runs install, in parallel.
func (l *Lab) startWorkloadComponents(ctx context.Context, install func(context.Context) error) error {
	if l.opts.runs(ControllerManager) || l.opts.runs(Scheduler) || l.opts.runs(AggregatedAPI) {
		if err := l.makeServingCert(); err != nil {
			return err
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	if l.opts.runs(ControllerManager) || l.opts.runs(Scheduler) {
		l.opts.Progress("starting kube-controller-manager and kube-scheduler")
		g.Go(func() error { return l.startControlPlaneChildren(gctx) })
	}
	if l.opts.runs(Nodes) {
		g.Go(func() error {
			// The nodes outlive ctx, which only bounds the start.
			k, err := kubelet.Start(context.WithoutCancel(gctx), l.config, kubelet.Options{
				Nodes:      l.opts.Nodes,
				StartDelay: l.opts.PodStartDelay,
				Logger:     l.opts.Logger,
			})
			if err != nil {
				return err
			}
			l.kubelet = k
			l.opts.Progress(fmt.Sprintf("%d simulated nodes ready", len(k.NodeNames())))
			return nil
		})
	}
	g.Go(func() error { return install(gctx) })
	if l.opts.runs(AggregatedAPI) {
		g.Go(func() error {
			if err := l.startAggregated(gctx); err != nil {
				return err
			}
			l.opts.Progress("aggregated API server ready: metrics.k8s.io, lab.crdlab.dev")
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if len(l.children) > 0 {
		l.opts.Progress("kube-controller-manager and kube-scheduler healthy")
	}
	return ctx.Err()
}

// DefaultScheme returns client-go's scheme plus apiextensions.k8s.io/v1, the
// scheme of the lab's client when Options.Scheme is nil.
func DefaultScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = apiextensionsv1.AddToScheme(s)
	return s
}

// RESTConfig returns a configuration for the lab's admin user (group
// system:masters). The caller may modify the returned copy.
func (l *Lab) RESTConfig() *rest.Config { return rest.CopyConfig(l.config) }

// Client returns a controller-runtime client acting as the admin user.
func (l *Lab) Client() client.Client { return l.client }

// Kubeconfig returns a kubeconfig for the admin user.
func (l *Lab) Kubeconfig() []byte { return l.kubeconfig }

// Endpoint returns the kube-apiserver's URL.
func (l *Lab) Endpoint() string { return l.config.Host }

// Dir returns the lab's work dir: binary links, certificates, the
// components' logs (Dir().Log(name)) and the apiserver's audit log
// (Dir().AuditLog()).
func (l *Lab) Dir() control.Dir { return l.dir }

// StartedAt returns when Start was called.
func (l *Lab) StartedAt() time.Time { return l.started }

// Stop stops the simulated nodes, kube-controller-manager and
// kube-scheduler, then kube-apiserver, then etcd, and removes the temporary
// directories Start made. It is safe to call on a partly started lab and
// more than once.
func (l *Lab) Stop() error {
	var errs []error
	// Nothing a lab runs needs a graceful shutdown, so everything but etcd
	// stops at once. The aggregated API server drains its connections for
	// up to 100 ms: they end as soon as kube-apiserver, their only client,
	// is gone.
	var (
		wg, inProcess sync.WaitGroup
		mu            sync.Mutex
	)
	inProcess.Go(func() { l.stopAggregated(true) })
	if k := l.kubelet; k != nil {
		l.kubelet = nil
		inProcess.Go(k.Stop)
	}
	if l.front != nil {
		l.front.Close()
		l.front = nil
	}
	if l.egress != nil {
		l.egress.Close()
		l.egress = nil
	}
	// The controller-manager and the scheduler are killed: their graceful
	// shutdown takes about a second and saves nothing a lab keeps.
	for _, c := range l.children {
		wg.Go(func() {
			if err := c.Stop(0); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	l.mu.Lock()
	clear(l.children)
	l.mu.Unlock()
	if l.etcd != nil {
		_ = l.etcd.Close()
		l.etcd = nil
	}
	if l.env != nil {
		errs = append(errs, l.stopControlPlane()...)
		// stopControlPlane stopped etcd and kube-apiserver already. envtest
		// reaps them itself and marks them exited a moment later: a Stop
		// in between signals a process that is gone (ESRCH), which is what
		// was wanted.
		if err := l.env.Stop(); err != nil && !errors.Is(err, syscall.ESRCH) {
			errs = append(errs, fmt.Errorf("unable to stop the control plane: %w", err))
		}
		if l.ownsControlPlane {
			// envtest's Stop leaves a control plane it did not start;
			// this removes the folders envtest made for it.
			if err := l.env.ControlPlane.Stop(); err != nil && !errors.Is(err, syscall.ESRCH) {
				errs = append(errs, fmt.Errorf("unable to stop the control plane: %w", err))
			}
			l.ownsControlPlane = false
		}
		l.env = nil
	}
	inProcess.Wait()
	for _, f := range l.logFiles {
		_ = f.Close()
	}
	l.logFiles = nil
	if l.ownDataDir != "" {
		if err := os.RemoveAll(l.ownDataDir); err != nil {
			errs = append(errs, fmt.Errorf("unable to remove etcd data %s: %w", l.ownDataDir, err))
		}
		l.ownDataDir = ""
	}
	if l.ownDir && l.dir != "" {
		if err := os.RemoveAll(string(l.dir)); err != nil {
			errs = append(errs, fmt.Errorf("unable to remove work dir %s: %w", l.dir, err))
		}
		l.dir = ""
	}
	return errors.Join(errs...)
}

// checkPortFree fails with ErrPortInUse when nothing can listen on port.
func checkPortFree(port int) error {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("%w: unable to listen on %s for kube-apiserver: %w", ErrPortInUse, addr, err)
	}
	return ln.Close()
}

// WebhookInstallOptions returns Options.WebhookInstallOptions as the lab
// completed them: where to serve the webhooks (LocalServingHost,
// LocalServingPort) and the serving certificate's folder
// (LocalServingCertDir, tls.crt and tls.key).
func (l *Lab) WebhookInstallOptions() envtest.WebhookInstallOptions {
	return l.env.WebhookInstallOptions
}
