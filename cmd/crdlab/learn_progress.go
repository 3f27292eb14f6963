package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/lab/writefile"
	"github.com/crdlab/crdlab/scenarios"
)

// progress is the learner's progress in a lesson: the tasks done, by their
// step (1-based) and by their name, and the cluster they were done in, in
// <state-dir>/learn/NAME.json. It survives 'crdlab down' and 'up': the
// state dir is the learner's.
type progress struct {
	mu     sync.Mutex
	Lesson string `json:"lesson"`
	Done   []int  `json:"done"`
	// Tasks are the names of the tasks done, as the lesson is written (in
	// English, whatever the learner reads): a newer crdlab's lesson may
	// have moved them to other steps. Files written before it have none.
	Tasks []string `json:"tasks,omitempty"`
	// Cluster is the cluster the tasks were done in (scenarios.ClusterID):
	// on another, their objects are gone.
	Cluster string `json:"cluster,omitempty"`
}

func progressFile(sd control.Dir, lesson string) string {
	return filepath.Join(sd.Learn(), lesson+".json")
}

func loadProgress(sd control.Dir, lesson string, l lang.Lang) (*progress, error) {
	p := &progress{Lesson: lesson}
	data, err := os.ReadFile(progressFile(sd, lesson))
	if errors.Is(err, os.ErrNotExist) {
		return p, nil
	}
	if err == nil {
		err = json.Unmarshal(data, p)
	}
	if err != nil {
		return nil, fmt.Errorf(l.Msg("your progress in lesson %s (%s): %w; --restart starts over"), lesson, progressFile(sd, lesson), err)
	}
	return p, nil
}

// doneSteps returns the steps of s whose tasks are done: found by their
// names, or by their step numbers in a file that has no names (a lesson
// changed since may have moved them: a step that is no task is dropped).
func (p *progress) doneSteps(s *scenarios.Scenario) map[int]bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[int]bool{}
	if len(p.Tasks) > 0 {
		for i, st := range s.Spec.Steps {
			if st.Task != nil && slices.Contains(p.Tasks, st.Name) {
				out[i+1] = true
			}
		}
		return out
	}
	for _, step := range p.Done {
		if step >= 1 && step <= len(s.Spec.Steps) && s.Spec.Steps[step-1].Task != nil {
			out[step] = true
		}
	}
	return out
}

func (p *progress) count(s *scenarios.Scenario) int { return len(p.doneSteps(s)) }

// markDone records that the task of step is done in cluster, at once. A
// task done in another cluster than those before starts the count again:
// their objects are not in this one. Its error is said in l.
func (p *progress) markDone(sd control.Dir, s *scenarios.Scenario, step int, cluster string, l lang.Lang) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if cluster != p.Cluster {
		p.Done, p.Tasks, p.Cluster = nil, nil, cluster
	}
	if len(p.Tasks) == 0 && len(p.Done) > 0 { // a file of an older crdlab: name what it counted
		for _, done := range p.Done {
			if done >= 1 && done <= len(s.Spec.Steps) && s.Spec.Steps[done-1].Task != nil {
				p.Tasks = append(p.Tasks, s.Spec.Steps[done-1].Name)
			}
		}
	}
	if !slices.Contains(p.Done, step) {
		p.Done = append(p.Done, step)
		slices.Sort(p.Done)
	}
	if name := s.Spec.Steps[step-1].Name; !slices.Contains(p.Tasks, name) {
		p.Tasks = append(p.Tasks, name)
	}
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	path := progressFile(sd, s.Metadata.Name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf(l.Msg("unable to keep your progress: %w"), err)
	}
	if err := writefile.Atomic(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf(l.Msg("unable to keep your progress: %w"), err)
	}
	return nil
}
