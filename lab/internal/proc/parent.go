package proc

import (
	"errors"
	"fmt"
)

// ErrParentGone is returned by DieWithParent when the process that should
// be this one's parent is not: it ended before DieWithParent was called.
var ErrParentGone = errors.New("parent process is gone")

// DieWithParent makes this process end when its parent ends, however the
// parent ends (even by SIGKILL); call it first thing. On Linux the kernel
// sends this process SIGKILL (PR_SET_PDEATHSIG). On macOS a kqueue watches
// the parent (EVFILT_PROC, NOTE_EXIT) and this process exits with status 1
// as soon as it reports the parent's exit.
//
// parentPID is the process that started this one, when it said so (0 when
// unknown): if this process's parent is another one already (parentPID
// ended and this process was handed to init or launchd), DieWithParent
// returns ErrParentGone and the caller should exit.
func DieWithParent(parentPID int) error { return dieWithParent(parentPID) }

func parentGone(parentPID int) error {
	return fmt.Errorf("%w: pid %d", ErrParentGone, parentPID)
}
