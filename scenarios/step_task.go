package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/crdlab/crdlab/lab/timeline"
	"github.com/crdlab/crdlab/scenarios/format"
)

const (
	// taskPoll is how often a task checks whether it holds.
	taskPoll = 500 * time.Millisecond
	// defaultHintAfter is how long a task waits before it shows its next
	// hint unasked.
	defaultHintAfter = 3 * time.Minute
)

// taskOp shows the learner a task and waits, without a deadline, until
// every one of its checks holds; meanwhile it shows its hints one by one,
// when the learner asks or after a while, and what the check still
// misses, whenever that changes.
type taskOp struct{ *format.Task }

func (op taskOp) run(ctx context.Context, r *runner, _ time.Duration) (string, error) {
	step, l := r.current, r.s.Lang()
	hints := make([]string, len(op.Hints))
	for i, h := range op.Hints {
		hints[i] = r.text(h)
	}
	r.emit(Entry{Type: "task", Step: step, Steps: len(r.s.Spec.Steps), Text: r.text(op.Text),
		Description: l.Msg("Your task"), Hints: len(hints)})

	every := defaultHintAfter
	if op.HintAfter != nil {
		every = op.HintAfter.Duration
	}
	var unasked *time.Timer
	var unaskedC <-chan time.Time
	if every > 0 && len(hints) > 0 {
		unasked = time.NewTimer(every)
		defer unasked.Stop()
		unaskedC = unasked.C
	}
	shown := 0
	hint := func() string {
		if shown == len(hints) {
			msg := l.Msg("this task has no hints")
			if len(hints) > 0 {
				msg = l.Msgf("no more hints: all %d are shown", len(hints))
			}
			r.note(msg)
			return msg
		}
		shown++
		text := hints[shown-1]
		r.emit(Entry{Type: "hint", Step: step, Text: text, Description: l.Msgf("Hint %d/%d", shown, len(hints))})
		if unasked != nil {
			unasked.Reset(every)
		}
		return text
	}
	var asks <-chan HintRequest
	if ls := r.lesson(); ls != nil {
		asks = ls.Hints
	}

	poll := time.NewTicker(taskPoll)
	defer poll.Stop()
	last := ""
	type verdict struct {
		ok  bool
		why string
	}
	for {
		// The checks run (a few requests each, seconds on a loaded
		// machine) while the learner's asks for a hint are answered at
		// once: an ask waits at most a couple of seconds for a task.
		checked := make(chan verdict, 1)
		go func() {
			ok, why := r.checkTask(ctx, op.Task)
			checked <- verdict{ok, why}
		}()
		var v verdict
	checking:
		for {
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case req := <-asks:
				req.Reply <- hint()
			case <-unaskedC:
				hint()
			case v = <-checked:
				break checking
			}
		}
		ok, why := v.ok, v.why
		if ok {
			break
		}
		if why != last && ctx.Err() == nil {
			last = why
			r.emit(Entry{Type: "check", Step: step, Status: Running, Text: why, Description: l.Msg("not yet")})
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case req := <-asks:
			req.Reply <- hint()
		case <-unaskedC:
			hint()
		case <-poll.C:
		}
	}
	r.emit(Entry{Type: "check", Step: step, Status: Passed})
	if ls := r.lesson(); ls != nil && ls.TaskDone != nil {
		ls.TaskDone(step)
	}
	if r.opts.Timeline {
		r.awaitLines(ctx, step, op.Task)
		r.drain(ctx) // what the controllers did in answer
	}
	return "", nil
}

// linesWait bounds the wait, once a task holds, for the timeline to bring
// the lines of what made it hold: the lab releases its lines in order,
// after a window, later still under load.
const linesWait = 10 * time.Second

