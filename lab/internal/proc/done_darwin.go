package proc

import (
	"errors"

	"golang.org/x/sys/unix"
)

// done waits on a kqueue for the process's exit (EVFILT_PROC, NOTE_EXIT).
func done(pid int) <-chan struct{} {
	kq, err := watchExit(pid)
	if errors.Is(err, unix.ESRCH) {
		return closed()
	}
	if err != nil {
		return lookEvery200ms(pid)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		waitExit(kq)
	}()
	return done
}

// watchExit returns a kqueue that reports the exit of process pid, or
// unix.ESRCH when there is no such process (it has ended already).
func watchExit(pid int) (int, error) {
	kq, err := unix.Kqueue()
	if err != nil {
		return -1, err
	}
	changes := make([]unix.Kevent_t, 1)
	unix.SetKevent(&changes[0], pid, unix.EVFILT_PROC, unix.EV_ADD|unix.EV_ONESHOT)
	changes[0].Fflags = unix.NOTE_EXIT
	if _, err := unix.Kevent(kq, changes, nil, nil); err != nil {
		_ = unix.Close(kq)
		return -1, err
	}
	return kq, nil
}

// waitExit waits until the kqueue of watchExit reports the exit, then
// closes it.
func waitExit(kq int) {
	defer unix.Close(kq)
	events := make([]unix.Kevent_t, 1)
	for {
		switch n, err := unix.Kevent(kq, nil, events, nil); {
		case errors.Is(err, unix.EINTR):
		case err != nil || n > 0:
			return
		}
	}
}
