package lab

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/crdlab/crdlab/lab/aggregated"
	"github.com/crdlab/crdlab/lab/internal/certs"
	"github.com/crdlab/crdlab/lab/internal/proc"
	"github.com/crdlab/crdlab/lab/internal/writefile"
	"github.com/crdlab/crdlab/lab/multicall"
)

// Components a lab can run besides etcd and kube-apiserver, which always run.
const (
	// ControllerManager is kube-controller-manager with the controllers
	// that make workloads behave (see ControllerManagerControllers).
	ControllerManager = "controller-manager"
	// Scheduler is kube-scheduler.
	Scheduler = "scheduler"
	// Nodes are the simulated nodes and their simulated kubelet.
	Nodes = "nodes"
	// AggregatedAPI is the lab's aggregated API server (metrics.k8s.io and
	// lab.crdlab.dev), behind the kube-apiserver's aggregator.
	AggregatedAPI = "aggregated-api"
)

// AllComponents are the optional components, all run by default.
var AllComponents = []string{ControllerManager, Scheduler, Nodes, AggregatedAPI}

// controllerManagerControllers are the kube-controller-manager controllers
// a lab runs: those that make Deployments, StatefulSets, DaemonSets, Jobs,
// CronJobs, Services, namespaces, garbage collection, node failure and
// autoscaling behave as in a real cluster. Controllers for volumes, cloud
// providers, certificates and IPAM have nothing to do in a lab.
var controllerManagerControllers = []string{
	"deployment-controller",
	"replicaset-controller",
	"replicationcontroller-controller",
	"statefulset-controller",
	"daemonset-controller",
	"job-controller",
	"cronjob-controller",
	"ttl-after-finished-controller",
	"garbage-collector-controller",
	"namespace-controller",
	"serviceaccount-controller",
	"root-ca-certificate-publisher-controller",
	"endpoints-controller",
	"endpointslice-controller",
	"endpointslice-mirroring-controller",
	"node-lifecycle-controller",
	"taint-eviction-controller",
	"pod-garbage-collector-controller",
	"disruption-controller",
	"horizontal-pod-autoscaler-controller",
	"resourcequota-controller",
	"clusterrole-aggregation-controller",
}

// Timing of node failure handling, shortened from Kubernetes' defaults
// (40 s grace, 300 s tolerations) so that a stopped node is noticed and its
// Pods replaced within about half a minute.
const (
	nodeMonitorGracePeriod = "16s"
	nodeMonitorPeriod      = "2s"
	notReadyToleration     = "10"
)

// validComponents checks names against AllComponents.
func validComponents(names []string) error {
	for _, n := range names {
		found := false
		for _, c := range AllComponents {
			found = found || c == n
		}
		if !found {
			return fmt.Errorf("%w: %q (known: %s)", ErrUnknownComponent, n, strings.Join(AllComponents, ", "))
		}
	}
	return nil
}

// runs reports whether the lab runs the optional component name.
func (o *Options) runs(name string) bool {
	if o.Components == nil {
		return true
	}
	for _, c := range o.Components {
		if c == name {
			return true
		}
	}
	return false
}

// startControlPlaneChildren starts kube-controller-manager and kube-scheduler,
// as the options ask, in parallel, and waits until they are healthy.
func (l *Lab) startControlPlaneChildren(ctx context.Context) error {
	self, err := multicall.Link(l.dir.Path("bin"))
	if err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	for name, build := range map[string]func(string) (*proc.Child, error){ControllerManager: l.controllerManager, Scheduler: l.scheduler} {
		if !l.opts.runs(name) {
			continue
		}
		c, err := build(self)
		if err != nil {
			return errors.Join(err, g.Wait())
		}
		l.configureChild(c)
		l.mu.Lock()
		l.children[name] = c
		l.mu.Unlock()
		g.Go(func() error {
			start := time.Now()
			if err := c.Start(gctx, l.opts.StartTimeout); err != nil {
				return err
			}
			l.opts.Logger.V(1).Info("healthy", "component", name, "after", time.Since(start).Round(time.Millisecond).String())
			return nil
		})
	}
	return g.Wait()
}

// componentKubeconfig provisions a client certificate for user (in groups)
// and writes a kubeconfig for it, returning its path.
func (l *Lab) componentKubeconfig(user string, groups ...string) (string, error) {
	// The control plane's, not the environment's AddUser: envtest refuses
	// that one for a control plane it did not start (see startEnvironment).
	u, err := l.env.ControlPlane.AddUser(envtest.User{Name: user, Groups: groups}, nil)
	if err != nil {
		return "", fmt.Errorf("unable to provision user %s: %w", user, err)
	}
	data, err := kubeconfigFor(u.Config())
	if err != nil {
		return "", err
	}
	dir := l.dir.Path("kubeconfigs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("unable to create %s: %w", dir, err)
	}
	path := filepath.Join(dir, strings.ReplaceAll(user, ":", "-")+".kubeconfig")
	return path, writefile.Atomic(path, data, 0o600)
}