// awaitLines waits until the timeline has brought the lines of what made
// the task hold: the writes of the objects its expect checks saw (their
// resourceVersion), and, for a check that a write is refused, a write of
// the learner's; or linesWait passes.
func (r *runner) awaitLines(ctx context.Context, step int, t *format.Task) {
	if !r.tl.ordered {
		return // a cluster that is not a lab: lines come as they come
	}
	var rev int64
	probes := false
	for _, c := range t.Check {
		if c.Expect == nil {
			probes = probes || c.ExpectError != nil
			continue
		}
		ref := c.Expect.Resource
		if c.Expect.Object != nil {
			want, _ := format.JSONCopy(c.Expect.Object)
			r.expand(want)
			got, _ := format.RefOf(want.(map[string]any))
			ref = &got
		}
		_, objs, err := r.selectObjects(ctx, ref)
		if err != nil {
			continue
		}
		for _, o := range objs {
			var v int64
			if _, err := fmt.Sscan(o.GetResourceVersion(), &v); err == nil {
				rev = max(rev, v)
			}
		}
	}
	deadline := time.NewTimer(linesWait)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		r.tl.mu.Lock()
		done := r.tl.lastRev >= rev && (!probes || slices.ContainsFunc(r.tl.lines[step], func(e timeline.Event) bool { return isLearner(e.Actor) }))
		r.tl.mu.Unlock()
		if done {
			return
		}
		select {
		case <-r.tl.seen:
		case <-tick.C:
		case <-deadline.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// checkTask checks every condition of the task once; when one does not
// hold, it says why, in a line or a few.
func (r *runner) checkTask(ctx context.Context, t *format.Task) (bool, string) {
	for _, c := range t.Check {
		if found := r.checkOne(ctx, &c); found != "" {
			if text := r.text(c.Text); text != "" {
				return false, text + "\n" + found
			}
			return false, found
		}
	}
	return true, ""
}

// checkOne checks one condition of a task; when it does not hold, it says
// what it found.
func (r *runner) checkOne(ctx context.Context, c *format.Check) string {
	switch {
	case c.Expect != nil:
		if empty := r.emptySet(ctx, c.Expect); empty != "" {
			return empty
		}
		if ok, describe := r.checkOnce(ctx, c.Expect); !ok {
			return describe().Error()
		}
		return r.checkCause(ctx, c)
	case c.ExpectRestored != nil:
		if found := r.checkRestored(ctx, c.ExpectRestored); found != "" {
			return found
		}
		return r.checkCause(ctx, c)
	case c.ExpectAccepted != nil:
		stored, err := r.dryRunStored(ctx, c.ExpectAccepted.Apply)
		if err != nil {
			return r.s.Lang().Msgf("%s: refused, want it accepted: %v", r.probeWhat(c.ExpectAccepted.Apply), saidIn(r.s.Lang(), err))
		}
		if dropped := r.dropped(c.ExpectAccepted, stored); dropped != "" {
			return r.s.Lang().Msgf("%s: accepted, but the apiserver would drop %s: the schema does not name it (pruned)", r.probeWhat(c.ExpectAccepted.Apply), dropped)
		}
	default:
		e := c.ExpectError
		if _, err := refusal(r.opts.Lang, e, r.probe(ctx, e)); err != nil {
			what := e.What(r.s.Lang())
			if e.Apply != nil {
				what = r.probeWhat(e.Apply)
			}
			return what + r.s.Lang().Msg(": ") + err.Error()
		}
	}
	return ""
}

// emptySet says, for a check over a set (an expect of a resource with
// cel and no name), that the set is empty: objects.all(...) holds over
// nothing, and a task whose text says "every" wants some. An expect that
// allows it (allowEmpty) holds over nothing.
func (r *runner) emptySet(ctx context.Context, e *format.Expect) string {
	if e.Resource == nil || e.Resource.Name != "" || e.CEL == "" || e.AllowEmpty {
		return ""
	}
	_, objs, err := r.selectObjects(ctx, e.Resource)
	if err != nil || len(objs) > 0 {
		return "" // checkOnce says what went wrong
	}
	return r.s.Lang().Msgf("%s: there is none, and the check is about every one (it would hold over none)", format.RefWhatIn(r.s.Lang(), r.ref(e.Resource)))
}

// probeWhat names the write of a check in the learner's terms: what it
// applies, and the spec of an inline object (the User it tries).
func (r *runner) probeWhat(a *Apply) string {
	what := r.s.Lang().Msgf("apply %s", format.ApplyWhat(a))
	if spec, ok := a.Object["spec"]; ok {
		if b, err := json.Marshal(spec); err == nil {
			what += " " + string(b)
		}
	}
	return what
}

// probe makes the write of e as a server-side dry run (nothing is stored,
// and no controller sees it), or its read, and returns the apiserver's
// answer.
func (r *runner) probe(ctx context.Context, e *ExpectError) error {
	if e.Get != nil {
		return r.read(ctx, e.Get)
	}
	return r.dryRun(ctx, e.Apply)
}

// dryRun applies the objects of a as a server-side dry run, and returns
// the apiserver's answer.
func (r *runner) dryRun(ctx context.Context, a *Apply) error {
	_, err := r.dryRunStored(ctx, a)
	return err
}

// storedAs is an object of a probe, as sent and as the apiserver would
// store it.
type storedAs struct{ sent, stored *unstructured.Unstructured }

// dryRunStored is dryRun, which returns each object as sent and as the
// apiserver answered it: what it would store.
func (r *runner) dryRunStored(ctx context.Context, a *Apply) ([]storedAs, error) {
	objs, err := r.objects(a)
	if err != nil {
		return nil, err
	}
	var out []storedAs
	for _, o := range objs {
		ri, _, err := r.resource(ctx, o.GetAPIVersion(), o.GetKind(), o.GetNamespace())
		if err != nil {
			return nil, err
		}
		got, err := r.dryWrite(ctx, ri, o)
		if apierrors.IsNotFound(err) {
			// The learner's CRD changed (its scope, its versions) since the
			// kind was mapped: map it again.
			r.mapper.Reset()
			if ri, _, err = r.resource(ctx, o.GetAPIVersion(), o.GetKind(), o.GetNamespace()); err == nil {
				got, err = r.dryWrite(ctx, ri, o)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s/%s: %w", strings.ToLower(o.GetKind()), o.GetName(), err)
		}
		out = append(out, storedAs{sent: o, stored: got})
	}
	return out, nil
}

// dropped names the fields of what a probe sent that the apiserver would
// not store (its schema prunes them), but those the check says it may
// drop (mayDrop): "" when it would store them all.
func (r *runner) dropped(e *format.ExpectAccepted, objs []storedAs) string {
	var out []string
	for _, o := range objs {
		if o.stored == nil {
			continue
		}
		for _, p := range leafPaths(o.sent.Object, nil) {
			path := strings.Join(p, ".")
			if p[0] == "metadata" || slices.Contains(e.MayDrop, path) {
				continue
			}
			if _, found, _ := unstructured.NestedFieldNoCopy(o.stored.Object, p...); !found {
				out = append(out, path)
			}
		}
	}
	return strings.Join(out, r.s.Lang().Msg(", "))
}

// dryWrite updates o if it exists, or creates it, as a server-side dry
// run: the learner's kubectl apply would be refused or accepted as it is.
// An object that exists is updated first, as kubectl apply patches it: a
// create of it would meet admission as a CREATE (refused by a policy on
// creates only) before the apiserver found that it exists. (A server-side
// apply would not do: a value of the wrong type fails it with 500, before
// validation names the field.)
func (r *runner) dryWrite(ctx context.Context, ri dynamic.ResourceInterface, o *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	dry := []string{metav1.DryRunAll}
	update := func() (*unstructured.Unstructured, error) {
		cur, err := ri.Get(ctx, o.GetName(), metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		o := o.DeepCopy()
		o.SetResourceVersion(cur.GetResourceVersion())
		return ri.Update(ctx, o, metav1.UpdateOptions{FieldManager: FieldManager, DryRun: dry})
	}
	if o.GetName() != "" {
		if got, err := update(); !apierrors.IsNotFound(err) {
			return got, err
		}
	}
	got, err := ri.Create(ctx, o, metav1.CreateOptions{FieldManager: FieldManager, DryRun: dry})
	if apierrors.IsAlreadyExists(err) && o.GetName() != "" {
		return update() // made meanwhile
	}
	return got, err
}

// taskSummary says what the learner's writes did during the task of step:
// the timeline's lines from the learner's first write on (theirs, and the
// controllers' in answer); with no write of theirs (they acted through
// crdlab, or their own program), every line of the step.
func (r *runner) taskSummary(step int) string {
	l := r.s.Lang()
	r.tl.mu.Lock()
	lines := append([]timeline.Event(nil), r.tl.lines[step]...)
	r.tl.mu.Unlock()
	header := l.Msg("done. What your writes did:")
	first := slices.IndexFunc(lines, func(e timeline.Event) bool { return isLearner(e.Actor) })
	if first < 0 {
		if len(lines) == 0 {
			return l.Msg("done (no write of yours is on the timeline: it held with what was there)")
		}
		header, first = l.Msg("done. What happened meanwhile:"), 0
	}
	var b strings.Builder
	b.WriteString(header)
	width := 0
	for _, e := range lines[first:] {
		width = max(width, len([]rune(l.Actor(e.Actor))))
	}
	for _, e := range lines[first:] {
		a := l.Actor(e.Actor)
		fmt.Fprintf(&b, "\n  %s%s  %-7s %s", a, strings.Repeat(" ", width-len([]rune(a))), e.Verb, e.Object())
		if e.Detail != "" {
			b.WriteString("  " + timeline.DetailIn(l, e))
		}
	}
	return b.String()
}

// isLearner reports whether a timeline actor is the learner: their kubectl,
// or a program of theirs (a controller run with go run names itself).
func isLearner(actor string) bool {
	return strings.HasPrefix(actor, "you (kubectl)")
}
