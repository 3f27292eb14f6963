package server

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// readyFDEnv names the file descriptor on which a lab started in the
// background (StartBackground) says it is ready.
const readyFDEnv = "CRDLAB_READY_FD"

// StartBackground starts cmd, a 'crdlab up' to run in the background, with
// a pipe on which its lab says it is ready, and returns two channels:
// ready is closed once the lab is ready (its status is written), exited
// receives cmd.Wait's result. A lab that stops before it is ready closes
// its end of the pipe without a word, so ready stays open and exited
// receives. This is the one readiness signal: the status is read once,
// after it, and never polled.
func StartBackground(cmd *exec.Cmd) (ready <-chan struct{}, exited <-chan error, err error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("unable to make the pipe of %s's readiness: %w", cmd.Path, err)
	}
	fd := 3 + len(cmd.ExtraFiles)
	cmd.ExtraFiles = append(cmd.ExtraFiles, w)
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, readyFDEnv+"="+strconv.Itoa(fd))
	err = cmd.Start()
	w.Close()
	if err != nil {
		r.Close()
		return nil, nil, fmt.Errorf("unable to start %s: %w", cmd.Path, err)
	}
	readyCh := make(chan struct{})
	go func() {
		defer r.Close()
		if n, _ := r.Read(make([]byte, 1)); n == 1 {
			close(readyCh)
		}
	}()
	exitedCh := make(chan error, 1)
	go func() { exitedCh <- cmd.Wait() }()
	return readyCh, exitedCh, nil
}

// readyNotifier returns the function that tells the process that started
// this one with StartBackground that the lab is ready: one byte on the
// descriptor readyFDEnv names. Otherwise it does nothing. It keeps the
// descriptor from the lab's own children (etcd, kube-apiserver...), so
// call it before the lab starts them.
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
