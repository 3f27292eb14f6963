package labtest

import (
	"os/exec"
	"syscall"
)

// setParentDeathSignal asks the kernel for SIGTERM to cmd's process when
// the thread that starts it ends.
func setParentDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
