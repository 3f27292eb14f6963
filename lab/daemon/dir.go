package daemon

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Dir is the folder of a lab: a lab's work dir, and for a long-running lab
// ('crdlab up') also its state dir, where other commands find it. It is the
// one place that knows the layout: every path of the folder comes from one
// of its methods.
//
//	bin/             links to this executable, one per component
//	certs/           the apiserver's, the components' and the front proxy's certificates
//	kubeconfigs/     one per component identity
//	logs/NAME.log    each component's log; logs/audit.log the apiserver's audit log
//	etcd-data/       an ephemeral etcd's data (a copy of the bootstrapped template)
//	aggregated/      the aggregated API server's serving certificate and kubeconfig
//	egress.sock      the apiserver's way into the "cluster" (see lab/aggregated)
//	kubeconfig       the admin kubeconfig (a state dir, once the lab is ready)
//	lab.json         the status of the running lab; crdlab.pid its process
//	control.sock     the control socket; lock, held while a lab runs
type Dir string

// Sentinel errors of a state dir.
var (
	// ErrRunning: a lab already runs on the state dir.
	ErrRunning = errors.New("a lab is already running")
	// ErrNotRunning: no lab runs on the state dir.
	ErrNotRunning = errors.New("no lab is running")
)

// Path returns the path of a file or folder name in d.
func (d Dir) Path(name ...string) string {
	return filepath.Join(append([]string{string(d)}, name...)...)
}

// Logs is the folder of the components' logs.
func (d Dir) Logs() string { return d.Path("logs") }

// Log is the log file of a component (etcd, kube-apiserver, crdlab...).
func (d Dir) Log(component string) string { return d.Path("logs", component+".log") }

// AuditLog is the apiserver's audit log (deletions).
func (d Dir) AuditLog() string { return d.Log("audit") }

// Kubeconfig is the admin kubeconfig of a lab running on d.
func (d Dir) Kubeconfig() string { return d.Path("kubeconfig") }

// ControlSocket is the path of the lab's control socket.
func (d Dir) ControlSocket() string { return d.Path("control.sock") }

// EgressSocket is the path of the socket the apiserver's egress selector
// dials.
func (d Dir) EgressSocket() string { return d.Path("egress.sock") }

// UIToken is the file with the token of the lab's web UI, readable by its
// owner only, as the kubeconfig is ('crdlab status' prints the URL with it).
func (d Dir) UIToken() string { return d.Path("ui-token") }

func (d Dir) statusFile() string { return d.Path("lab.json") }
func (d Dir) pidFile() string    { return d.Path("crdlab.pid") }
func (d Dir) lockFile() string   { return d.Path("lock") }

// MaxSocketPath is the longest path of a Unix socket (sun_path, less its
// terminating zero).
const MaxSocketPath = 107

// CheckPathLength fails when d's path is too long for its control socket.
func (d Dir) CheckPathLength() error {
	if path := d.ControlSocket(); len(path) > MaxSocketPath {
		return fmt.Errorf("state dir %s is too long: its control socket %s would be %d bytes, a Unix socket path has at most %d",
			string(d), path, len(path), MaxSocketPath)
	}
	return nil
}

// Status describes a running lab; it is written to the state dir once the
// lab is ready.
type Status struct {
	PID        int       `json:"pid"`
	Endpoint   string    `json:"endpoint"`
	Kubeconfig string    `json:"kubeconfig"`
	DataDir    string    `json:"dataDir,omitempty"`
	StartedAt  time.Time `json:"startedAt"`
	ReadyAt    time.Time `json:"readyAt"`
	// Webhooks says where to serve your own webhooks ('crdlab up
	// --webhooks'); nil when the lab calls none of yours.
	Webhooks *WebhookServing `json:"webhooks,omitempty"`
	// UI is the address of the lab's web UI, without its token (UIToken);
	// empty with 'crdlab up --no-ui'.
	UI string `json:"ui,omitempty"`
	Health
}

// WebhookServing says where to serve your own webhooks: on Host:Port,
// with the certificate and key in CertDir (tls.crt, tls.key, signed by
// ca.crt), as controller-runtime's webhook.Options take them. The
// apiserver calls Front, which forwards each call there and puts it on the
// timeline.
type WebhookServing struct {
	Host    string `json:"host"`
	Port    int    `json:"port"`
	CertDir string `json:"certDir"`
	Front   string `json:"front"`
}

// Lab states of Health.State.
const (
	// StateRunning: every supervised process is up (or was stopped on
	// purpose, 'crdlab component stop').
	StateRunning = "running"
	// StateDegraded: a process exited on its own and is being restarted,
	// or the lab lost something it cannot get back (Health.Problems).
	StateDegraded = "degraded"
)

// Health says whether each process a lab supervises is up, and how often
// it was restarted.
type Health struct {
	State     string          `json:"state"`
	Processes []ProcessHealth `json:"processes,omitempty"`
	// Problems are what went wrong for good, in words: etcd restarted
	// without the data it had.
	Problems []string `json:"problems,omitempty"`
}

