package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/lab/server"
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
		done, err := server.ProcessDone(pid)
		if err != nil {
			cancel(err)
			return nil, nil, lang.Errorf("--owner-pid %d: %w", pid, err)
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
