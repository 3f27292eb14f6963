package proc

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/go-logr/logr"
)

// Child is a process a lab supervises (etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler): started from an executable,
// checked through its health endpoint, restarted on the same command line
// and environment if it exits on its own, and stopped with SIGTERM, then
// SIGKILL.
//
// A restart is immediate the first time; a child that exits again before it
// is healthy waits 0.5 s, then twice as long each time, up to 10 s.
type Child struct {
	Name string
	Path string
	Args []string
	// Env is added to this process's environment for the child (KEY=value
	// entries; a key set here wins over an inherited one).
	Env     []string
	Health  string // URL of its health endpoint (https: not verified, loopback)
	LogPath string
	Log     logr.Logger

	// RestartTimeout bounds how long a restarted child may take to be
	// healthy before it is killed and started again. Zero: 60 seconds.
	RestartTimeout time.Duration

	// Ready, if set, is also asked after the health endpoint answered: the
	// child is up only once it returns nil (etcd: once the apiserver
	// reaches it again).
	Ready func(ctx context.Context) error

	// OnChange, if set, is called when the child exits on its own and when
	// it is healthy again after a restart, from the supervising goroutine.
	OnChange func(Change)

	mu        sync.Mutex
	pid       int
	signal    func(syscall.Signal) error
	exited    <-chan struct{}
	exitState func() string // how the process ended, once exited is closed
	up        bool
	stopping  bool
	stopCh    chan struct{} // closed by stop
	restarts  int
	downSince time.Time
	lastExit  string
	stopped   chan struct{} // closed when supervision ended
}

// Change is a child going down on its own, or coming back.
type Change struct {
	Name     string
	Up       bool   // false: it exited; true: it is healthy again
	Restarts int    // restarts so far, this one included
	Cause    string // how it ended (for Up false)
	Downtime time.Duration
}

// Status is what a child is doing.
type Status struct {
	// Up: it runs and its health endpoint answered since it last started.
	Up bool
	// Stopped: Stop stopped it (it is not restarted).
	Stopped bool
	// Restarts counts the times it exited on its own and was started again.
	Restarts int
	// DownSince is when it exited, while it is not up again.
	DownSince time.Time
	// LastExit says how it last exited on its own.
	LastExit string
}

// ErrStopped: Stop was called before the child started, or while it
// started.
var ErrStopped = errors.New("stopped")

// StartError is Start's error: which child did not start, and why.
type StartError struct {
	Name string // the child's Name
	Err  error
}

func (e *StartError) Error() string { return e.Err.Error() }
func (e *StartError) Unwrap() error { return e.Err }

// Start runs the child and waits until its health endpoint answers 200, it
// exits, or timeout passes. It then keeps it running until Stop. A Stop
// while it starts ends the start at once (with ErrStopped, or how the
// process ended). Its errors are a *StartError.
func (c *Child) Start(ctx context.Context, timeout time.Duration) error {
	if err := c.start(ctx, timeout); err != nil {
		return &StartError{Name: c.Name, Err: err}
	}
	return nil
}

func (c *Child) start(ctx context.Context, timeout time.Duration) error {
	c.mu.Lock()
	if c.stopping {
		c.mu.Unlock()
		return fmt.Errorf("%w: %s before it started", ErrStopped, c.Name)
	}
	c.stopCh = make(chan struct{})
	err := c.spawnLocked()
	c.mu.Unlock()
	if err != nil {
		return err
	}
	if err := c.waitHealthy(ctx, timeout); err != nil {
		_ = c.Stop(5 * time.Second)
		return err
	}
	c.supervise()
	return nil
}

// spawnLocked starts a process of the child; c.mu is held, so stop sees
// either no process or this one.
func (c *Child) spawnLocked() error {
	logFile, err := os.OpenFile(c.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("unable to open log for %s: %w", c.Name, err)
	}
	cmd := exec.Command(c.Path, c.Args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if len(c.Env) > 0 {
		cmd.Env = append(os.Environ(), c.Env...)
	}
	// A process group of its own: a Ctrl-C in the terminal (or timeout(1)) signals the lab's process
	// group, and the lab, not the signal, stops its children, in order.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return fmt.Errorf("unable to start %s: %w", c.Name, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		logFile.Close()
		close(exited)
	}()
	c.pid, c.exited = cmd.Process.Pid, exited
	c.signal = func(sig syscall.Signal) error { return cmd.Process.Signal(sig) }
	c.exitState = func() string { return cmd.ProcessState.String() }
	c.up = false
	c.Log.V(1).Info("started", "component", c.Name, "pid", cmd.Process.Pid)
	return nil
}

