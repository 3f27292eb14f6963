package proc

import (
	"errors"
	"time"

	"golang.org/x/sys/unix"
)

// Done returns a channel closed when process pid ends, whoever started it.
// It waits on a pidfd (Linux 5.3 and later); where there is none, it looks
// every 200ms.
func Done(pid int) (<-chan struct{}, error) {
	if pid <= 0 {
		return nil, errors.New("not a process id")
	}
	done := make(chan struct{})
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		close(done)
		return done, nil
	}
	if err != nil {
		if err := unix.Kill(pid, 0); errors.Is(err, unix.ESRCH) {
			close(done)
			return done, nil
		}
		go func() {
			defer close(done)
			for unix.Kill(pid, 0) == nil {
				time.Sleep(200 * time.Millisecond)
			}
		}()
		return done, nil
	}
	go func() {
		defer close(done)
		defer unix.Close(fd)
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			if _, err := unix.Poll(fds, -1); err == nil || !errors.Is(err, unix.EINTR) {
				return
			}
		}
	}()
	return done, nil
}
