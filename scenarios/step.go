package scenarios

import (
	"context"
	"errors"
	"time"
)

// A step kind is checked and described by package format (the loader,
// Step.Describe), which knows no cluster, and run here as an operation, one
// file each (step_*.go). A new kind of step is a field of format.Step, its
// checks and description there, and an operation here.
type operation interface {
	// run performs the step within timeout and returns a note on what it
	// did. What it changes that must be put back when the scenario ends
	// (a stopped controller), it hands to r.undo; what it creates, to
	// r.track.
	run(ctx context.Context, r *runner, timeout time.Duration) (string, error)
}

// errSkip: the step cannot run against this target (a lab action against
// a cluster that is not a lab); the note says why.
var errSkip = errors.New("skipped")

// operationOf returns the operation of a step that is not narration.
func operationOf(st *Step) operation {
	switch {
	case st.Apply != nil:
		return applyOp{st.Apply}
	case st.Delete != nil:
		return deleteOp{st.Delete}
	case st.Patch != nil:
		return patchOp{st.Patch}
	case st.Scale != nil:
		return scaleOp{st.Scale}
	case st.Expect != nil:
		return expectOp{st.Expect}
	case st.ExpectError != nil:
		return expectErrorOp{st.ExpectError}
	case st.Lab != nil:
		return labOp{st.Lab}
	case st.Wait != nil:
		return waitOp{st.Wait.Duration}
	case st.Task != nil:
		return taskOp{st.Task}
	}
	return nil // the loader refuses a step without an action
}

// timeoutOf is the step's timeout: its own, the scenario's, or 30 s.
func (r *runner) timeoutOf(st *Step) time.Duration {
	if st.Timeout != nil {
		return st.Timeout.Duration
	}
	if t := r.s.Spec.Timeout.Duration; t != 0 {
		return t
	}
	return 30 * time.Second
}
