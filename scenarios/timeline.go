package scenarios

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crdlab/crdlab/lab/timeline"
)

// How long the timeline may take to start, and to settle.
const (
	// syncTimeout bounds the wait for the timeline's stream or watches.
	syncTimeout = 30 * time.Second
	// deliveryMargin is what the runner adds to the lab's hold (which the
	// lab says with its timeline, Lab.Timeline) when it waits, at the end
	// of a step, for the lab's ordered stream to pass the step's last
	// revision: the time for the step's last write to reach the lab's
	// watch, and its line the runner.
	deliveryMargin = 250 * time.Millisecond
	// drainQuiet is how long the timeline must be quiet after the last
	// step for the run to end: the last changes have reached it.
	drainQuiet = 250 * time.Millisecond
	// drainTimeout bounds that wait when the cluster stays busy.
	drainTimeout = 3 * time.Second
)

// The orders a run's timeline is shown in (Entry.Order of the scenario
// entry).
const (
	// OrderRevision: a lab's timeline, in the cluster's order (etcd
	// revisions), times from the apiserver, each line under the step whose
	// revisions contain it.
	OrderRevision = "revision"
	// OrderArrival: a cluster given by --kubeconfig, whose resourceVersions
	// are not promised to be ordered: lines as they arrive, under the step
	// that runs then.
	OrderArrival = "arrival"
)

// stepTimeline places each line of a run's timeline under the step that
// caused it. In a lab, the runner reads the cluster's revision at each
// step's boundaries (a quorum list); a line belongs to the step whose
// range holds its revision (a line without one: its time), and it is shown
// after that step's heading, never under a later step: at the end of a
// step the runner waits for the lab's ordered stream to pass the step's
// last revision, and lines of the next step wait for its heading. A line
// that comes later still is shown where it arrives, marked late, and
// counted.
type stepTimeline struct {
	mu      sync.Mutex
	ordered bool
	bounds  []bound // in order; the last one may wait for its step (step 0)
	printed int     // the step whose lines are being shown (0: none yet)
	closed  bool    // the printed step has ended: its lines are late
	held    []timeline.Event
	lastRev int64         // the highest revision seen
	hold    time.Duration // the lab's hold of each line (Lab.Timeline's ready)
	seen    chan struct{} // a line with a revision arrived
	late    int
	lines   map[int][]timeline.Event // by step, for the report
}

// bound is where a step's lines begin: after revision rev, or, for lines
// without a revision, at time at.
type bound struct {
	step int
	rev  int64
	at   time.Time
}

// timelineOrder says which order the run's timeline is in.
func (r *runner) timelineOrder() string {
	if r.target.Lab != nil {
		return OrderRevision
	}
	return OrderArrival
}

// startTimeline follows the timeline until wctx is done, and returns once
// it listens: the lab's ordered stream (Lab.Timeline), or, against a
// cluster that is not a lab, a watch of its own, in arrival order. A wait
// that runs out is reported as a note: the timeline then misses the first
// changes.
func (r *runner) startTimeline(ctx, wctx context.Context) {
	r.tl.seen = make(chan struct{}, 1)
	r.tl.lines = map[int][]timeline.Event{}
	r.tl.ordered = r.target.Lab != nil
	sink := timeline.SinkFunc(r.record)
	ready := make(chan struct{})
	failed := make(chan error, 1)
	if r.target.Lab != nil {
		go func() {
			failed <- r.target.Lab.Timeline(wctx, sink, func(hold time.Duration) {
				r.tl.mu.Lock()
				r.tl.hold = hold
				r.tl.mu.Unlock()
				close(ready)
			})
		}()
	} else {
		r.note(r.opts.Lang.Msg("timeline: in arrival order (a cluster that is not a crdlab lab: its resourceVersions are not promised to be ordered, and its audit log is not read)"))
		go func() {
			failed <- timeline.WatchWith(wctx, r.target.Config, sink,
				timeline.Options{AuditLog: r.target.AuditLog, Synced: func() { close(ready) }})
		}()
	}
	select {
	case <-ready:
	case err := <-failed:
		if err != nil && ctx.Err() == nil {
			r.note(r.opts.Lang.Msgf("no timeline: %v", err))
		}
	case <-time.After(syncTimeout):
		r.note(r.opts.Lang.Msgf("the timeline did not start within %s: the first changes may be missing", syncTimeout))
	case <-ctx.Done():
	}
}

// revision returns the cluster's revision now: the resourceVersion of a
// quorum list (0 if the list fails).
func (r *runner) revision(ctx context.Context) int64 {
	list, err := r.dyn.Resource(corev1.SchemeGroupVersion.WithResource("namespaces")).List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return 0
	}
	var rev int64
	_, _ = fmt.Sscan(list.GetResourceVersion(), &rev)
	return rev
}

// openStep shows the heading of a step (entry) and the lines already
// known to belong to it; the step's lines begin at the boundary its
// previous step's end left, or at the revision now.
func (r *runner) openStep(ctx context.Context, entry Entry) {
	tl := &r.tl
	if !r.opts.Timeline {
		r.emit(entry)
		return
	}
	var b bound
	pending := false
	tl.mu.Lock()
	if n := len(tl.bounds); n > 0 && tl.bounds[n-1].step == 0 {
		pending = true
	}
	tl.mu.Unlock()
	if !pending && tl.ordered {
		b = bound{rev: r.revision(ctx), at: time.Now()}
	}
	tl.mu.Lock()
	defer tl.mu.Unlock()
	switch {
	case pending:
		tl.bounds[len(tl.bounds)-1].step = entry.Step
	case tl.ordered:
		b.step = entry.Step
		tl.bounds = append(tl.bounds, b)
	}
	tl.printed, tl.closed = entry.Step, false
	r.emit(entry)
	held := tl.held
	tl.held = nil
	for _, e := range held {
		r.place(e)
	}
}

