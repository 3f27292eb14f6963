package main

import (
	"os"
	"strings"
	"testing"

	"github.com/crdlab/crdlab/lab/labtest/control"
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
	p, err := loadProgress(sd, "crd-basics")
	if err != nil || p.count(s) != 0 {
		t.Fatalf("no progress yet: %+v, %v", p, err)
	}
	if err := p.markDone(sd, s, 3); err != nil {
		t.Fatal(err)
	}
	if err := p.markDone(sd, s, 3); err != nil { // twice is once
		t.Fatal(err)
	}
	again, err := loadProgress(sd, "crd-basics")
	if err != nil || again.count(s) != 1 || !again.doneSteps(s)[3] {
		t.Errorf("after task 3: %+v, %v", again, err)
	}
	again.Done = append(again.Done, 1, 99) // a narrate step, and a step the lesson no longer has
	if got := again.count(s); got != 1 {
		t.Errorf("steps that are no task counted: %d", got)
	}
	if err := os.WriteFile(progressFile(sd, "crd-basics"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loadProgress(sd, "crd-basics"); err == nil || !strings.Contains(err.Error(), "--restart") {
		t.Errorf("an unreadable progress file: %v", err)
	}
}
