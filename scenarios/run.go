package scenarios

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/crdlab/crdlab/lab/timeline"
)

// Run runs the scenario against target in a namespace of its own, and
// cleans up (its namespaces, what it installed outside them, controllers
// and nodes it stopped) when it ends, also when it fails or ctx is
// cancelled. The error is for a run that could not start; a failed
// expectation is in the result.
func Run(ctx context.Context, s *Scenario, target Target, opts Options) (*Result, error) {
	if s.IsLesson() && opts.Lesson == nil {
		return nil, fmt.Errorf("%s: %w: run it with crdlab learn", s.Source(), ErrLesson)
	}
	s = s.In(opts.Lang)
	r, err := newRunner(s, target, opts)
	if err != nil {
		return nil, err
	}
	return r.run(ctx), nil
}

// ErrLesson: a lesson run as a scenario; its tasks need a learner
// (Options.Lesson).
var ErrLesson = errors.New("a lesson, not a scenario")

type runner struct {
	s      *Scenario
	target Target
	opts   Options
	dyn    dynamic.Interface
	mapper *restmapper.DeferredDiscoveryRESTMapper
	ns     string

	activity chan struct{} // a timeline event arrived
	current  int           // the step that runs (1-based)
	tl       stepTimeline  // which step each line belongs to

	mu        sync.Mutex      // guards what the timeline reads, and emit
	ours      map[string]bool // namespaces of the scenario
	deleted   map[string]bool // kind/ns/name the scenario deleted
	created   []*unstructured.Unstructured
	stopped   []func(context.Context) error        // undo of lab steps, in order
	restores  map[string]restore                   // what expectRestored checks deleted
	deletions map[string]timeline.Event            // the last DELETE line of each object (kind/ns/name)
	removals  map[string]map[string]timeline.Event // per object (kind/ns/name), the line that took each field out
	createdAt map[string]int64                     // the revision of the last CREATE line of each object (kind/ns/name)
	asked     map[string]timeline.Event            // the line of a deletion's request, of each object held by finalizers (kind/ns/name)
	// manager is the field manager of the steps' writes, and dyn's user
	// agent: the scenario's (FieldManager), or, as an answer table plays
	// a learner, kubectl's.
	manager  string
	nodeSeen bool
	// version is the apiserver's /version (gitVersion), once asked
	// (serverVersion).
	version string
}

func newRunner(s *Scenario, target Target, opts Options) (*runner, error) {
	cfg := rest.CopyConfig(target.Config)
	cfg.QPS, cfg.Burst = 50, 100
	cfg.UserAgent = FieldManager // the audit log names the scenario as the client
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("unable to create a client for %s: %w", cfg.Host, err)
	}
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("unable to create a discovery client for %s: %w", cfg.Host, err)
	}
	return &runner{
		s: s, target: target, opts: opts, dyn: dyn,
		mapper:    restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc)),
		activity:  make(chan struct{}, 1),
		ours:      map[string]bool{},
		deleted:   map[string]bool{},
		restores:  map[string]restore{},
		deletions: map[string]timeline.Event{},
		createdAt: map[string]int64{},
		asked:     map[string]timeline.Event{},
		manager:   FieldManager,
	}, nil
}

func (r *runner) emit(e Entry) {
	if r.opts.Listener == nil {
		return
	}
	e.Time, e.Scenario = time.Now(), r.s.Metadata.Name
	r.mu.Lock()
	defer r.mu.Unlock()
	r.opts.Listener(e)
}

func (r *runner) note(text string) { r.emit(Entry{Type: "note", Text: text}) }

func (r *runner) run(ctx context.Context) *Result {
	start := time.Now()
	res := &Result{Scenario: r.s.Metadata.Name, Title: r.s.Spec.Title, Status: Passed}
	finish := func() *Result {
		res.Duration = time.Since(start)
		r.emit(Entry{Type: "result", Status: res.Status, Text: res.Message, Seconds: res.Duration.Seconds(),
			Description: r.s.Spec.Explanation, Namespace: res.Namespace})
		return res
	}
	if old := r.tooOld(); old != "" {
		res.Status, res.Message = Skipped, old
		return finish()
	}
	if why := r.readMinor(); why != "" {
		res.Status, res.Message = Failed, why
		return finish()
	}
	if small := r.labTooSmall(ctx); small != "" {
		res.Status, res.Message = Skipped, small
		return finish()
	}
	if missing := r.missing(ctx); missing != "" {
		res.Status, res.Message = Skipped, missing
		return finish()
	}

	if ls := r.lesson(); ls != nil {
		// The learner's namespace, as it is.
		r.ns = ls.Namespace
		if r.ns == "" {
			r.ns = metav1.NamespaceDefault
		}
		res.Namespace = r.ns
		r.mu.Lock()
		r.ours[r.ns] = true
		r.mu.Unlock()
	} else {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "Namespace",
			"metadata": map[string]any{
				"generateName": "crdlab-" + r.s.Metadata.Name + "-",
				"labels":       map[string]any{LabLabel: r.s.Metadata.Name},
			},
		}}
		u, err := r.dyn.Resource(corev1.SchemeGroupVersion.WithResource("namespaces")).Create(ctx, u, metav1.CreateOptions{FieldManager: FieldManager})
		if err != nil {
			res.Status, res.Message = Failed, r.opts.Lang.Msgf("unable to create the scenario's namespace: %v", err)
			return finish()
		}
		r.ns, res.Namespace = u.GetName(), u.GetName()
		r.track(u, true)
	}
	defer r.cleanup()

	scenario := Entry{Type: "scenario", Title: r.s.Spec.Title, Namespace: r.ns, Steps: len(r.s.Spec.Steps), Text: r.s.Spec.Concept}
	if r.opts.Timeline {
		scenario.Order = r.timelineOrder()
	}
	r.emit(scenario)
	if r.opts.Timeline {
		wctx, stop := context.WithCancel(ctx)
		defer stop()
		r.startTimeline(ctx, wctx)
	}

	if err := r.start(ctx); err != nil {
		res.Status, res.Message = Failed, err.Error()
	} else {
		r.steps(ctx, res, r.done(ctx))
	}
	if r.opts.Timeline {
		r.drain(ctx)
		r.finishTimeline(res)
	}
	if res.Status == Passed {
		res.Message = ""
	}
	return finish()
}

