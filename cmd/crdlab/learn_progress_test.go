package main

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/scenarios"
)

// Progress is kept in the state dir, counts only the lesson's tasks, and
// an unreadable file is an error that says how to start over.
func TestLessonProgress(t *testing.T) {
	sd := control.Dir(t.TempDir())
	s, err := scenarios.LoadLesson("crd-basics")
	if err != nil {
		t.Fatal(err)
	}
	p, err := loadProgress(sd, "crd-basics", lang.EN)
	if err != nil || p.count(s) != 0 {
		t.Fatalf("no progress yet: %+v, %v", p, err)
	}
	if err := p.markDone(sd, s, 3, "lab-1", lang.EN); err != nil {
		t.Fatal(err)
	}
	if err := p.markDone(sd, s, 3, "lab-1", lang.EN); err != nil { // twice is once
		t.Fatal(err)
	}
	again, err := loadProgress(sd, "crd-basics", lang.EN)
	if err != nil || again.count(s) != 1 || !again.doneSteps(s)[3] || again.Cluster != "lab-1" {
		t.Errorf("after task 3: %+v, %v", again, err)
	}
	// Done again in a lab started anew: the tasks of the first are not in it.
	other, _ := loadProgress(sd, "crd-basics", lang.EN)
	if err := other.markDone(sd, s, 4, "lab-2", lang.EN); err != nil {
		t.Fatal(err)
	}
	if other.count(s) != 1 || !other.doneSteps(s)[4] || other.Cluster != "lab-2" {
		t.Errorf("a task done in another lab: %+v", other)
	}
	again.Done = append(again.Done, 1, 99) // a narrate step, and a step the lesson no longer has
	if got := again.count(s); got != 1 {
		t.Errorf("steps that are no task counted: %d", got)
	}
	// A newer crdlab's lesson with a step put before its tasks: a task
	// done is found by its name, not by its old step.
	moved := *s
	moved.Spec.Steps = append([]scenarios.Step{s.Spec.Steps[0]}, s.Spec.Steps...)
	if got := again.doneSteps(&moved); len(got) != 1 || !got[4] {
		t.Errorf("a task moved from step 3 to 4: done %v, want step 4", got)
	}
	// A file of an older crdlab names no task: its steps count, and its
	// next task done names them.
	old := &progress{Lesson: "crd-basics", Done: []int{3}, Cluster: "lab-1"}
	if got := old.doneSteps(s); len(got) != 1 || !got[3] {
		t.Errorf("an older file's steps: %v", got)
	}
	if err := old.markDone(sd, s, 4, "lab-1", lang.EN); err != nil {
		t.Fatal(err)
	}
	if want := []string{s.Spec.Steps[2].Name, s.Spec.Steps[3].Name}; !slices.Equal(old.Tasks, want) {
		t.Errorf("an older file after a task done: tasks %q, want %q", old.Tasks, want)
	}
	if err := os.WriteFile(progressFile(sd, "crd-basics"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loadProgress(sd, "crd-basics", lang.EN); err == nil || !strings.Contains(err.Error(), "--restart") {
		t.Errorf("an unreadable progress file: %v", err)
	}
}