// ProcessHealth is one supervised process of a lab: etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler.
type ProcessHealth struct {
	Name string `json:"name"`
	// Up: it runs and answered its health check since it last started.
	Up bool `json:"up"`
	// Stopped: stopped on purpose; not restarted until started again.
	Stopped bool `json:"stopped,omitempty"`
	// Restarts counts the times it exited on its own and was started again.
	Restarts int `json:"restarts"`
	// DownSince is when it exited, while it is not up again.
	DownSince time.Time `json:"downSince,omitzero"`
	// LastExit says how it last exited on its own.
	LastExit string `json:"lastExit,omitempty"`
}

// Lock takes the state dir for this process, creating the folder if needed.
// It fails with ErrRunning when another lab holds it. The lock goes with
// the process, however it ends; unlock releases it earlier.
func (d Dir) Lock() (unlock func(), err error) {
	if err := EnsureWritable(string(d)); err != nil {
		return nil, err
	}
	if err := d.checkPrivate(); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(d.lockFile(), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("unable to open lock %s: %w", d.lockFile(), err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, d.runningError()
		}
		return nil, fmt.Errorf("unable to lock %s: %w", d.lockFile(), err)
	}
	return func() { _ = f.Close() }, nil
}

// ErrUnsafe: the state dir is writable by other users, or not owned by
// this user.
var ErrUnsafe = errors.New("state dir not private")

// checkPrivate refuses a state dir another user could write to: whoever can
// write there can replace the kubeconfig, the component binaries' links or
// the control socket, and so act as the lab's admin or run code as its user.
func (d Dir) checkPrivate() error {
	fi, err := os.Stat(string(d))
	if err != nil {
		return err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%w: %s belongs to user %d, not to you (%d); use a folder of your own",
			ErrUnsafe, string(d), st.Uid, os.Getuid())
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("%w: %s is writable by other users (mode %04o); whoever writes there could act as the lab's admin: run 'chmod go-w %s' or use another folder",
			ErrUnsafe, string(d), perm, string(d))
	}
	return nil
}

func (d Dir) runningError() error {
	if st, err := d.readStatus(); err == nil {
		return fmt.Errorf("%w on state dir %s (pid %d, %s); stop it with 'crdlab down'", ErrRunning, string(d), st.PID, st.Endpoint)
	}
	return fmt.Errorf("%w on state dir %s (starting); stop it with 'crdlab down'", ErrRunning, string(d))
}

// held reports whether a process holds the state dir's lock.
func (d Dir) held() bool {
	f, err := os.Open(d.lockFile())
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return errors.Is(err, syscall.EWOULDBLOCK)
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

// UIURL returns the address of the web UI of the lab st describes, with
// its token, or "" when it serves none or the token cannot be read.
func (d Dir) UIURL(st *Status) string {
	if st == nil || st.UI == "" {
		return ""
	}
	token, err := os.ReadFile(d.UIToken())
	if err != nil {
		return ""
	}
	return st.UI + "?token=" + strings.TrimSpace(string(token))
}

// WriteStatus records a ready lab: its status, its pid file and kubeconfig.
func (d Dir) WriteStatus(st Status, kubeconfig []byte) error {
	if err := WriteFileAtomic(d.Kubeconfig(), kubeconfig, 0o600); err != nil {
		return err
	}
	if err := WriteFileAtomic(d.pidFile(), []byte(strconv.Itoa(st.PID)+"\n"), 0o644); err != nil {
		return err
	}
	return d.UpdateStatus(st)
}

// UpdateStatus rewrites the status WriteStatus wrote (its health changed).
// Callers serialize their updates.
func (d Dir) UpdateStatus(st Status) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(d.statusFile(), append(data, '\n'), 0o644)
}

// ClearStatus removes what WriteStatus wrote, when the lab stops.
func (d Dir) ClearStatus() {
	for _, f := range []string{d.statusFile(), d.pidFile(), d.Kubeconfig(), d.UIToken()} {
		_ = os.Remove(f)
	}
}

// Status returns the status of the lab running on the state dir, or
// ErrNotRunning.
func (d Dir) Status() (*Status, error) {
	if !d.held() {
		return nil, fmt.Errorf("%w on state dir %s", ErrNotRunning, string(d))
	}
	st, err := d.readStatus()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w on state dir %s (one is starting)", ErrNotRunning, string(d))
	}
	return st, err
}

func (d Dir) readStatus() (*Status, error) {
	data, err := os.ReadFile(d.statusFile())
	if err != nil {
		return nil, err
	}
	var st Status
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("unable to read %s: %w", d.statusFile(), err)
	}
	return &st, nil
}

// EnsureWritable creates dir if needed and proves that files can be
// written in it.
func EnsureWritable(dir string) error {
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

// WriteFileAtomic writes data to path with mode: a reader sees the old file
// or the new one, never a part.
func WriteFileAtomic(path string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-")
	if err != nil {
		return fmt.Errorf("unable to write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("unable to write %s: %w", path, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fmt.Errorf("unable to write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("unable to write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("unable to write %s: %w", path, err)
	}
	return nil
}