// steps runs the steps in order; after a failure or a skipped lab step,
// the rest are skipped.
func (r *runner) steps(ctx context.Context, res *Result, done map[int]bool) {
	skipRest := ""
	n := len(r.s.Spec.Steps)
	for i := range r.s.Spec.Steps {
		st := &r.s.Spec.Steps[i]
		if r.skips(st) {
			continue // a step of another minor
		}
		action, _ := st.Action()
		sr := StepResult{Index: i + 1, Action: action, Description: st.Describe()}
		if skipRest != "" {
			sr.Status, sr.Message = Skipped, skipRest
			res.Steps = append(res.Steps, sr)
			r.emit(Entry{Type: "step", Step: i + 1, Steps: n, Action: action, Description: sr.Description, Status: Skipped, Text: skipRest})
			continue
		}
		if action == "narrate" {
			sr.Status = Passed
			res.Steps = append(res.Steps, sr)
			text := strings.TrimSpace(st.Narrate)
			if r.lesson() != nil {
				text = r.text(text)
			}
			r.emit(Entry{Type: "narrate", Step: i + 1, Steps: n, Text: text})
			continue
		}
		if r.lesson() != nil && (action == "task" && done[i+1] || i+1 < lastDone(done)) {
			// Done in an earlier run: the learner goes on from the first
			// task not done, and what came before it is not done again
			// (it would undo the learner's work).
			sr.Status, sr.Message = Passed, r.s.Lang().Msg("done in an earlier session")
			res.Steps = append(res.Steps, sr)
			r.emit(Entry{Type: "step", Step: i + 1, Steps: n, Action: action, Description: sr.Description, Status: Passed, Text: sr.Message})
			continue
		}
		r.current = i + 1
		r.openStep(ctx, Entry{Type: "step", Step: i + 1, Steps: n, Action: action, Description: sr.Description, Status: Running})
		t0 := time.Now()
		note, err := operationOf(st).run(ctx, r, r.timeoutOf(st))
		sr.Duration = time.Since(t0)
		r.closeStep(ctx)
		switch {
		case errors.Is(err, errSkip):
			sr.Status, sr.Message = Skipped, note
			skipRest = r.opts.Lang.Msgf("skipped: an earlier lab step was skipped (%s)", note)
			res.Status, res.Message = Skipped, note
		case err != nil:
			sr.Status, sr.Message = Failed, saidIn(r.opts.Lang, err).Error()
			if ctx.Err() != nil {
				sr.Message = r.opts.Lang.Msgf("interrupted: %v", ctx.Err())
			}
			res.Status, res.Message = Failed, r.opts.Lang.Msgf("step %d (%s) failed", i+1, sr.Description)
			skipRest = r.opts.Lang.Msgf("skipped: step %d failed", i+1)
		case action == "task":
			sr.Status, sr.Message = Passed, r.taskSummary(i+1)
		default:
			sr.Status, sr.Message = Passed, note
		}
		res.Steps = append(res.Steps, sr)
		r.emit(Entry{Type: "step", Step: i + 1, Steps: n, Action: action, Description: sr.Description,
			Status: sr.Status, Text: sr.Message, Seconds: sr.Duration.Seconds()})
	}
}

// missing says what the scenario requires that the lab does not run.
func (r *runner) missing(ctx context.Context) string {
	if r.target.Lab == nil || len(r.s.Spec.Requires) == 0 {
		return ""
	}
	comps, err := r.target.Lab.Components(ctx)
	if err != nil {
		return r.opts.Lang.Msgf("unable to ask the lab what it runs: %v", err)
	}
	has := map[string]bool{}
	for _, c := range comps {
		has[c.Name] = true
		if strings.HasSuffix(c.Name, "-operator") {
			has[NeedsOperators] = true
		}
	}
	var out []string
	for _, req := range r.s.Spec.Requires {
		if !has[req] {
			out = append(out, req)
		}
	}
	if len(out) == 0 {
		return ""
	}
	return r.opts.Lang.Msgf("this lab does not run %s (started with --components or --no-samples?), which the scenario needs", strings.Join(out, ", "))
}

func (r *runner) createdHere(kind, name string) bool {
	for _, u := range r.created {
		if u.GetKind() == kind && u.GetName() == name {
			return true
		}
	}
	return false
}

func deletedKey(kind, ns, name string) string { return kind + "/" + ns + "/" + name }

// lastDone returns the last step of done (0: none).
func lastDone(done map[int]bool) int {
	last := 0
	for step := range done {
		last = max(last, step)
	}
	return last
}
