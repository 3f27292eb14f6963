package scenarios

import (
	"context"
	"time"
)

// waitOp pauses for a duration: the scenario's own pacing (the user
// watches), never a test's timing.
type waitOp struct{ d time.Duration }

func (w waitOp) run(ctx context.Context, _ *runner, _ time.Duration) (string, error) {
	t := time.NewTimer(w.d)
	defer t.Stop()
	select {
	case <-t.C:
		return "", nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}