// newChild makes a supervised child for component name (kube-controller-
// manager or kube-scheduler): a client certificate for user
// system:<name>, a free port for its /healthz on 127.0.0.1, the flags every
// such component takes, and then its own flags, from flags(kubeconfig).
func (l *Lab) newChild(name, binDir string, flags func(kubeconfig string) ([]string, error)) (*proc.Child, error) {
	kubeconfig, err := l.componentKubeconfig("system:" + name)
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	own, err := flags(kubeconfig)
	if err != nil {
		return nil, err
	}
	args := append([]string{
		"--authentication-kubeconfig=" + kubeconfig,
		"--authorization-kubeconfig=" + kubeconfig,
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--tls-cert-file=" + l.serving.cert,
		"--tls-private-key-file=" + l.serving.key,
	}, own...)
	return &proc.Child{
		Name:    name,
		Path:    filepath.Join(binDir, name),
		Args:    args,
		Health:  fmt.Sprintf("https://127.0.0.1:%d/healthz", port),
		LogPath: l.dir.Log(name),
		Log:     l.opts.Logger,
	}, nil
}

func (l *Lab) controllerManager(binDir string) (*proc.Child, error) {
	return l.newChild(multicall.KubeControllerManager, binDir, func(kubeconfig string) ([]string, error) {
		caFile := l.dir.Path("certs", "apiserver-ca.crt")
		if err := os.WriteFile(caFile, l.env.ControlPlane.APIServer.SecureServing.CA, 0o600); err != nil {
			return nil, fmt.Errorf("unable to write %s: %w", caFile, err)
		}
		return []string{
			"--kubeconfig=" + kubeconfig,
			"--leader-elect=false",
			// Each controller acts under its own service account, so the
			// timeline can name who did what.
			"--use-service-account-credentials=true",
			"--controllers=" + strings.Join(controllerManagerControllers, ","),
			"--root-ca-file=" + caFile,
			// Not throttled: a scale-up of hundreds of Pods must not crawl.
			"--kube-api-qps=1000",
			"--kube-api-burst=2000",
			"--concurrent-deployment-syncs=10",
			"--concurrent-replicaset-syncs=10",
			"--concurrent-statefulset-syncs=10",
			"--concurrent-gc-syncs=40",
			"--node-monitor-grace-period=" + nodeMonitorGracePeriod,
			"--node-monitor-period=" + nodeMonitorPeriod,
			"--horizontal-pod-autoscaler-sync-period=5s",
			// Scale down after 15 s of lower load, not 5 minutes.
			"--horizontal-pod-autoscaler-downscale-stabilization=15s",
			"--allocate-node-cidrs=false",
		}, nil
	})
}

func (l *Lab) scheduler(binDir string) (*proc.Child, error) {
	return l.newChild(multicall.KubeScheduler, binDir, func(kubeconfig string) ([]string, error) {
		config := l.dir.Path("kube-scheduler.yaml")
		// Client QPS is only settable through the configuration file.
		cfg := fmt.Sprintf(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: %q
  qps: 1000
  burst: 2000
leaderElection:
  leaderElect: false
`, kubeconfig)
		if err := os.WriteFile(config, []byte(cfg), 0o600); err != nil {
			return nil, fmt.Errorf("unable to write %s: %w", config, err)
		}
		return []string{"--config=" + config}, nil
	})
}

// servingFiles are the serving certificate kube-controller-manager,
// kube-scheduler and the aggregated API server share, its key, and the CA
// that signed it.
type servingFiles struct {
	cert, key string
	ca        []byte // PEM
}

// makeServingCert makes the components' serving certificate, valid for
// 127.0.0.1, localhost and the aggregated API server's Service name. Made by
// the lab on an ECDSA key, it spares each component the two RSA keys it
// would make for a self-signed one (see lab/internal/certs).
func (l *Lab) makeServingCert() error {
	ca, err := certs.NewCA("crdlab components CA", 10*365*24*time.Hour)
	if err != nil {
		return err
	}
	cert, key, err := ca.Issue("crdlab components", x509.ExtKeyUsageServerAuth, append([]string{"127.0.0.1", "localhost"}, aggregated.ServiceHosts()...)...)
	if err != nil {
		return err
	}
	dir := l.dir.Path("certs", "components")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("unable to create %s: %w", dir, err)
	}
	f := servingFiles{cert: filepath.Join(dir, "serving.crt"), key: filepath.Join(dir, "serving.key"), ca: ca.PEM}
	if err := certs.WriteFiles(map[string][]byte{f.cert: cert, f.key: key}); err != nil {
		return err
	}
	l.serving = f
	return nil
}

// freePort returns a port free on 127.0.0.1 at the time of the call.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("unable to find a free port on 127.0.0.1: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
