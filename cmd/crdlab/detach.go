package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/server"
)

// runDetached starts 'crdlab up' again as a background process of its own
// session, with its output in <state-dir>/logs/crdlab.log, and returns once
// that lab is ready, or with the error it stopped on.
func runDetached(ctx context.Context, out io.Writer, f *upFlags) error {
	if err := f.validate(ctx); err != nil {
		return err
	}
	sd := f.state()
	unlock, err := server.Lock(sd) // fail early and clearly when one runs already
	if err != nil {
		return fmt.Errorf("--state-dir: %w", err)
	}
	unlock()

	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("unable to find this executable: %w", err)
	}
	logPath := sd.Log("crdlab")
	if err := os.MkdirAll(sd.Logs(), 0o700); err != nil {
		return fmt.Errorf("--state-dir: %w", err)
	}
	logFile, err := os.Create(logPath)
	if err != nil {
		return fmt.Errorf("--state-dir: unable to create %s: %w", logPath, err)
	}
	defer logFile.Close()

	cmd := exec.Command(self, withoutDetach(os.Args[1:])...)
	cmd.Env = append(os.Environ(), detachedEnv+"=1")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	ready, exited, err := server.StartBackground(cmd)
	if err != nil {
		return fmt.Errorf("unable to start the lab in the background: %w", err)
	}
	l := f.language()
	fmt.Fprint(out, l.Msgf("starting a lab in the background (pid %d, log %s)\n", cmd.Process.Pid, logPath))
	select {
	case _ = <-exited: // its log says why, better than its exit status
		return fmt.Errorf(l.Msg("the lab stopped before it was ready: %s"), lastErrorLine(logPath))
	case <-ctx.Done():
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = <-exited // stopped as asked: how it ended says nothing more
		return ctx.Err()
	case <-ready:
	}
	st, err := sd.Status()
	if err != nil {
		return fmt.Errorf("the lab said it was ready, but: %w", err)
	}
	if st.PID != cmd.Process.Pid {
		return fmt.Errorf("the lab (pid %d) said it was ready, but %s names pid %d", cmd.Process.Pid, sd.StatusFile(), st.PID)
	}
	fmt.Fprint(out, l.Msgf("lab ready in %.1fs\n", st.ReadyAt.Sub(st.StartedAt).Seconds()))
	server.PrintWhere(out, l, st, sd.UIURL(st))
	fmt.Fprintln(out)
	fmt.Fprintln(out, l.Msg("Stop it with: crdlab down"))
	return nil
}

// withoutDetach drops -d/--detach from up's arguments.
func withoutDetach(args []string) []string {
	var kept []string
	for _, a := range args {
		switch a {
		case "-d", "--detach", "--detach=true":
			continue
		}
		kept = append(kept, a)
	}
	return kept
}

// lastErrorLine returns the "Error: ..." line a crdlab process ended with.
func lastErrorLine(logPath string) string {
	data, err := os.ReadFile(logPath)
	if err != nil {
		return "see " + logPath
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if rest, ok := strings.CutPrefix(lines[i], "Error: "); ok {
			return rest
		}
	}
	return "see " + logPath
}

// errStopTimeout: down waited too long for the lab to exit.
var errStopTimeout = errors.New("the lab did not stop in time")

// stopLab asks the lab on sd to stop and waits until it released the state
// dir, which it does after its children exited.
func stopLab(ctx context.Context, sd control.Dir, timeout time.Duration) (*control.Status, error) {
	st, err := sd.Status()
	if err != nil {
		return nil, err
	}
	proc, err := os.FindProcess(st.PID)
	if err != nil {
		return nil, fmt.Errorf("unable to find lab process %d: %w", st.PID, err)
	}
	if err := proc.Signal(syscall.SIGTERM); err != nil {
		return nil, fmt.Errorf("unable to signal lab process %d: %w", st.PID, err)
	}
	done, err := server.ProcessDone(st.PID)
	if err != nil {
		return nil, fmt.Errorf("unable to watch lab process %d: %w", st.PID, err)
	}
	select {
	case <-done:
		return st, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(timeout):
	}
	_ = proc.Signal(syscall.SIGKILL) // its children die with it (parent death signal)
	return st, fmt.Errorf("%w (%s); killed pid %d", errStopTimeout, timeout, st.PID)
}
