package proc

import (
	"errors"
	"time"

	"golang.org/x/sys/unix"
)

// Done returns a channel closed when process pid ends, whoever started it.
// It waits on a pidfd on Linux (5.3 and later) and on a kqueue on macOS;
// where neither works, it looks every 200ms.
func Done(pid int) (<-chan struct{}, error) {
	if pid <= 0 {
		return nil, errors.New("not a process id")
	}
	return done(pid), nil
}

// lookEvery200ms is Done where the OS has no way to wait for a process it
// did not start: a channel closed once kill(pid, 0) says it is gone.
func lookEvery200ms(pid int) <-chan struct{} {
	if err := unix.Kill(pid, 0); errors.Is(err, unix.ESRCH) {
		return closed()
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for unix.Kill(pid, 0) == nil {
			time.Sleep(200 * time.Millisecond)
		}
	}()
	return done
}

// closed returns a channel that is closed already: a process that is gone.
func closed() <-chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}
