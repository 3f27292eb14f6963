package proc

import (
	"errors"

	"golang.org/x/sys/unix"
)

// done waits on a pidfd, readable once the process has ended.
func done(pid int) <-chan struct{} {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return closed()
	}
	if err != nil {
		return lookEvery200ms(pid) // before Linux 5.3
	}
	done := make(chan struct{})
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
	return done
}
