package lab

import (
	"context"
	"crypto/x509"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/crdlab/crdlab/lab/aggregated"
	"github.com/crdlab/crdlab/lab/internal/certs"
	"github.com/crdlab/crdlab/lab/internal/kubedefaults"
	"github.com/crdlab/crdlab/lab/internal/ports"
	"github.com/crdlab/crdlab/lab/internal/proc"
	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/multicall"
	"github.com/crdlab/crdlab/lab/writefile"
)

// Components a lab can run besides etcd and kube-apiserver, which always run.
const (
	// ControllerManager is kube-controller-manager with the controllers
	// that make workloads behave: its minor's default-on controllers, but for
	// the written exclusions (lab/internal/kubedefaults).
	ControllerManager = "controller-manager"
	// Scheduler is kube-scheduler.
	Scheduler = "scheduler"
	// Nodes are the simulated nodes and their simulated kubelet.
	Nodes = "nodes"
	// AggregatedAPI is the lab's aggregated API server (metrics.k8s.io and
	// lab.crdlab.dev), behind the kube-apiserver's aggregator.
	AggregatedAPI = "aggregated-api"
)

// Timing of node failure handling, shortened from Kubernetes' defaults so
// that a stopped node is noticed and its Pods replaced within about half a
// minute; the grace period grows with the number of nodes (nodeGrace). The
// texts that state a lab's value beside the default (scenarios, docs) are
// checked against these and the minor's defaults (defaults_test.go).
const (
	nodeMonitorPeriod  = "2s"
	notReadyToleration = "10"
)

// timingFlags are kube-controller-manager's flags that shorten Kubernetes'
// waits in a lab of nodes nodes: a failed node's, and the
// HorizontalPodAutoscaler's.
func timingFlags(nodes int) []string {
	flags := []string{
		"--node-monitor-grace-period=" + nodeGrace(nodes).String(),
		"--node-monitor-period=" + nodeMonitorPeriod,
		"--horizontal-pod-autoscaler-sync-period=5s",
		// Scale down after 15 s of lower load, not 5 minutes.
		"--horizontal-pod-autoscaler-downscale-stabilization=15s",
	}
	if rate := EvictionRate(nodes); rate != DefaultEvictionRate {
		flags = append(flags, "--node-eviction-rate="+strconv.FormatFloat(rate, 'f', -1, 64))
	}
	return flags
}

// DefaultEvictionRate is kube-controller-manager's --node-eviction-rate:
// how many nodes a second the node lifecycle controller taints NoExecute
// (so that their Pods are evicted) in a zone whose nodes are not all down,
// or all down while another zone is up.
const DefaultEvictionRate = 0.1

// EvictionRate is the lab's --node-eviction-rate for a lab of count nodes:
// Kubernetes' default up to 50 nodes (--large-cluster-size-threshold);
// above, count/50 nodes a second (20 for a thousand nodes), so that a zone
// of hundreds of failed nodes is tainted within a minute, where the
// default, a node every 10 seconds, would take most of an hour.
func EvictionRate(count int) float64 {
	if count <= 50 {
		return DefaultEvictionRate
	}
	return float64(count) / 50
}

// process is a component that runs as a supervised process of this
// program's own executable: kube-controller-manager or kube-scheduler.
type process struct {
	lab    *Lab
	name   string                                            // as users see it: ControllerManager, Scheduler
	binary string                                            // multicall.KubeControllerManager, multicall.KubeScheduler
	flags  func(l *Lab, kubeconfig string) ([]string, error) // its own

	mu sync.Mutex
	c  *proc.Child // once started
}

func newControllerManager(l *Lab) component {
	return &process{lab: l, name: ControllerManager, binary: multicall.KubeControllerManager, flags: controllerManagerFlags}
}

func newScheduler(l *Lab) component {
	return &process{lab: l, name: Scheduler, binary: multicall.KubeScheduler, flags: schedulerFlags}
}

func (p *process) Name() string { return p.name }

func (p *process) child() *proc.Child {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.c
}

// Start makes the process and starts it the first time, and waits until
// it is healthy; later, it resumes it.
func (p *process) Start(ctx context.Context) error {
	l := p.lab
	if c := p.child(); c != nil {
		return c.Resume(ctx, l.opts.StartTimeout)
	}
	c, err := p.newChild()
	if err != nil {
		return err
	}
	l.configureChild(c)
	p.mu.Lock()
	p.c = c
	p.mu.Unlock()
	start := time.Now()
	if err := c.Start(ctx, l.opts.StartTimeout); err != nil {
		return err
	}
	l.opts.Logger.V(1).Info("healthy", "component", p.name, "after", time.Since(start).Round(time.Millisecond).String())
	return nil
}

func (p *process) Running() bool {
	c := p.child()
	return c != nil && c.Running()
}

func (p *process) Stop(context.Context) error {
	if c := p.child(); c != nil {
		return c.Stop(10 * time.Second)
	}
	return nil
}