func (c *Child) waitHealthy(ctx context.Context, timeout time.Duration) error {
	c.mu.Lock()
	exited := c.exited
	c.mu.Unlock()
	hc := &http.Client{
		Timeout:   time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // self-signed, loopback
	}
	defer hc.CloseIdleConnections()
	deadline := time.After(timeout)
	tick := time.NewTicker(healthPoll)
	defer tick.Stop()
	for {
		if resp, err := hc.Get(c.Health); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && (c.Ready == nil || c.Ready(ctx) == nil) {
				c.mu.Lock()
				c.up = true
				c.mu.Unlock()
				return nil
			}
		}
		select {
		case <-exited:
			c.mu.Lock()
			stopping := c.stopping
			c.mu.Unlock()
			if stopping {
				return fmt.Errorf("%w: %s while it started", ErrStopped, c.Name)
			}
			cause := LastError(c.LogPath)
			if cause == "" {
				cause = "see " + c.LogPath
			}
			return fmt.Errorf("%w: %s exited before it was healthy: %s", errExited, c.Name, cause)
		case <-deadline:
			return fmt.Errorf("%s not healthy at %s within %s (log %s)", c.Name, c.Health, timeout, c.LogPath)
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

var errExited = errors.New("exited")

// healthPoll is how often a starting child's health endpoint is asked. On
// loopback a refused connection or a 503 costs microseconds; a lab's boot
// waits on these polls (etcd, then kube-apiserver, then the components).
const healthPoll = 10 * time.Millisecond

// supervise starts the goroutine that restarts the child whenever it exits
// until Stop is called.
func (c *Child) supervise() {
	c.mu.Lock()
	c.stopped = make(chan struct{})
	stopCh := c.stopCh
	c.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-stopCh
		cancel()
	}()
	go func() {
		defer close(c.stopped)
		defer cancel()
		c.restartLoop(ctx)
	}()
}

func (c *Child) restartLoop(ctx context.Context) {
	timeout := c.RestartTimeout
	if timeout == 0 {
		timeout = 60 * time.Second
	}
	var backoff time.Duration
	for {
		c.mu.Lock()
		exited := c.exited
		c.mu.Unlock()
		select {
		case <-exited:
		case <-ctx.Done():
			return
		}
		c.mu.Lock()
		if c.stopping {
			c.mu.Unlock()
			return
		}
		wasUp := c.up
		c.up = false
		c.restarts++
		if wasUp || c.downSince.IsZero() {
			c.downSince = time.Now()
		}
		c.lastExit = c.exitState()
		if cause := LastError(c.LogPath); cause != "" && !wasUp {
			c.lastExit += ": " + cause
		}
		change := Change{Name: c.Name, Restarts: c.restarts, Cause: c.lastExit}
		c.mu.Unlock()
		c.Log.Info("component exited, restarting", "component", c.Name, "restarts", change.Restarts, "backoff", backoff, "cause", change.Cause)
		if wasUp && c.OnChange != nil {
			c.OnChange(change)
		}
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
			return
		}
		c.mu.Lock()
		if c.stopping { // stop came while we waited: no new process
			c.mu.Unlock()
			return
		}
		err := c.spawnLocked()
		c.mu.Unlock()
		if err != nil {
			c.Log.Error(err, "unable to restart component", "component", c.Name)
			return
		}
		switch err := c.waitHealthy(ctx, timeout); {
		case err == nil:
			backoff = 0
			c.mu.Lock()
			change := Change{Name: c.Name, Up: true, Restarts: c.restarts, Downtime: time.Since(c.downSince)}
			c.downSince = time.Time{}
			c.mu.Unlock()
			c.Log.Info("component healthy again", "component", c.Name, "restarts", change.Restarts, "downtime", change.Downtime)
			if c.OnChange != nil {
				c.OnChange(change)
			}
		case errors.Is(err, errExited):
			backoff = min(max(2*backoff, 500*time.Millisecond), 10*time.Second)
		case ctx.Err() != nil:
			return
		default: // hung: kill it, and count the next start as a restart
			c.Log.Error(err, "restarted component not healthy, killing it", "component", c.Name)
			_ = c.Kill()
			backoff = min(max(2*backoff, 500*time.Millisecond), 10*time.Second)
		}
	}
}

// Stop ends the child: SIGTERM, then SIGKILL after grace (at once when
// grace is zero). It stays stopped until Resume.
func (c *Child) Stop(grace time.Duration) error {
	c.mu.Lock()
	if c.stopping {
		c.mu.Unlock()
		return nil
	}
	c.stopping = true
	c.up = false
	if c.stopCh != nil {
		close(c.stopCh)
	}
	signal, exited, stopped := c.signal, c.exited, c.stopped // no process starts after this
	c.mu.Unlock()
	if signal != nil {
		sig := syscall.SIGTERM
		if grace == 0 {
			sig = syscall.SIGKILL
		}
		_ = signal(sig)
		select {
		case <-exited:
		case <-time.After(grace):
			_ = signal(syscall.SIGKILL)
			<-exited
		}
	}
	if stopped != nil {
		<-stopped
	}
	return nil
}

// PID returns the process ID of the running child, or 0.
func (c *Child) PID() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopping || c.exited == nil {
		return 0
	}
	select {
	case <-c.exited:
		return 0
	default:
		return c.pid
	}
}

// Kill kills the child outright, as a crash would; supervision restarts it.
func (c *Child) Kill() error {
	c.mu.Lock()
	signal := c.signal
	c.mu.Unlock()
	if signal == nil {
		return errors.New(c.Name + " is not running")
	}
	return signal(syscall.SIGKILL)
}

// Running reports whether the child runs: it was started and not stopped
// (a crashed child that supervision restarts runs).
func (c *Child) Running() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.exited != nil && !c.stopping
}

// Status says whether the child is up, stopped or down, and how often it
// was restarted.
func (c *Child) Status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Status{Up: c.up && !c.stopping, Stopped: c.stopping, Restarts: c.restarts, DownSince: c.downSince, LastExit: c.lastExit}
}

// Resume starts a child Stop stopped, and returns once it is healthy.
// Resuming a running child does nothing.
func (c *Child) Resume(ctx context.Context, timeout time.Duration) error {
	c.mu.Lock()
	stopped := c.stopping
	c.stopping = false
	c.mu.Unlock()
	if !stopped {
		return nil
	}
	return c.Start(ctx, timeout)
}
