package scenarios

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/crdlab/crdlab/lab/lang"
)

// Player plays a lesson a step at a time, as the answer tables' test
// (answers_test.go) needs: the lesson's own steps, the learner's answers
// (steps of another file), and a task's check, once. It works in ns, as a
// lesson run with --namespace ns, and follows the lab's timeline from the
// start, as a lesson does: a check that names who deleted an object reads
// it there.
type Player struct {
	r       *runner
	learner dynamic.Interface // the learner's kubectl
	stop    context.CancelFunc
}

// The learner's kubectl, as the answers play it: its user agent, and the
// field manager of kubectl apply --server-side.
const (
	learnerAgent   = "kubectl/v1.36.0 (crdlab answers)" // any kubectl's
	learnerManager = "kubectl"
)

// NewPlayer returns a player of lesson s against t, in namespace ns.
func NewPlayer(s *Scenario, t Target, ns string) (*Player, error) {
	r, err := newRunner(s, t, Options{Lesson: &LessonOptions{Namespace: ns, Files: "${FILES}"}})
	if err != nil {
		return nil, err
	}
	return newPlayer(r, ns)
}

// NewPlayerIn is NewPlayer for a learner who reads l: it returns the
// lesson as they read it too, whose tasks its Check takes.
func NewPlayerIn(s *Scenario, t Target, ns string, l lang.Lang) (*Player, *Scenario, error) {
	s = s.In(l)
	r, err := newRunner(s, t, Options{Lang: l, Lesson: &LessonOptions{Namespace: ns, Files: "${FILES}"}})
	if err != nil {
		return nil, nil, err
	}
	p, err := newPlayer(r, ns)
	return p, s, err
}

func newPlayer(r *runner, ns string) (*Player, error) {
	r.ns = ns
	r.ours[ns] = true
	cfg := rest.CopyConfig(r.target.Config)
	cfg.UserAgent = learnerAgent
	learner, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancel(context.Background())
	r.startTimeline(ctx, ctx)
	return &Player{r: r, learner: learner, stop: stop}, nil
}

// Do runs steps as a run does, reading their files with from's (the
// lesson's, or an answer table's).
func (p *Player) Do(ctx context.Context, from *Scenario, steps []Step) error {
	lesson := p.r.s
	p.r.s = from
	defer func() { p.r.s = lesson }()
	for i := range steps {
		st := &steps[i]
		if ok, err := p.r.applies(st); err != nil {
			return fmt.Errorf("step %d (%s): unable to ask the apiserver its version: %w", i+1, st.Describe(), err)
		} else if !ok {
			continue // a step of another minor (its kubernetes range)
		}
		if _, err := operationOf(st).run(ctx, p.r, p.r.timeoutOf(st)); err != nil {
			return fmt.Errorf("step %d (%s): %w", i+1, st.Describe(), err)
		}
	}
	return nil
}

// DoAsLearner runs steps as Do does, as the learner's kubectl writes
// them: its user agent, and its field manager.
func (p *Player) DoAsLearner(ctx context.Context, from *Scenario, steps []Step) error {
	return p.doAs(ctx, from, steps, p.learner, learnerManager)
}

// DoAsController runs steps as Do does, as the learner's controller
// program name (a go run of theirs: its binary's name) writes them: its
// user agent, and the field manager the apiserver gives it.
func (p *Player) DoAsController(ctx context.Context, from *Scenario, steps []Step, name string) error {
	cfg := rest.CopyConfig(p.r.target.Config)
	cfg.UserAgent = name + "/v0.0.0 (linux/amd64) kubernetes/$Format"
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	return p.doAs(ctx, from, steps, dyn, name)
}

func (p *Player) doAs(ctx context.Context, from *Scenario, steps []Step, as dynamic.Interface, manager string) error {
	dyn, was := p.r.dyn, p.r.manager
	p.r.dyn, p.r.manager = as, manager
	defer func() { p.r.dyn, p.r.manager = dyn, was }()
	return p.Do(ctx, from, steps)
}

// Applies reports whether a step runs on the target's minor (its
// kubernetes range), as a run chooses its steps; the tables skip a task
// of another minor.
func (p *Player) Applies(st *Step) bool {
	ok, err := p.r.applies(st)
	return ok && err == nil
}

// Check checks the task once: whether it holds, and if not, what the
// learner reads ("not yet: ...").
func (p *Player) Check(ctx context.Context, t *Task) (bool, string) { return p.r.checkTask(ctx, t) }

// Start brings the cluster to the state the lesson starts from
// (spec.start), as a run does before its first step: nil when every need
// holds or was made; otherwise what the learner reads.
func (p *Player) Start(ctx context.Context) error { return p.r.start(ctx) }

// Close starts again what the lesson stopped, and stops following the
// timeline.
func (p *Player) Close() {
	p.r.cleanup()
	p.stop()
}

// Lines returns the timeline's lines of the objects of kind named name
// that the player has seen, in order, as "verb revision actor: detail":
// what a right answer's failure shows of the objects its checks read.
func (p *Player) Lines(kind, name string) []string {
	p.r.tl.mu.Lock()
	defer p.r.tl.mu.Unlock()
	var out []string
	for _, step := range slices.Sorted(maps.Keys(p.r.tl.lines)) {
		for _, e := range p.r.tl.lines[step] {
			if e.Kind == kind && e.Name == name {
				out = append(out, fmt.Sprintf("%s %d %s: %s%s", e.Verb, e.Revision, e.Actor, e.Detail, lateMark(e.Late)))
			}
		}
	}
	for _, e := range p.r.tl.held {
		if e.Kind == kind && e.Name == name {
			out = append(out, fmt.Sprintf("(held) %s %d %s: %s", e.Verb, e.Revision, e.Actor, e.Detail))
		}
	}
	return out
}

func lateMark(late bool) string {
	if late {
		return " (late)"
	}
	return ""
}

// NudgeCRDFinalizer is nudgeCRDFinalizer, for the course-paths test's
// cleanup, which deletes the User CRD and waits as a lesson's delete does.
var NudgeCRDFinalizer = nudgeCRDFinalizer
