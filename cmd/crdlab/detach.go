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
	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/lab/multicall"
	"github.com/crdlab/crdlab/lab/server"
)

// runDetached is 'crdlab up -d': it starts the lab in the background
// (startDetached) with up's options less -d, and says where it is and how
// to stop it.
func runDetached(ctx context.Context, out io.Writer, f *upFlags) error {
	st, _, err := startDetached(ctx, out, f)
	if err != nil {
		return err
	}
	printReady(out, f.language(), f.state(), st)
	return nil
}

// printReady says that the lab st describes, which runs in the background
// on sd, is ready, where it is and how to stop it.
func printReady(out io.Writer, l lang.Lang, sd control.Dir, st *control.Status) {
	fmt.Fprint(out, l.Msgf("lab ready in %.1fs\n", st.ReadyAt.Sub(st.StartedAt).Seconds()))
	server.PrintWhere(out, l, st, sd.UIURL(st))
	fmt.Fprintln(out)
	fmt.Fprintln(out, l.Msg("Stop it with: crdlab down"))
}

// startDetached starts 'crdlab up' with f's options (less -d) as a
// background process of its own session, with its output in
// <state-dir>/logs/crdlab.log, and returns once that lab is
// ready, with its status, or with the error it stopped on. It is the one
// way a command of crdlab starts a lab: 'crdlab up -d', and 'crdlab
// scenario run' and 'crdlab learn' when none runs (startLab).
func startDetached(ctx context.Context, out io.Writer, f *upFlags) (*control.Status, *control.Process, error) {
	if err := f.validate(ctx); err != nil {
		return nil, nil, err
	}
	sd := f.state()
	unlock, err := server.Lock(sd) // fail early and clearly when one runs already
	if err != nil {
		return nil, nil, lang.Errorf("--state-dir: %w", err)
	}
	unlock()

	self, err := os.Executable()
	if err != nil {
		return nil, nil, lang.Errorf("unable to find this executable: %w", err)
	}
	logPath := sd.Log("crdlab")
	if err := os.MkdirAll(sd.Logs(), 0o700); err != nil {
		return nil, nil, lang.Errorf("--state-dir: %w", err)
	}
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, nil, lang.Errorf("--state-dir: unable to create %s: %w", logPath, err)
	}
	defer logFile.Close()

	opts := f.options()
	opts.Detach = false
	cmd := exec.Command(self, opts.Args()...)
	cmd.Env = append(append(os.Environ(), detachedEnv+"=1"), multicall.BootGCEnviron()...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	p, err := control.Start(cmd)
	if err != nil {
		return nil, nil, lang.Errorf("unable to start the lab in the background: %w", err)
	}
	l := f.language()
	fmt.Fprint(out, l.Msgf("starting a lab in the background (pid %d, log %s)\n", p.PID(), logPath))
	err = p.Ready(ctx)
	switch {
	case errors.Is(err, control.ErrExited): // its log says why
		return nil, nil, lang.Errorf("the lab stopped before it was ready: %s", lastErrorLine(l, logPath))
	case err != nil:
		return nil, nil, err
	}
	st, err := sd.Status()
	if err != nil {
		_ = p.Stop(stopTimeout)
		return nil, nil, lang.Errorf("the lab said it was ready, but: %w", err)
	}
	if st.PID != p.PID() {
		_ = p.Stop(stopTimeout)
		return nil, nil, lang.Errorf("the lab (pid %d) said it was ready, but %s names pid %d", p.PID(), sd.StatusFile(), st.PID)
	}
	return st, p, nil
}

// stopTimeout is how long crdlab waits for a lab it stops before it kills
// it ('crdlab down --timeout' by default).
const stopTimeout = time.Minute

// startLab starts a lab on g's state dir for a command that needs one and
// finds none ('crdlab scenario run', 'crdlab learn'): 'crdlab up -d' with
// opts (up's defaults but for a scenario's needs), --lang and -v as given to
// the command, through the same code (startDetached). With forRun, the lab
// also stops when this process ends, however it ends (--owner-pid): stop it
// with the Process.
func startLab(ctx context.Context, out io.Writer, g *globalFlags, forRun bool, opts control.UpOptions) (*control.Status, *control.Process, error) {
	f := &upFlags{globalFlags: g, up: opts}
	if forRun {
		f.up.OwnerPIDs = append(f.up.OwnerPIDs, os.Getpid())
	}
	return startDetached(ctx, out, f)
}

// lastErrorLine returns the error a crdlab process speaking l ended with:
// its last "Error: ..." line, in l's words.
func lastErrorLine(l lang.Lang, logPath string) string {
	data, err := os.ReadFile(logPath)
	if err != nil {
		return l.Msgf("see %s", logPath)
	}
	prefix := strings.TrimSuffix(l.Msgf("Error: %s", "\x00"), "\x00")
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if rest, ok := strings.CutPrefix(lines[i], prefix); ok {
			return rest
		}
	}
	return l.Msgf("see %s", logPath)
}

// stopLab asks the lab on sd to stop and waits until it released the state
// dir, which it does after its children exited.
func stopLab(ctx context.Context, sd control.Dir, timeout time.Duration) (*control.Status, error) {
	st, err := sd.Status()
	if err != nil {
		return nil, err
	}
	proc, err := os.FindProcess(st.PID)
	if err != nil {
		return nil, lang.Errorf("unable to find lab process %d: %w", st.PID, err)
	}
	if err := proc.Signal(syscall.SIGTERM); err != nil {
		return nil, lang.Errorf("unable to signal lab process %d: %w", st.PID, err)
	}
	done, err := server.ProcessDone(st.PID)
	if err != nil {
		return nil, lang.Errorf("unable to watch lab process %d: %w", st.PID, err)
	}
	select {
	case <-done:
		return st, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(timeout):
	}
	_ = proc.Signal(syscall.SIGKILL) // its children die with it (parent death signal)
	return st, lang.Errorf("%w (%s); killed pid %d", control.ErrStopTimeout, timeout, st.PID)
}
