package scenarios

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/crdlab/crdlab/scenarios/format"
)

// startPoll is how often a need the lesson made is checked again, until
// it holds (a CRD made again is Established a moment later).
const startPoll = 250 * time.Millisecond

// start brings the cluster to the state the lesson starts from
// (spec.start), whatever path through the course the learner took: each
// need is checked once, in order; one that does not hold is made by its
// make steps, and the learner is told what the lesson did and why. A need
// the lesson cannot make stops it, with the lesson to finish first.
func (r *runner) start(ctx context.Context) error {
	st := r.s.Spec.Start
	if st == nil || r.lesson() == nil {
		return nil
	}
	l := r.s.Lang()
	told := false
	for i := range st.Needs {
		n := &st.Needs[i]
		ok, describe := r.checkOnce(ctx, n.Expect)
		if ok {
			continue
		}
		if !told { // what the lesson starts from, and what it makes
			r.note(r.text(strings.TrimSpace(st.Text)))
			told = true
		}
		found := describe().Error()
		text := r.text(strings.TrimSpace(n.Text))
		if len(n.Make) == 0 {
			return r.finishFirst(n, text, found)
		}
		r.note(l.Msgf("this lesson needs: %s. Not so here (%s): the lesson makes it", text, found))
		if err := r.makeNeed(ctx, n); err != nil {
			return r.finishFirst(n, text, err.Error())
		}
		r.note(l.Msgf("made: %s", text))
	}
	return nil
}

// makeNeed runs the need's make steps, then waits until the need holds.
func (r *runner) makeNeed(ctx context.Context, n *format.StartNeed) error {
	l := r.s.Lang()
	var timeout time.Duration
	for i := range n.Make {
		st := &n.Make[i]
		timeout = max(timeout, r.timeoutOf(st))
		if _, err := operationOf(st).run(ctx, r, r.timeoutOf(st)); err != nil {
			return fmt.Errorf("%s: %w", st.Describe(), saidIn(l, err))
		}
	}
	deadline := time.Now().Add(timeout)
	for {
		ok, describe := r.checkOnce(ctx, n.Expect)
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return errors.New(l.Msgf("still not so after %s: %v", timeout, describe()))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(startPoll):
		}
	}
}

// finishFirst is the error of a need the lesson does not make: what it
// needs, what was found, and the lesson to finish first, with its command.
func (r *runner) finishFirst(n *format.StartNeed, text, found string) error {
	l := r.s.Lang()
	if n.Finish == "" {
		return errors.New(l.Msgf("this lesson needs: %s. Not so here (%s)", text, found))
	}
	return errors.New(l.Msgf("this lesson needs: %s. Not so here (%s). Finish lesson %s first: crdlab learn %s", text, found, n.Finish, n.Finish))
}
