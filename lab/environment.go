package lab

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/crdlab/crdlab/lab/internal/proc"
	"github.com/crdlab/crdlab/lab/internal/writefile"
	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/multicall"
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

// tuneEtcd adds etcdTuning to etcd's flags.
func tuneEtcd(etcd *envtest.Etcd) {
	for k, v := range etcdTuning {
		etcd.Configure().Set(k, v)
	}
}

// onLoopback makes the apiserver advertise itself on loopback only. The
// endpoint reconciler refuses loopback addresses for the kubernetes
// Service, so it is off (the Service exists, without endpoints).
func onLoopback(api *envtest.APIServer) {
	api.SecureServing.Address = "127.0.0.1"
	api.Configure().Set("advertise-address", "127.0.0.1")
	api.Configure().Set("endpoint-reconciler-type", "none")
}

// tuneAPIServer adds apiServerTuning to the apiserver's flags.
func tuneAPIServer(api *envtest.APIServer) {
	args := api.Configure()
	for k, v := range apiServerTuning {
		args.Set(k, v)
	}
}

// prepareDirs makes the work and data directories, checks that they are
// writable, and lays out the links to this executable.
func (l *Lab) prepareDirs() error {
	if l.opts.WorkDir == "" {
		dir, err := os.MkdirTemp("", "crdlab-")
		if err != nil {
			return fmt.Errorf("%w: %w", ErrWorkDir, err)
		}
		l.dir, l.ownDir = control.Dir(dir), true
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
	return nil
}

// binaries returns the folder envtest should take etcd and kube-apiserver
// from, and whether they are this program's own.
func (l *Lab) binaries() (dir string, self bool, err error) {
	if l.opts.BinaryAssetsDirectory != "" {
		return l.opts.BinaryAssetsDirectory, false, nil
	}
	for _, v := range []string{"KUBEBUILDER_ASSETS", "TEST_ASSET_ETCD", "TEST_ASSET_KUBE_APISERVER"} {
		if os.Getenv(v) != "" {
			return "", false, nil // envtest finds them as it always does
		}
	}
	dir, err = multicall.Link(l.dir.Path("bin"))
	return dir, true, err
}

// environment builds the envtest environment for the lab's options.
// crds are the CRDs envtest installs.
func (l *Lab) environment(crds []*apiextensionsv1.CustomResourceDefinition) (*envtest.Environment, error) {
	binDir, self, err := l.binaries()
	if err != nil {
		return nil, err
	}
	logs, err := l.openLogs(multicall.Etcd, multicall.KubeAPIServer)
	if err != nil {
		return nil, err
	}
	for _, f := range logs {
		l.logFiles = append(l.logFiles, f)
	}

	etcd := &envtest.Etcd{Out: logs[multicall.Etcd], Err: logs[multicall.Etcd]}
	if l.opts.DataDir != "" {
		etcd.DataDir = filepath.Join(l.opts.DataDir, "etcd")
		// envtest turns fsync off; data meant to survive must survive a crash.
		etcd.Configure().Set("unsafe-no-fsync", "false")
	}
	if self {
		tuneEtcd(etcd)
		if l.opts.DataDir == "" && !l.opts.NoEtcdTemplate {
			data := l.dir.Path("etcd-data")
			_ = os.RemoveAll(data) // left by a lab that was killed
			if l.seedEtcd(data, binDir) {
				etcd.DataDir = data
				l.ownDataDir = data
			}
		}
	}
	api := &envtest.APIServer{Out: logs[multicall.KubeAPIServer], Err: logs[multicall.KubeAPIServer]}
	api.CertDir = l.dir.Path("certs")
	_ = os.RemoveAll(api.CertDir) // envtest keeps certificates it finds; start fresh
	if err := os.MkdirAll(api.CertDir, 0o700); err != nil {
		return nil, fmt.Errorf("unable to create cert dir %s: %w", api.CertDir, err)
	}
	api.SecureServing.Address = "127.0.0.1"
	if l.opts.Port != 0 {
		api.SecureServing.Port = fmt.Sprint(l.opts.Port)
	}
	args := api.Configure()
	onLoopback(api)
	if self {
		tuneAPIServer(api)
	}
	if l.opts.runs(Nodes) {
		// Pods on a failed node are evicted after 10s, not 5 minutes.
		args.Set("default-not-ready-toleration-seconds", notReadyToleration)
		args.Set("default-unreachable-toleration-seconds", notReadyToleration)
	}
	if err := l.audit(args); err != nil {
		return nil, err
	}
	if l.opts.runs(AggregatedAPI) {
		if err := l.aggregation(args, api.CertDir); err != nil {
			return nil, err
		}
	}
	for k, v := range l.opts.APIServerFlags {
		args.Set(k, v)
	}

	env := &envtest.Environment{
		ControlPlane:             envtest.ControlPlane{Etcd: etcd, APIServer: api},
		BinaryAssetsDirectory:    binDir,
		ControlPlaneStartTimeout: l.opts.StartTimeout,
		ControlPlaneStopTimeout:  l.opts.StopTimeout,
		CRDs:                     crds,
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
	if self || l.opts.BinaryAssetsDirectory != "" {
		// Explicit paths: KUBEBUILDER_ASSETS must not override the choice.
		etcd.Path = filepath.Join(binDir, multicall.Etcd)
		api.Path = filepath.Join(binDir, multicall.KubeAPIServer)
	}
	l.startsTogether = self
	return env, nil
}

// startEnvironment starts etcd and kube-apiserver and returns the admin
// user's configuration. For other binaries than the lab's own, envtest's
// start also waits for the default namespace and installs the CRDs and
// webhook configurations; for the lab's own, installEnvironment does.
//
// envtest starts kube-apiserver only once etcd is healthy (which it checks
// every 100 ms). The lab's own binaries start together instead:
// kube-apiserver's process start, package init and flag handling (about a
// tenth of a second) need no etcd, and it waits for etcd to answer before
// it builds its storage (multicall.WaitForEtcdEnv), so that no etcd client
// of its own ever meets a refused connection and backs off for a second.
// Other binaries start as envtest starts them.
func (l *Lab) startEnvironment(env *envtest.Environment) (*rest.Config, error) {
	if !l.startsTogether {
		return env.Start()
	}
	cp := &env.ControlPlane
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	cp.Etcd.URL = &url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(port))}
	cp.APIServer.EtcdURL = cp.Etcd.URL
	cp.Etcd.StartTimeout, cp.APIServer.StartTimeout = l.opts.StartTimeout, l.opts.StartTimeout
	cp.Etcd.StopTimeout, cp.APIServer.StopTimeout = l.opts.StopTimeout, l.opts.StopTimeout
	if err := os.Setenv(multicall.WaitForEtcdEnv, l.opts.StartTimeout.String()); err != nil {
		return nil, fmt.Errorf("unable to set %s: %w", multicall.WaitForEtcdEnv, err)
	}

	// From here on Stop stops them, whatever happens.
	l.ownsControlPlane = true
	etcdDone, apiDone := make(chan error, 1), make(chan error, 1)
	go func() { etcdDone <- cp.Etcd.Start() }()
	go func() { apiDone <- cp.APIServer.Start() }()
	if err := <-etcdDone; err != nil {
		// kube-apiserver waits for an etcd that will never answer: end it
		// now rather than at its start timeout.
		l.killUntilDone(multicall.KubeAPIServer, "--cert-dir="+cp.APIServer.CertDir, apiDone)
		return nil, err
	}
	if err := <-apiDone; err != nil {
		return nil, err
	}
	// The same admin user envtest provisions, with the same client limits.
	admin, err := cp.AddUser(envtest.User{Name: "admin", Groups: []string{"system:masters"}}, &rest.Config{QPS: 1000, Burst: 2000})
	if err != nil {
		return nil, fmt.Errorf("unable to provision the admin user: %w", err)
	}
	env.Config = admin.Config()
	env.UseExistingCluster = ptr.To(true) // started: envtest only installs (installEnvironment)
	return env.Config, nil
}

