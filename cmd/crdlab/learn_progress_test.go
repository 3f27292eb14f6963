package main

import (
	"os"
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
	if err := os.WriteFile(progressFile(sd, "crd-basics"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loadProgress(sd, "crd-basics", lang.EN); err == nil || !strings.Contains(err.Error(), "--restart") {
		t.Errorf("an unreadable progress file: %v", err)
	}
}
