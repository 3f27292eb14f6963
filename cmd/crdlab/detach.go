package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/crdlab/crdlab/lab/daemon"
)

// runDetached starts 'crdlab up' again as a background process of its own
// session, with its output in <state-dir>/logs/crdlab.log, and returns once
// that lab is ready, or with the error it stopped on.
func runDetached(ctx context.Context, out io.Writer, f *upFlags) error {
	if err := f.validate(); err != nil {
		return err
	}
	sd := f.state()
	unlock, err := sd.Lock() // fail early and clearly when one runs already
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

	// The lab writes a byte to this pipe once it is ready (see
	// readyNotifier), so that up -d returns at that moment; the status is
	// also polled, in case it cannot.
	readyR, readyW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("unable to start the lab in the background: %w", err)
	}
	defer readyR.Close()
	cmd := exec.Command(self, withoutDetach(os.Args[1:])...)
	cmd.Env = append(os.Environ(), detachedEnv+"=1", readyFDEnv+"=3")
	cmd.ExtraFiles = []*os.File{readyW} // fd 3
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	readyW.Close()
	if err != nil {
		return fmt.Errorf("unable to start the lab in the background: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	notified := make(chan struct{})
	go func() {
		_, _ = readyR.Read(make([]byte, 1)) // a byte, or EOF when the lab ends
		close(notified)
	}()

	fmt.Fprintf(out, "starting a lab in the background (pid %d, log %s)\n", cmd.Process.Pid, logPath)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-exited:
			return fmt.Errorf("the lab stopped before it was ready: %s", lastErrorLine(logPath))
		case <-ctx.Done():
			_ = cmd.Process.Signal(syscall.SIGTERM)
			<-exited
			return ctx.Err()
		case <-notified:
			notified = nil // once; then the status as below, and the polls
		case <-tick.C:
		}
		st, err := sd.Status()
		if err != nil || st.PID != cmd.Process.Pid {
			continue
		}
		fmt.Fprintf(out, "lab ready in %.1fs\n", st.ReadyAt.Sub(st.StartedAt).Seconds())
		printUsage(out, st.Endpoint, st.Kubeconfig)
		if url := sd.UIURL(st); url != "" {
			printUI(out, url)
		}
		if st.Webhooks != nil {
			printWebhooks(out, st.Webhooks)
		}
		fmt.Fprintln(out, "\nStop it with: crdlab down")
		return nil
	}
}

// readyFDEnv names the file descriptor on which the lab that 'crdlab up -d'
// started in the background says it is ready.
const readyFDEnv = "CRDLAB_READY_FD"

// readyNotifier returns the function that tells the 'crdlab up -d' that
// started this process that the lab is ready: one byte on the descriptor
// readyFDEnv names. Outside such a lab it does nothing. It keeps the
// descriptor from the lab's own children (etcd, kube-apiserver...), so call
// it before the lab starts them.
func readyNotifier() func() {
	fd, err := strconv.Atoi(os.Getenv(readyFDEnv))
	if err != nil || fd < 3 {
		return func() {}
	}
	_ = os.Unsetenv(readyFDEnv)
	syscall.CloseOnExec(fd)
	f := os.NewFile(uintptr(fd), "ready")
	return func() {
		_, _ = f.Write([]byte{1})
		_ = f.Close()
	}
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
func stopLab(ctx context.Context, sd daemon.Dir, timeout time.Duration) (*daemon.Status, error) {
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
	done, err := processDone(st.PID)
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
