package proc

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// dieWithParent watches the parent on a kqueue and exits when it ends.
func dieWithParent(parentPID int) error {
	parent := parentPID
	if parent <= 0 {
		parent = os.Getppid()
	}
	if parent <= 1 {
		return nil // started by launchd: nobody to die with
	}
	kq, err := watchExit(parent)
	if errors.Is(err, unix.ESRCH) {
		return parentGone(parent)
	}
	if err != nil {
		return fmt.Errorf("unable to watch parent process %d: %w", parent, err)
	}
	// The parent may have ended before the watch began, its pid taken by
	// another process since: then this process has another parent.
	if os.Getppid() != parent {
		_ = unix.Close(kq)
		return parentGone(parent)
	}
	go func() {
		waitExit(kq)
		fmt.Fprintf(os.Stderr, "parent process %d ended: exiting\n", parent)
		os.Exit(1)
	}()
	return nil
}
