package control

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// Errors of a Process.
var (
	// ErrExited: the 'crdlab up' ended before its lab was ready; its
	// output (the log the caller gave it) says why.
	ErrExited = errors.New("crdlab up exited before the lab was ready")
	// ErrStopTimeout: the lab did not stop in time and was killed.
	ErrStopTimeout = errors.New("the lab did not stop in time")
)

// stopWait bounds how long Ready waits for a lab it stops because ctx
// ended (SIGTERM), before it kills it.
const stopWait = 30 * time.Second

// Process is a 'crdlab up' that this process started (Start).
type Process struct {
	cmd    *exec.Cmd
	ready  <-chan struct{} // closed once its lab is ready
	exited chan struct{}   // closed once cmd.Wait returned
}

// Start starts cmd, a 'crdlab up' command line (its output, environment
// and process attributes set by the caller), prepared to say when its lab
// is ready on a pipe (PassReady), the one readiness signal: wait for it
// with Ready. It is the one way crdlab starts a lab of another process:
// 'crdlab up -d' (and the commands that start a lab as it does, 'crdlab
// scenario run' and 'crdlab learn') and a suite's labtest.Environment.
//
// The start runs on a locked OS thread: a parent death signal the caller
// asks for (SysProcAttr.Pdeathsig) comes when the thread that started
// the process ends, and a locked thread is never one the runtime retires
// under another goroutine.
func Start(cmd *exec.Cmd) (*Process, error) {
	ready, started, err := PassReady(cmd)
	if err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	err = cmd.Start()
	runtime.UnlockOSThread()
	started()
	if err != nil {
		return nil, fmt.Errorf("unable to start %s: %w", cmd.Path, err)
	}
	p := &Process{cmd: cmd, ready: ready, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait() // its output says how it ended, better than its status
		close(p.exited)
	}()
	return p, nil
}

// Ready returns once the lab is ready; the status is to be read only
// after it. When the process ends first, the error wraps ErrExited; when
// ctx ends first, the process is stopped (Stop) and the error wraps ctx's.
// Either way nothing it started is left running.
func (p *Process) Ready(ctx context.Context) error {
	select {
	case <-p.ready:
		return nil
	case <-p.exited:
		return fmt.Errorf("%w (pid %d)", ErrExited, p.PID())
	case <-ctx.Done():
		if err := p.Stop(stopWait); err != nil {
			return fmt.Errorf("%w; stopping the lab: %w", ctx.Err(), err)
		}
		return ctx.Err()
	}
}

// PID is the process ID of the 'crdlab up'.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Exited is closed once the process has ended (and its output, if the
// caller gave a writer that is not a file, is copied).
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Stop asks the lab to stop (SIGTERM) and returns once its process has
// ended, which it does after its children; after timeout it kills it (its
// children die with it, by their parent death signal) and the error wraps
// ErrStopTimeout. It is safe more than once.
func (p *Process) Stop(timeout time.Duration) error {
	select {
	case <-p.exited:
		return nil
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM) // fails only once it has ended
	select {
	case <-p.exited:
		return nil
	case <-time.After(timeout):
	}
	_ = p.cmd.Process.Kill()
	<-p.exited
	return fmt.Errorf("%w (%s); killed pid %d", ErrStopTimeout, timeout, p.PID())
}
