package lab

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/multicall"
	"github.com/crdlab/crdlab/lab/writefile"
)

// etcdTuning are the flags the lab adds to its own etcd. A single member
// has no peer to hear from: a short election timeout makes it leader
// (and ready) in a few milliseconds instead of a few hundred.
var etcdTuning = map[string]string{
	"heartbeat-interval": "10",
	"election-timeout":   "100",
}

// apiServerTuning are the flags the lab adds when it runs its own, compiled
// in kube-apiserver (and so knows its version). Each one removes start-up or
// steady-state work a single-user local lab does not need; see docs/boot.md
// for what each saved.
var apiServerTuning = map[string]string{
	"profiling": "false",
	// API Priority and Fairness queues every request by flow schema and
	// priority level to keep one tenant from starving the others. A lab has
	// one user; the queueing only costs each request, most in a scale-up.
	// The flowcontrol.apiserver.k8s.io API is still served.
	"enable-priority-and-fairness": "false",
}

// installPollInterval is how often envtest checks that the CRDs and webhook
// configurations it installed are served.
const installPollInterval = 10 * time.Millisecond

// prepareDirs makes the work and data directories, checks that they are
// writable, and lays out the links to this executable.
func (l *Lab) prepareDirs() error {
	if l.opts.WorkDir == "" {
		dir, err := os.MkdirTemp("", "crdlab-")
		if err != nil {
			return fmt.Errorf("%w: %w", ErrWorkDir, err)
		}
		l.dir, l.made.ownDir = control.Dir(dir), true
	} else {
		l.dir = control.Dir(l.opts.WorkDir)
	}
	for _, dir := range []string{string(l.dir), l.dir.Logs()} {
		if err := writefile.EnsureWritable(dir); err != nil {
			return fmt.Errorf("%w: %w", ErrWorkDir, err)
		}
	}
	if l.opts.DataDir != "" {
		if err := writefile.EnsureWritable(filepath.Join(l.opts.DataDir, "etcd")); err != nil {
			return fmt.Errorf("%w: %w", ErrDataDir, err)
		}
	}
	var err error
	l.made.bin, err = l.kube.link(string(l.dir))
	return err
}

// binaries returns the etcd and kube-apiserver to run, and whether they
// are this program's own (bin, the links Start laid out). Other binaries
// are found as envtest finds them: Options.BinaryAssetsDirectory, else
// TEST_ASSET_ETCD and TEST_ASSET_KUBE_APISERVER, else KUBEBUILDER_ASSETS,
// unless a Kubernetes minor was chosen (Options.KubernetesVersion).
func (l *Lab) binaries() (etcd, api string, self bool) {
	if dir := l.opts.BinaryAssetsDirectory; dir != "" {
		return filepath.Join(dir, multicall.Etcd), filepath.Join(dir, multicall.KubeAPIServer), false
	}
	for _, v := range []string{envtestAssets, envtestAssetPrefix + "ETCD", envtestAssetPrefix + "KUBE_APISERVER"} {
		if os.Getenv(v) != "" && !l.kube.chosen {
			return envtestBinary(multicall.Etcd, "ETCD"), envtestBinary(multicall.KubeAPIServer, "KUBE_APISERVER"), false
		}
	}
	return filepath.Join(l.made.bin, multicall.Etcd), filepath.Join(l.made.bin, multicall.KubeAPIServer), true
}

// The environment variables through which envtest finds its binaries, and
// where it looks without them.
const (
	envtestAssets        = "KUBEBUILDER_ASSETS"
	envtestAssetPrefix   = "TEST_ASSET_"
	envtestDefaultAssets = "/usr/local/kubebuilder/bin"
)

// envtestBinary is where envtest takes the binary name from
// (TEST_ASSET_<key>, then KUBEBUILDER_ASSETS, then its default folder).
func envtestBinary(name, key string) string {
	if path, ok := os.LookupEnv(envtestAssetPrefix + key); ok {
		return path
	}
	if dir, ok := os.LookupEnv(envtestAssets); ok {
		return filepath.Join(dir, name)
	}
	return filepath.Join(envtestDefaultAssets, name)
}

