package proc

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// dieWithParent asks the kernel for SIGKILL when the parent ends.
func dieWithParent(parentPID int) error {
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0); err != nil {
		return fmt.Errorf("unable to set parent death signal: %w", err)
	}
	if parentPID > 0 && os.Getppid() != parentPID {
		return parentGone(parentPID)
	}
	return nil
}
