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

// Child is a component a lab starts and supervises itself (envtest knows
// only etcd and kube-apiserver): it is started from an executable, checked
// through its health endpoint, restarted with a back-off if it exits on its
// own, and stopped with SIGTERM, then SIGKILL.
type Child struct {
	Name    string
	Path    string
	Args    []string
	Health  string // https URL of its /healthz
	LogPath string
	Log     logr.Logger

	mu       sync.Mutex
	cmd      *exec.Cmd
	exited   chan struct{}
	stopping bool
	stopCh   chan struct{} // closed by stop
	restarts int
	stopped  chan struct{} // closed when supervision ended
}

// Start runs the child and waits until its health endpoint answers 200, it
// exits, or timeout passes. It then keeps it running until Stop.
func (c *Child) Start(ctx context.Context, timeout time.Duration) error {
	c.stopCh = make(chan struct{})
	c.mu.Lock()
	err := c.spawnLocked()
	c.mu.Unlock()
	if err != nil {
		return err
	}
	if err := c.waitHealthy(ctx, timeout); err != nil {
		_ = c.Stop(5 * time.Second)
		return err
	}
	c.stopped = make(chan struct{})
	go c.supervise()
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
	// A process group of its own, as envtest gives etcd and kube-apiserver:
	// a Ctrl-C in the terminal (or timeout(1)) signals the lab's process
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
	c.cmd, c.exited = cmd, exited
	c.Log.V(1).Info("started", "component", c.Name, "pid", cmd.Process.Pid)
	return nil
}

func (c *Child) waitHealthy(ctx context.Context, timeout time.Duration) error {
	hc := &http.Client{
		Timeout:   time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // self-signed, loopback
	}
	deadline := time.After(timeout)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if resp, err := hc.Get(c.Health); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-c.exited:
			cause := LastError(c.LogPath)
			if cause == "" {
				cause = "see " + c.LogPath
			}
			return fmt.Errorf("%s exited before it was healthy: %s", c.Name, cause)
		case <-deadline:
			return fmt.Errorf("%s not healthy at %s within %s (log %s)", c.Name, c.Health, timeout, c.LogPath)
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// supervise restarts the child whenever it exits until stop is called.
func (c *Child) supervise() {
	defer close(c.stopped)
	backoff := 500 * time.Millisecond
	for {
		c.mu.Lock()
		exited := c.exited
		c.mu.Unlock()
		<-exited
		c.mu.Lock()
		stopping := c.stopping
		c.mu.Unlock()
		if stopping {
			return
		}
		c.restarts++
		c.Log.Info("component exited, restarting", "component", c.Name, "restarts", c.restarts, "backoff", backoff, "cause", LastError(c.LogPath))
		select {
		case <-time.After(backoff):
		case <-c.stopCh:
			return
		}
		if backoff < 10*time.Second {
			backoff *= 2
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
	}
}

// Stop ends the child: SIGTERM, then SIGKILL after grace. It stays stopped
// until Resume.
func (c *Child) Stop(grace time.Duration) error {
	c.mu.Lock()
	if c.stopping {
		c.mu.Unlock()
		return nil
	}
	c.stopping = true
	if c.stopCh != nil {
		close(c.stopCh)
	}
	cmd, exited := c.cmd, c.exited // no process starts after this
	c.mu.Unlock()
	if cmd == nil {
		return nil
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(grace):
		_ = cmd.Process.Kill()
		<-exited
	}
	if c.stopped != nil {
		<-c.stopped
	}
	return nil
}

// PID returns the process ID of the running child, or 0.
func (c *Child) PID() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cmd == nil || c.cmd.Process == nil {
		return 0
	}
	return c.cmd.Process.Pid
}

// Kill kills the child outright, as a crash would; supervision restarts it.
func (c *Child) Kill() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cmd == nil {
		return errors.New(c.Name + " is not running")
	}
	return c.cmd.Process.Kill()
}

// Running reports whether the child runs: it was started and not stopped
// (a crashed child that supervision restarts runs).
func (c *Child) Running() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cmd != nil && !c.stopping
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