// componentKubeconfig provisions a client certificate for user (in groups)
// and writes a kubeconfig for it in l's work dir, returning its path.
func componentKubeconfig(l *Lab, user string, groups ...string) (string, error) {
	cfg, err := l.cp.APIServer.AddUser(user, groups, nil)
	if err != nil {
		return "", err
	}
	data, err := kubeconfigFor(cfg)
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

// newChild makes the supervised child of p's binary (kube-controller-
// manager or kube-scheduler): a client certificate for user
// system:<binary>, a free port for its /healthz on 127.0.0.1, the flags
// every such component takes, and then its own flags (p.flags).
func (p *process) newChild() (*proc.Child, error) {
	l, name := p.lab, p.binary
	kubeconfig, err := componentKubeconfig(l, "system:"+name)
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	own, err := p.flags(l, kubeconfig)
	if err != nil {
		return nil, err
	}
	args := append([]string{
		"--authentication-kubeconfig=" + kubeconfig,
		"--authorization-kubeconfig=" + kubeconfig,
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--tls-cert-file=" + l.components.serving.cert,
		"--tls-private-key-file=" + l.components.serving.key,
	}, own...)
	return &proc.Child{
		Name:    name,
		Path:    filepath.Join(l.made.bin, name),
		Args:    args,
		Env:     append(childEnv(), multicall.BootGCEnviron()...),
		Health:  fmt.Sprintf("https://127.0.0.1:%d/healthz", port),
		LogPath: l.dir.Log(name),
		Log:     l.opts.Logger,
	}, nil
}

// controllerManagerFlags are kube-controller-manager's own flags in l.
func controllerManagerFlags(l *Lab, kubeconfig string) ([]string, error) {
	caFile := l.dir.Path("certs", "apiserver-ca.crt")
	if err := os.WriteFile(caFile, l.cp.APIServer.ServingCA(), 0o600); err != nil {
		return nil, fmt.Errorf("unable to write %s: %w", caFile, err)
	}
	return append([]string{
		"--kubeconfig=" + kubeconfig,
		"--leader-elect=false",
		// Each controller acts under its own service account, so the
		// timeline can name who did what.
		"--use-service-account-credentials=true",
		"--controllers=" + strings.Join(kubedefaults.Controllers, ","),
		"--root-ca-file=" + caFile,
		// Not throttled: a scale-up of hundreds of Pods must not crawl.
		"--kube-api-qps=1000",
		"--kube-api-burst=2000",
		"--concurrent-deployment-syncs=10",
		"--concurrent-replicaset-syncs=10",
		"--concurrent-statefulset-syncs=10",
		"--concurrent-gc-syncs=40",
		"--allocate-node-cidrs=false",
	}, timingFlags(l.opts.Nodes)...), nil
}

// schedulerFlags are kube-scheduler's own flags in l.
func schedulerFlags(l *Lab, kubeconfig string) ([]string, error) {
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
`, kubeconfig) + schedulerProfile(l.opts.Zones)
	if err := os.WriteFile(config, []byte(cfg), 0o600); err != nil {
		return nil, fmt.Errorf("unable to write %s: %w", config, err)
	}
	return []string{"--config=" + config}, nil
}

// schedulerProfile is kube-scheduler's profile in a lab of nodes spread
// over zones zones. Without zones (no node has a topology.kubernetes.io/zone
// label), its Pods are spread by Kubernetes' default constraint of
// hostname alone: the default constraint of zone places no Pod differently
// there (a node without the label scores nothing for it), but kube-
// scheduler still counts, for each Pod it places, every Pod of every node
// for it (PodTopologySpread's PreScore counts the nodes' zone "" when
// spreading is the system's default): 46% of its CPU in a scale-up of
// 10,000 Pods on 1,000 nodes (docs/scale.md). With zones, Kubernetes'
// defaults (zone and hostname).
func schedulerProfile(zones int) string {
	if zones > 0 {
		return ""
	}
	return `profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: PodTopologySpread
    args:
      defaultingType: List
      defaultConstraints:
      - maxSkew: 3
        topologyKey: kubernetes.io/hostname
        whenUnsatisfiable: ScheduleAnyway
`
}

// servingFiles are the serving certificate kube-controller-manager,
// kube-scheduler and the aggregated API server share, its key, and the CA
// that signed it.
type servingFiles struct {
	cert, key string
	ca        []byte // PEM
}

// makeServingCert makes the components' serving certificate in the work
// dir dir, valid for 127.0.0.1, localhost and the aggregated API server's
// Service name. Made by the lab on an ECDSA key, it spares each component
// the two RSA keys it would make for a self-signed one (see
// lab/internal/certs).
func (r *registry) makeServingCert(dir control.Dir) error {
	ca, err := certs.NewCA("crdlab components CA", 10*365*24*time.Hour)
	if err != nil {
		return err
	}
	cert, key, err := ca.Issue("crdlab components", x509.ExtKeyUsageServerAuth, append([]string{"127.0.0.1", "localhost"}, aggregated.ServiceHosts()...)...)
	if err != nil {
		return err
	}
	certDir := dir.Path("certs", "components")
	if err := os.MkdirAll(certDir, 0o700); err != nil {
		return fmt.Errorf("unable to create %s: %w", certDir, err)
	}
	f := servingFiles{cert: filepath.Join(certDir, "serving.crt"), key: filepath.Join(certDir, "serving.key"), ca: ca.PEM}
	if err := certs.WriteFiles(map[string][]byte{f.cert: cert, f.key: key}); err != nil {
		return err
	}
	r.serving = f
	return nil
}

// freePort returns a port free on 127.0.0.1 at the time of the call.
func freePort() (int, error) {
	p, err := ports.Free(1)
	if err != nil {
		return 0, err
	}
	return p[0], nil
}
