package lab

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// StateDir is the folder a long-running lab (crdlab up) keeps its
// kubeconfig, status, pid file, logs and working files in. One lab at a time
// runs on a state dir; a lock held for the lab's lifetime guarantees it.
type StateDir string

// Sentinel errors of StateDir.
var (
	// ErrRunning: a lab already runs on the state dir.
	ErrRunning = errors.New("a lab is already running")
	// ErrNotRunning: no lab runs on the state dir.
	ErrNotRunning = errors.New("no lab is running")
)

// Status describes a running lab; it is written to the state dir once the
// lab is ready.
type Status struct {
	PID        int       `json:"pid"`
	Endpoint   string    `json:"endpoint"`
	Kubeconfig string    `json:"kubeconfig"`
	DataDir    string    `json:"dataDir,omitempty"`
	StartedAt  time.Time `json:"startedAt"`
	ReadyAt    time.Time `json:"readyAt"`
}

// Kubeconfig is the path of the admin kubeconfig of the lab.
func (d StateDir) Kubeconfig() string { return filepath.Join(string(d), "kubeconfig") }

// LogDir is the folder of the components' logs.
func (d StateDir) LogDir() string { return filepath.Join(string(d), "logs") }

func (d StateDir) statusFile() string { return filepath.Join(string(d), "lab.json") }
func (d StateDir) pidFile() string    { return filepath.Join(string(d), "crdlab.pid") }
func (d StateDir) lockFile() string   { return filepath.Join(string(d), "lock") }

// Lock takes the state dir for this process, creating the folder if needed.
// It fails with ErrRunning when another lab holds it. The lock goes with
// the process, however it ends; unlock releases it earlier.
func (d StateDir) Lock() (unlock func(), err error) {
	if err := ensureWritableDir(string(d)); err != nil {
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

func (d StateDir) runningError() error {
	if st, err := d.readStatus(); err == nil {
		return fmt.Errorf("%w on state dir %s (pid %d, %s); stop it with 'crdlab down'", ErrRunning, d, st.PID, st.Endpoint)
	}
	return fmt.Errorf("%w on state dir %s (starting); stop it with 'crdlab down'", ErrRunning, d)
}

// held reports whether a process holds the state dir's lock.
func (d StateDir) held() bool {
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

// WriteStatus records a ready lab: its status, its pid file and kubeconfig.
func (d StateDir) WriteStatus(st Status, kubeconfig []byte) error {
	if err := writeFileAtomic(d.Kubeconfig(), kubeconfig, 0o600); err != nil {
		return err
	}
	if err := writeFileAtomic(d.pidFile(), []byte(strconv.Itoa(st.PID)+"\n"), 0o644); err != nil {
		return err
	}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(d.statusFile(), append(data, '\n'), 0o644)
}

// ClearStatus removes what WriteStatus wrote, when the lab stops.
func (d StateDir) ClearStatus() {
	for _, f := range []string{d.statusFile(), d.pidFile(), d.Kubeconfig()} {
		_ = os.Remove(f)
	}
}

// Status returns the status of the lab running on the state dir, or
// ErrNotRunning.
func (d StateDir) Status() (*Status, error) {
	if !d.held() {
		return nil, fmt.Errorf("%w on state dir %s", ErrNotRunning, d)
	}
	st, err := d.readStatus()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w on state dir %s (one is starting)", ErrNotRunning, d)
	}
	return st, err
}

func (d StateDir) readStatus() (*Status, error) {
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

// AuditLog is the apiserver's audit log of the lab on d (deletions).
func (d StateDir) AuditLog() string { return filepath.Join(d.LogDir(), "audit.log") }
