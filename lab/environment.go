package lab

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"sigs.k8s.io/controller-runtime/pkg/envtest"
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
}

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
		l.workDir, l.ownWorkDir = dir, true
	} else {
		l.workDir = l.opts.WorkDir
	}
	for _, dir := range []string{l.workDir, filepath.Join(l.workDir, "logs")} {
		if err := ensureWritableDir(dir); err != nil {
			return fmt.Errorf("%w: %w", ErrWorkDir, err)
		}
	}
	if l.opts.DataDir != "" {
		if err := ensureWritableDir(filepath.Join(l.opts.DataDir, "etcd")); err != nil {
			return fmt.Errorf("%w: %w", ErrDataDir, err)
		}
	}
	return nil
}

// ensureWritableDir creates dir if needed and proves that files can be
// written in it.
func ensureWritableDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("unable to create %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".probe-")
	if err != nil {
		return fmt.Errorf("%s is not writable: %w", dir, err)
	}
	name := f.Name()
	_ = f.Close()
	return os.Remove(name)
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
	dir, err = LinkComponents(filepath.Join(l.workDir, "bin"))
	return dir, true, err
}

// LinkComponents lays out in dir a symbolic link to this executable for each
// component name, the binary assets folder envtest expects, and returns dir.
func LinkComponents(dir string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("unable to find this executable: %w", err)
	}
	if self, err = filepath.EvalSymlinks(self); err != nil {
		return "", fmt.Errorf("unable to resolve this executable: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("unable to create binary dir %s: %w", dir, err)
	}
	names := make([]string, 0, len(components))
	for name := range components {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		link := filepath.Join(dir, name)
		if target, err := os.Readlink(link); err == nil && target == self {
			continue
		}
		_ = os.Remove(link)
		if err := os.Symlink(self, link); err != nil {
			return "", fmt.Errorf("unable to link %s: %w", link, err)
		}
	}
	return dir, nil
}

// environment builds the envtest environment for the lab's options.
func (l *Lab) environment() (*envtest.Environment, error) {
	binDir, self, err := l.binaries()
	if err != nil {
		return nil, err
	}
	logs, err := openLogs(filepath.Join(l.workDir, "logs"), Etcd, KubeAPIServer)
	if err != nil {
		return nil, err
	}
	for _, f := range logs {
		l.logFiles = append(l.logFiles, f)
	}

	etcd := &envtest.Etcd{Out: logs[Etcd], Err: logs[Etcd]}
	if l.opts.DataDir != "" {
		etcd.DataDir = filepath.Join(l.opts.DataDir, "etcd")
		// envtest turns fsync off; data meant to survive must survive a crash.
		etcd.Configure().Set("unsafe-no-fsync", "false")
	}
	if self {
		tuneEtcd(etcd)
		if l.opts.DataDir == "" && !l.opts.NoEtcdTemplate {
			data := filepath.Join(l.workDir, "etcd-data")
			_ = os.RemoveAll(data) // left by a lab that was killed
			if l.seedEtcd(data, binDir) {
				etcd.DataDir = data
				l.ownDataDir = data
			}
		}
	}
	api := &envtest.APIServer{Out: logs[KubeAPIServer], Err: logs[KubeAPIServer]}
	api.CertDir = filepath.Join(l.workDir, "certs")
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
		CRDs:                     l.opts.CRDs,
		CRDDirectoryPaths:        l.opts.CRDDirectoryPaths,
		ErrorIfCRDPathMissing:    true,
	}
	if self || l.opts.BinaryAssetsDirectory != "" {
		// Explicit paths: KUBEBUILDER_ASSETS must not override the choice.
		etcd.Path = filepath.Join(binDir, Etcd)
		api.Path = filepath.Join(binDir, KubeAPIServer)
	}
	return env, nil
}

// openLogs opens (appending) one log file per component name.
func openLogs(dir string, names ...string) (map[string]*os.File, error) {
	files := make(map[string]*os.File, len(names))
	for _, name := range names {
		f, err := os.OpenFile(filepath.Join(dir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, fmt.Errorf("unable to open log for %s: %w", name, err)
		}
		files[name] = f
	}
	return files, nil
}

// AuditPolicy is the apiserver's audit policy in a lab: deletions only, at
// the Metadata level (who, what, when), so that the timeline can name who
// deleted an object, which its watch does not say. Everything else is not
// logged: the log costs one line per deletion.
const AuditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived, ResponseStarted, Panic]
rules:
- level: Metadata
  verbs: [delete, deletecollection]
- level: None
`

// AuditLog returns the path of the apiserver's audit log (deletions).
func (l *Lab) AuditLog() string { return filepath.Join(l.LogDir(), "audit.log") }

func (l *Lab) audit(args *envtest.Arguments) error {
	policy := filepath.Join(l.workDir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(AuditPolicy), 0o600); err != nil {
		return fmt.Errorf("unable to write the audit policy: %w", err)
	}
	args.Set("audit-policy-file", policy)
	args.Set("audit-log-path", l.AuditLog())
	args.Set("audit-log-format", "json")
	args.Set("audit-log-maxsize", "50") // MB, then rotated
	args.Set("audit-log-maxbackup", "1")
	return nil
}
