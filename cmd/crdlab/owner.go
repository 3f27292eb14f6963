package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// ownerStopGrace is how long a lab whose owner ended may take to stop.
const ownerStopGrace = 3 * time.Second

// stopWithOwners returns a context that is done when ctx is, or when any of
// the processes pids ends: a lab started for a test suite (lab/labtest)
// stops with the test binary and with the 'go test' that runs it, even
// when they are killed with SIGKILL.
func stopWithOwners(ctx context.Context, pids []int) (context.Context, context.CancelFunc, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	for _, pid := range pids {
		done, err := processDone(pid)
		if err != nil {
			cancel(err)
			return nil, nil, fmt.Errorf("--owner-pid %d: %w", pid, err)
		}
		go func() {
			select {
			case <-done:
				cancel(fmt.Errorf("owner process %d ended", pid))
				// Nobody waits for this lab any more: a stop that takes
				// longer (a boot under way, an apiserver's graceful
				// shutdown) ends with the process, and the kernel kills the
				// components, which asked for a parent death signal.
				time.AfterFunc(ownerStopGrace, func() {
					fmt.Fprintf(os.Stderr, "owner process %d ended and the lab did not stop in %s: exiting\n", pid, ownerStopGrace)
					os.Exit(1)
				})
			case <-ctx.Done():
			}
		}()
	}
	return ctx, func() { cancel(nil) }, nil
}

// processDone returns a channel closed when process pid ends. It waits on a
// pidfd (Linux 5.3 and later); where there is none, it looks every 200ms.
func processDone(pid int) (<-chan struct{}, error) {
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
