package scenarios

import (
	"context"
	"fmt"

	"github.com/crdlab/crdlab/lab/lang"
)

// Player plays a lesson a step at a time, as the answer tables' test
// (answers_test.go) needs: the lesson's own steps, the learner's answers
// (steps of another file), and a task's check, once. It works in ns, as a
// lesson run with --namespace ns.
type Player struct{ r *runner }

// NewPlayer returns a player of lesson s against t, in namespace ns.
func NewPlayer(s *Scenario, t Target, ns string) (*Player, error) {
	r, err := newRunner(s, t, Options{Lesson: &LessonOptions{Namespace: ns, Files: "${FILES}"}})
	if err != nil {
		return nil, err
	}
	r.ns = ns
	r.ours[ns] = true
	return &Player{r: r}, nil
}

// NewPlayerIn is NewPlayer for a learner who reads l: it returns the
// lesson as they read it too, whose tasks its Check takes.
func NewPlayerIn(s *Scenario, t Target, ns string, l lang.Lang) (*Player, *Scenario, error) {
	s = s.In(l)
	r, err := newRunner(s, t, Options{Lang: l, Lesson: &LessonOptions{Namespace: ns, Files: "${FILES}"}})
	if err != nil {
		return nil, nil, err
	}
	r.ns = ns
	r.ours[ns] = true
	return &Player{r: r}, s, nil
}

// Do runs steps as a run does, reading their files with from's (the
// lesson's, or an answer table's).
func (p *Player) Do(ctx context.Context, from *Scenario, steps []Step) error {
	lesson := p.r.s
	p.r.s = from
	defer func() { p.r.s = lesson }()
	for i := range steps {
		st := &steps[i]
		if _, err := operationOf(st).run(ctx, p.r, p.r.timeoutOf(st)); err != nil {
			return fmt.Errorf("step %d (%s): %w", i+1, st.Describe(), err)
		}
	}
	return nil
}

// Check checks the task once: whether it holds, and if not, what the
// learner reads ("not yet: ...").
func (p *Player) Check(ctx context.Context, t *Task) (bool, string) { return p.r.checkTask(ctx, t) }

// Start brings the cluster to the state the lesson starts from
// (spec.start), as a run does before its first step: nil when every need
// holds or was made; otherwise what the learner reads.
func (p *Player) Start(ctx context.Context) error { return p.r.start(ctx) }

// Close starts again what the lesson stopped.
func (p *Player) Close() { p.r.cleanup() }
