package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/scenarios"
)

// crdlab learn prepare builds a lesson's controller where the lesson puts
// it, with the learner's edits kept: after it, a build of the learner's
// module compiles nothing, so the first go run only links. A lesson with
// no controller is refused.
func TestLearnPrepare(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command: the lesson's controller cannot be built")
	}
	sd := t.TempDir()
	t.Setenv("CRDLAB_STATE_DIR", sd)
	dir := filepath.Join(control.Dir(sd).Learn(), "reconcile-loop", "controller")

	// The learner's main.go, edited: a comment no build has seen, so that
	// only prepare's build can have compiled it.
	lesson, err := scenarios.LoadLesson("reconcile-loop")
	if err != nil {
		t.Fatal(err)
	}
	skeleton, err := fs.ReadFile(scenarios.LessonFiles(lesson), "controller/main.go")
	if err != nil {
		t.Fatal(err)
	}
	mine := fmt.Sprintf("%s\n// edited by the learner, %d\n", skeleton, time.Now().UnixNano())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}

	run := func(args ...string) (string, error) {
		var out bytes.Buffer
		cmd := newRootCommand()
		cmd.SetArgs(args)
		cmd.SetOut(&out)
		cmd.SetErr(&out)
		err := cmd.Execute()
		return out.String(), err
	}
	out, err := run("learn", "prepare", "reconcile-loop", "--lang", "en")
	if err != nil {
		t.Fatalf("learn prepare reconcile-loop: %v\n%s", err, out)
	}
	for _, want := range []string{"preparing " + dir + ": downloading its modules", "modules downloaded in ", "ready in ", "cd " + dir + " && go run . starts in seconds"} {
		if !strings.Contains(out, want) {
			t.Errorf("learn prepare says no %q:\n%s", want, out)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "main.go")); string(data) != mine {
		t.Error("the learner's main.go was replaced")
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Errorf("the skeleton's go.mod: %v", err)
	}
	build := exec.Command("go", "build", "-v", "-o", os.DevNull, ".")
	build.Dir = dir
	if got, err := build.CombinedOutput(); err != nil || len(bytes.TrimSpace(got)) != 0 {
		t.Errorf("a go build after learn prepare: %v, compiled:\n%s\nwant nothing compiled", err, got)
	}

	if out, err := run("learn", "prepare", "crd-basics", "--lang", "en"); err == nil || !strings.Contains(err.Error(), "lesson crd-basics has no controller to prepare") {
		t.Errorf("learn prepare crd-basics: %v\n%s", err, out)
	}
}