// installEnvironment has envtest, on the control plane startEnvironment
// started, wait for the default namespace and install the CRDs and webhook
// configurations. (envtest's own start did so already for other
// binaries.) The lab runs it while the components start.
func (l *Lab) installEnvironment() error {
	if !l.startsTogether {
		return nil
	}
	_, err := l.env.Start()
	return err
}

// killUntilDone kills the child process called name with arg on its command
// line, again each 10 ms (envtest may not have started it yet), until done
// receives.
func (l *Lab) killUntilDone(name, arg string, done <-chan error) {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if children, err := proc.Children(os.Getpid()); err == nil {
			if pid := findChild(children, name, arg); pid != 0 {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		select {
		case <-done:
			return
		case <-tick.C:
		}
	}
}

// openLogs opens (appending) one log file per component name.
func (l *Lab) openLogs(names ...string) (map[string]*os.File, error) {
	files := make(map[string]*os.File, len(names))
	for _, name := range names {
		f, err := os.OpenFile(l.dir.Log(name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, fmt.Errorf("unable to open log for %s: %w", name, err)
		}
		files[name] = f
	}
	return files, nil
}

// auditPolicy is the apiserver's audit policy in a lab: deletions only, at
// the Metadata level (who, what, when), so that the timeline can name who
// deleted an object, which its watch does not say. Everything else is not
// logged: the log costs one line per deletion.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived, ResponseStarted, Panic]
rules:
- level: Metadata
  verbs: [delete, deletecollection]
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
