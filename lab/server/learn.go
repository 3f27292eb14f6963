package server

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/ui"
)

// ErrNoLesson: no lesson runs on the state dir ('crdlab learn LESSON'
// serves its socket, learn.sock, while it runs).
var ErrNoLesson = ui.ErrNoLesson

// AskHint asks the lesson that runs on d (its socket, learn.sock) for the
// next hint of the task it waits for, and returns its answer: the hint, or
// why there is none. The lesson shows the hint too. 'crdlab learn hint'
// and the web UI's hint button ask this way.
func AskHint(ctx context.Context, d control.Dir) (string, error) {
	var dialer net.Dialer
	conn, err := dialer.DialContext(ctx, "unix", d.LearnSocket())
	if err != nil {
		return "", fmt.Errorf("%w on %s: start one with 'crdlab learn LESSON' (%w)", ErrNoLesson, d, err)
	}
	defer conn.Close()
	if deadline, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(deadline)
	}
	if _, err := io.WriteString(conn, "hint\n"); err != nil {
		return "", fmt.Errorf("the lesson's socket %s: %w", d.LearnSocket(), err)
	}
	answer, err := io.ReadAll(conn)
	if err != nil {
		return "", fmt.Errorf("the lesson's socket %s: %w", d.LearnSocket(), err)
	}
	if len(answer) == 0 {
		return "", fmt.Errorf("the lesson's socket %s gave no answer: it answers the user who runs the lesson only", d.LearnSocket())
	}
	return strings.TrimSpace(string(answer)), nil
}
