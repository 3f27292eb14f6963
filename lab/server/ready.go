package server

import (
	"os"
	"strconv"
	"syscall"

	"github.com/crdlab/crdlab/lab/labtest/control"
)

// readyNotifier returns the function that tells the process that started
// this one (control.Start: 'crdlab up -d', a suite's labtest.Environment)
// that the lab is ready: one byte on the descriptor control.ReadyFDEnv
// names. Otherwise it does nothing. It keeps the descriptor from the lab's
// own children (etcd, kube-apiserver...), so call it before the lab starts
// them.
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