// controlPlane builds the lab's etcd and kube-apiserver (see
// newControlPlane): their data, certificates and flags for the options.
func (l *Lab) controlPlane(ctx context.Context) (*controlPlane, error) {
	etcdPath, apiPath, self := l.binaries()
	dataDir := ""
	if l.opts.DataDir != "" {
		dataDir = filepath.Join(l.opts.DataDir, "etcd")
	} else {
		dataDir = l.dir.Path("etcd-data")
		_ = os.RemoveAll(dataDir) // left by a lab that was killed
		l.made.etcdData = dataDir
		seeded := self && !l.opts.NoEtcdTemplate && l.seedEtcd(ctx, dataDir)
		if !seeded {
			if err := os.MkdirAll(dataDir, 0o700); err != nil {
				return nil, fmt.Errorf("unable to create etcd data dir %s: %w", dataDir, err)
			}
		}
	}
	cp, err := newControlPlane(controlPlaneSpec{
		etcdPath: etcdPath, apiPath: apiPath, self: self,
		dataDir: dataDir, certDir: l.dir.Path("certs"), port: l.opts.Port,
	})
	if err != nil {
		return nil, err
	}
	if l.opts.DataDir != "" {
		// envtest turns fsync off; data meant to survive must survive a crash.
		cp.etcdArgs.Set("unsafe-no-fsync", "false")
	}
	args := cp.apiArgs
	if err := l.audit(args); err != nil {
		return nil, err
	}
	for _, c := range l.components.list() {
		if p, ok := c.(apiServerPart); ok {
			if err := p.prepare(cp.certDir); err != nil {
				return nil, err
			}
			p.apiServerFlags(args)
		}
	}
	for k, v := range l.opts.APIServerFlags {
		args.Set(k, v)
	}
	cp.children(l.dir.Log(multicall.Etcd), l.dir.Log(multicall.KubeAPIServer), childEnv(), l.opts.StartTimeout)
	return cp, nil
}

// childEnv is what every child of the lab gets in its environment: this
// process's ID, which a child compares with its parent's to exit when it
// was started by a parent that died already (see multicall).
func childEnv() []string {
	return []string{multicall.ParentPIDEnv + "=" + strconv.Itoa(os.Getpid())}
}

// environment is the envtest environment that installs, on the lab's
// running kube-apiserver, as the admin user: it waits for the default
// namespace and installs crds, the conversion webhooks and the webhook
// configurations (see installEnvironment). It starts and stops no process.
func (l *Lab) environment(crds []*apiextensionsv1.CustomResourceDefinition, admin *rest.Config) *envtest.Environment {
	env := &envtest.Environment{
		UseExistingCluster: ptr.To(true),
		Config:             admin,
		CRDs:               crds,
		// By default envtest checks every 100 ms whether the CRDs it
		// installed are established, and its webhook configurations there:
		// 50 ms lost on average for each wait, where a check is one request.
		CRDInstallOptions: envtest.CRDInstallOptions{PollInterval: installPollInterval},
		// Which CRDs get a conversion webhook: those whose kind has a hub
		// and convertible spokes in the scheme (envtest's rule).
		Scheme:                l.opts.Scheme,
		WebhookInstallOptions: l.opts.WebhookInstallOptions,
	}
	if env.WebhookInstallOptions.LocalServingHost == "" {
		env.WebhookInstallOptions.LocalServingHost = "127.0.0.1"
	}
	if env.WebhookInstallOptions.PollInterval == 0 {
		env.WebhookInstallOptions.PollInterval = installPollInterval
	}
	return env
}

// installEnvironment has envtest, on the control plane the lab started,
// wait for the default namespace and install the CRDs and webhook
// configurations. The lab runs it while the components start.
func (l *Lab) installEnvironment() error {
	_, err := l.env.Start()
	return err
}

// auditPolicy is the apiserver's audit policy in a lab: every write, with
// its response (managedFields left out), so that the timeline can name who
// deleted an object, which its watch does not say, and date each write
// with the time the apiserver answered it: the response carries the
// write's revision, which the watch's line carries too. Leases (heartbeats)
// and reviews (no write) are not logged, nor are reads.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived, ResponseStarted, Panic]
omitManagedFields: true
rules:
- level: None
  resources:
  - group: coordination.k8s.io
    resources: [leases]
  - group: authentication.k8s.io
  - group: authorization.k8s.io
- level: RequestResponse
  verbs: [create, update, patch, delete, deletecollection]
- level: None
`

func (l *Lab) audit(args *envtest.Arguments) error {
	policy := l.dir.Path("audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
		return fmt.Errorf("unable to write the audit policy: %w", err)
	}
	args.Set("audit-policy-file", policy)
	args.Set("audit-log-path", l.dir.AuditLog())
	args.Set("audit-log-format", "json")
	args.Set("audit-log-maxsize", "50") // MB, then rotated
	args.Set("audit-log-maxbackup", "1")
	return nil
}
