package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/lab/ui"
)

// ErrNoLesson: no lesson runs on the state dir ('crdlab learn LESSON'
// serves its socket, learn.sock, while it runs).
var ErrNoLesson = ui.ErrNoLesson

// AskHint asks the lesson that runs on d (its socket, learn.sock) for the
// next hint of the task it waits for, and returns its answer: the hint, or
// why there is none (in the lesson's language). The lesson shows the hint
// too. 'crdlab learn hint' and the web UI's hint button ask this way; its
// own errors are worded in l.
func AskHint(ctx context.Context, d control.Dir, l lang.Lang) (string, error) {
	var dialer net.Dialer
	conn, err := dialer.DialContext(ctx, "unix", d.LearnSocket())
	if err != nil {
		return "", &hintError{l.Msgf("no lesson is running on %s: start one with 'crdlab learn LESSON' (%v)", d, err), []error{ErrNoLesson, err}}
	}
	defer conn.Close()
	if deadline, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(deadline)
	}
	if _, err := io.WriteString(conn, "hint\n"); err != nil {
		return "", fmt.Errorf(l.Msg("the lesson's socket %s: %w"), d.LearnSocket(), err)
	}
	answer, err := io.ReadAll(conn)
	if err != nil {
		return "", fmt.Errorf(l.Msg("the lesson's socket %s: %w"), d.LearnSocket(), err)
	}
	if len(answer) == 0 {
		return "", errors.New(l.Msgf("the lesson's socket %s gave no answer: it answers the user who runs the lesson only", d.LearnSocket()))
	}
	return strings.TrimSpace(string(answer)), nil
}

// hintError is an error worded in a language that wraps a sentinel and its
// cause: %w would print the sentinel's English text.
type hintError struct {
	text string
	errs []error
}

func (e *hintError) Error() string   { return e.text }
func (e *hintError) Unwrap() []error { return e.errs }
