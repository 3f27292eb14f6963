package server

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/lab/writefile"
)

// ErrUnsafe: the state dir is writable by other users, or not owned by
// this user.
var ErrUnsafe = errors.New("state dir not private")

// Lock takes the state dir d for this process, creating the folder if
// needed: an exclusive flock(2) on d.LockFile(), which control.Dir.Status
// checks. It fails with control.ErrRunning when another lab holds it (one
// still starting after lockWait); a status probe holding it for an instant
// is waited for. The lock goes with the process, however it ends; unlock
// releases it earlier.
func Lock(d control.Dir) (unlock func(), err error) {
	if err := writefile.EnsureWritable(string(d)); err != nil {
		return nil, err
	}
	if err := checkPrivate(d); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(d.LockFile(), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("unable to open lock %s: %w", d.LockFile(), err)
	}
	if err := lockBriefly(d, f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { _ = f.Close() }, nil
}

// lockWait bounds how long Lock waits for a lock held by someone who is
// not a running lab: a status probe (control.Dir.Status takes it shared
// for an instant, over and over under 'watch crdlab status') or a lab
// starting.
const (
	lockWait = time.Second
	lockPoll = 2 * time.Millisecond
)

// lockBriefly takes the exclusive lock on f, d's lock file, retrying for
// lockWait while it is held but no lab runs (a probe, a lab starting); a
// running lab's is refused at once.
func lockBriefly(d control.Dir, f *os.File) error {
	deadline := time.Now().Add(lockWait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case !errors.Is(err, syscall.EWOULDBLOCK):
			return fmt.Errorf("unable to lock %s: %w", d.LockFile(), err)
		}
		if _, running := d.Status(); running == nil || time.Now().After(deadline) {
			return runningError(d)
		}
		time.Sleep(lockPoll)
	}
}

// checkPrivate refuses a state dir another user could write to: whoever can
// write there can replace the kubeconfig, the component binaries' links or
// the control socket, and so act as the lab's admin or run code as its user.
func checkPrivate(d control.Dir) error {
	fi, err := os.Stat(string(d))
	if err != nil {
		return err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return lang.Errorf("%w: %s belongs to user %d, not to you (%d); use a folder of your own",
			ErrUnsafe, string(d), st.Uid, os.Getuid())
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return lang.Errorf("%w: %s is writable by other users (mode %04o); whoever writes there could act as the lab's admin: run 'chmod go-w %s' or use another folder",
			ErrUnsafe, string(d), perm, string(d))
	}
	return nil
}

func runningError(d control.Dir) error {
	if st, err := d.Status(); err == nil {
		return lang.Errorf("%w on state dir %s (pid %d, %s); stop it with 'crdlab down'", control.ErrRunning, string(d), st.PID, st.Endpoint)
	}
	return lang.Errorf("%w on state dir %s (starting); stop it with 'crdlab down'", control.ErrRunning, string(d))
}
