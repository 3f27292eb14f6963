package scenarios

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/lab/timeline"
	"github.com/crdlab/crdlab/scenarios/format"
)

// expectErrorOp makes a write (or a read) that must be refused, with the
// status code and message the step names.
type expectErrorOp struct{ *ExpectError }

func (e expectErrorOp) run(ctx context.Context, r *runner, timeout time.Duration) (string, error) {
	var err error
	switch {
	case e.Apply != nil:
		_, err = applyOp{e.Apply}.run(ctx, r, 0)
	case e.Patch != nil:
		_, err = patchOp{e.Patch}.run(ctx, r, 0)
	case e.Scale != nil:
		_, err = scaleOp{e.Scale}.run(ctx, r, 0)
	case e.Delete != nil:
		_, err = deleteOp{e.Delete}.run(ctx, r, 0)
	case e.Get != nil:
		return untilRefused(ctx, timeout, func() error { return r.read(ctx, e.Get) },
			func(err error) (string, error) { return refusal(r.opts.Lang, e.ExpectError, err) })
	}
	return refusal(r.opts.Lang, e.ExpectError, err)
}

// untilRefused reads (try) again until judge takes its answer for the
// refusal wanted, within timeout, and returns judge's last verdict. Only
// a read is tried again: it changes nothing, and what serves it can lag
// behind a write just made (the aggregator drops the route of an
// APIService deleted a moment ago when its controller sees the deletion).
func untilRefused(ctx context.Context, timeout time.Duration, try func() error, judge func(error) (string, error)) (string, error) {
	deadline := time.Now().Add(timeout)
	for {
		note, err := judge(try())
		if err == nil || !time.Now().Before(deadline) {
			return note, err
		}
		select {
		case <-ctx.Done():
			return note, err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// refusal judges the answer to the write (or read) of e: a refusal with
// the status code and message e names, described; otherwise an error that
// says how the answer differs.
func refusal(l lang.Lang, e *ExpectError, err error) (string, error) {
	if err == nil {
		return "", errors.New(l.Msg("accepted; want a refusal"))
	}
	said := saidIn(l, err) // what it is matched against is what the apiserver said
	code := 0
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		code = int(status.Status().Code)
	}
	if e.Code != 0 && code != e.Code {
		return "", fmt.Errorf(l.Msg("refused with status %d, want %d: %w"), code, e.Code, said)
	}
	if e.Message != "" && !strings.Contains(err.Error(), e.Message) {
		return "", fmt.Errorf(l.Msg("refused, but the message does not contain %q:\n%w"), e.Message, said)
	}
	if miss := missingCauses(e.Causes, causesOf(err)); len(miss) > 0 {
		return "", errors.New(l.Msgf("refused, but not for %s: %v", strings.Join(miss, ", "), said))
	}
	if code != 0 {
		return l.Msgf("refused (%d %s): %v", code, apierrors.ReasonForError(err), said), nil
	}
	return l.Msgf("refused: %v", said), nil
}

// saidIn returns the apiserver's refusal err with what crdlab said in it
// in l: a webhook the lab's front could not reach, whose account the
// apiserver quotes in English (timeline.WebhookErrorIn, as the timeline's
// line says it); err itself if it holds none. It wraps err.
func saidIn(l lang.Lang, err error) error {
	if said := timeline.WebhookErrorIn(l, err.Error()); said != err.Error() {
		return &saidError{said: said, err: err}
	}
	return err
}

// saidError is an error with its text in the reader's language.
type saidError struct {
	said string
	err  error
}

func (e *saidError) Error() string { return e.said }
func (e *saidError) Unwrap() error { return e.err }

// causesOf returns the field errors of the apiserver's refusal err
// (status.details.causes).
func causesOf(err error) []metav1.StatusCause {
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Details == nil {
		return nil
	}
	return status.Status().Details.Causes
}

// missingCauses names the causes of want that no cause of got matches: a
// cause matches on its field, a field inside it or a level above it (a
// rule reports the level it is written at), and on its reason if given.
func missingCauses(want []Cause, got []metav1.StatusCause) []string {
	var out []string
	for _, w := range want {
		if !slices.ContainsFunc(got, func(c metav1.StatusCause) bool {
			return onPath(w.Field, c.Field) && (w.Reason == "" || string(c.Type) == w.Reason)
		}) {
			what := w.Field
			if w.Reason != "" {
				what += " (" + w.Reason + ")"
			}
			out = append(out, what)
		}
	}
	return out
}

// onPath reports whether the field paths a and b are one the other, or one
// inside the other: spec and spec.userID, spec.groups and spec.groups[0].
// The root level (an empty field, or <nil>) is above every field.
func onPath(a, b string) bool {
	if b == "" || b == "<nil>" || a == b {
		return true
	}
	inside := func(x, y string) bool { // x is inside y
		return strings.HasPrefix(x, y) && (x[len(y)] == '.' || x[len(y)] == '[')
	}
	return inside(a, b) || inside(b, a)
}

// read gets or lists what ref selects, and returns only the error.
func (r *runner) read(ctx context.Context, ref *format.ObjectRef) error {
	ref = r.ref(ref)
	ri, _, err := r.resource(ctx, ref.APIVersion, ref.Kind, ref.Namespace)
	if err != nil {
		return err
	}
	if ref.Name != "" {
		_, err = ri.Get(ctx, ref.Name, metav1.GetOptions{})
		return err
	}
	_, err = ri.List(ctx, metav1.ListOptions{LabelSelector: ref.Selector})
	return err
}