// settleWait bounds the wait, at the end of a step, for the lab's ordered
// stream to pass the step's last revision: the lab's hold, which the lab
// said (Lab.Timeline), and the runner's deliveryMargin.
func (tl *stepTimeline) settleWait() time.Duration {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return tl.hold + deliveryMargin
}

// closeStep ends the printed step: in a lab, it reads the revision now,
// which ends the step's range and begins the next step's, and waits until
// the lab's ordered stream has passed it (or settleWait).
func (r *runner) closeStep(ctx context.Context) {
	tl := &r.tl
	if !r.opts.Timeline || !tl.ordered {
		return
	}
	rev := r.revision(ctx)
	tl.mu.Lock()
	tl.bounds = append(tl.bounds, bound{rev: rev, at: time.Now()})
	tl.mu.Unlock()
	deadline := time.NewTimer(tl.settleWait())
	defer deadline.Stop()
	for waiting := rev > 0; waiting; {
		tl.mu.Lock()
		waiting = tl.lastRev <= rev
		tl.mu.Unlock()
		if !waiting {
			break
		}
		select {
		case <-tl.seen:
		case <-deadline.C:
			waiting = false
		case <-ctx.Done():
			waiting = false
		}
	}
	tl.mu.Lock()
	tl.closed = true
	tl.mu.Unlock()
}

// stepOf returns the step a line belongs to (0: one whose heading is not
// shown yet). Called with tl.mu held.
func (tl *stepTimeline) stepOf(e timeline.Event) int {
	if !tl.ordered {
		return tl.printed
	}
	i := sort.Search(len(tl.bounds), func(i int) bool {
		b := tl.bounds[i]
		if e.Revision > 0 {
			return b.rev >= e.Revision
		}
		return !b.at.Before(e.Time)
	})
	if i == 0 {
		return tl.printed // before the first step: shown as it comes
	}
	return tl.bounds[i-1].step
}

// place shows e under its step, holds it for a step not shown yet, or
// shows it late. Called with tl.mu held.
func (r *runner) place(e timeline.Event) {
	tl := &r.tl
	step := tl.stepOf(e)
	switch {
	case step == 0 && len(tl.bounds) > 0:
		tl.held = append(tl.held, e)
		return
	case step < tl.printed, step == tl.printed && tl.closed:
		e.Late = true
	}
	if e.Late {
		tl.late++
	}
	tl.lines[step] = append(tl.lines[step], e)
	r.emit(Entry{Type: "event", Event: &e, Step: step})
}

// record is the timeline sink: it keeps what happens in the scenario's
// namespaces (and to its namespaces, CRDs, and nodes when it acts on them),
// names the scenario as the actor of its own deletions, and places the
// line under its step.
func (r *runner) record(e timeline.Event) {
	r.mu.Lock()
	keep := r.ours[e.Namespace]
	switch {
	case e.Namespace != "":
	case e.Kind == "Namespace":
		keep = r.ours[e.Name]
	case e.Kind == "CustomResourceDefinition":
		keep = r.createdHere("CustomResourceDefinition", e.Name) || r.lesson() != nil // the learner writes CRDs
	case e.Kind == "Node":
		keep = r.nodeSeen
	case e.Kind == "APIService", e.Kind == "NodeMetrics", e.Kind == "LabSummary":
		keep = true // the aggregated APIs, and requests to them
	}
	if keep && e.Verb == timeline.Delete && e.Actor == "?" && r.deleted[deletedKey(e.Kind, e.Namespace, e.Name)] {
		e.Actor = "you (scenario)"
	}
	if keep {
		r.recordDeletion(e)
		r.recordRemovals(e)
	}
	r.mu.Unlock()
	tl := &r.tl
	tl.mu.Lock()
	if e.Revision > tl.lastRev {
		tl.lastRev = e.Revision
		select {
		case tl.seen <- struct{}{}:
		default:
		}
	}
	if keep {
		r.place(e)
	}
	tl.mu.Unlock()
	if keep {
		select {
		case r.activity <- struct{}{}:
		default:
		}
	}
}

// drain waits until the timeline has been quiet for drainQuiet, so that
// the changes the last steps caused are shown, or drainTimeout passes
// (reported).
func (r *runner) drain(ctx context.Context) {
	quiet := time.NewTimer(drainQuiet)
	defer quiet.Stop()
	deadline := time.NewTimer(drainTimeout)
	defer deadline.Stop()
	for {
		select {
		case <-r.activity:
			quiet.Reset(drainQuiet)
		case <-quiet.C:
			return
		case <-deadline.C:
			r.note(r.opts.Lang.Msgf("the cluster was still busy %s after the last step: later changes are not shown", drainTimeout))
			return
		case <-ctx.Done():
			return
		}
	}
}

// finishTimeline shows the lines that came after the last step, under it,
// and puts each step's lines and the count of late ones in the result.
func (r *runner) finishTimeline(res *Result) {
	tl := &r.tl
	tl.mu.Lock()
	held := tl.held
	tl.held = nil
	if n := len(tl.bounds); n > 0 && tl.bounds[n-1].step == 0 {
		tl.bounds = tl.bounds[:n-1] // after the last step: its lines
	}
	tl.closed = false
	for _, e := range held {
		r.place(e)
	}
	late := tl.late
	for i := range res.Steps {
		res.Steps[i].Timeline = tl.lines[res.Steps[i].Index]
	}
	tl.mu.Unlock()
	res.LateLines = late
	if late > 0 {
		r.note(r.opts.Lang.Msgf("%d timeline line(s) reached the runner after the lines that follow them: shown where they arrived, marked late", late))
	}
}
