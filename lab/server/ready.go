package server

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"github.com/crdlab/crdlab/lab/labtest/control"
)

// StartBackground starts cmd, a 'crdlab up' to run in the background, and
// returns two channels: ready is closed once its lab is ready (see
// control.PassReady), exited receives cmd.Wait's result. A lab that stops
// before it is ready leaves ready open.
func StartBackground(cmd *exec.Cmd) (ready <-chan struct{}, exited <-chan error, err error) {
	ready, started, err := control.PassReady(cmd)
	if err != nil {
		return nil, nil, err
	}
	err = cmd.Start()
	started()
	if err != nil {
		return nil, nil, fmt.Errorf("unable to start %s: %w", cmd.Path, err)
	}
	exitedCh := make(chan error, 1)
	go func() { exitedCh <- cmd.Wait() }()
	return ready, exitedCh, nil
}

// readyNotifier returns the function that tells the process that started
// this one (StartBackground, a suite's labtest.Environment) that the lab is
// ready: one byte on the descriptor control.ReadyFDEnv names. Otherwise it
// does nothing. It keeps the
// descriptor from the lab's own children (etcd, kube-apiserver...), so
// call it before the lab starts them.
func readyNotifier() func() {
	fd, err := strconv.Atoi(os.Getenv(control.ReadyFDEnv))
	if err != nil || fd < 3 {
		return func() {}
	}
	_ = os.Unsetenv(control.ReadyFDEnv)
	syscall.CloseOnExec(fd)
	f := os.NewFile(uintptr(fd), "ready")
	return func() {
		_, _ = f.Write([]byte{1})
		_ = f.Close()
	}
}
