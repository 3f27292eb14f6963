package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crdlab/crdlab/scenarios"
)

// hintCode is the code of a hint of the operator lesson's task: its
// indented lines, as the learner pastes them.
func hintCode(t *testing.T, task string, hint int) string {
	t.Helper()
	lesson, err := scenarios.LoadLesson("operator")
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range lesson.Spec.Steps {
		if st.Name != task || st.Task == nil {
			continue
		}
		var code []string
		for _, line := range strings.Split(st.Task.Hints[hint-1], "\n") {
			if rest, ok := strings.CutPrefix(line, "  "); ok {
				code = append(code, rest)
			}
		}
		if len(code) == 0 {
			t.Fatalf("task %q: hint %d has no code", task, hint)
		}
		return strings.Join(code, "\n") + "\n"
	}
	t.Fatalf("the lesson operator has no task %q", task)
	return ""
}

// buildOperator builds the operator lesson's skeleton: as given, or
// completed with the code of its hints, pasted where they say.
func buildOperator(t *testing.T, c *cli, complete bool) *learnerController {
	t.Helper()
	dir := c.file("operator", "controller")
	skeleton, err := os.ReadFile(filepath.Join(dir, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(skeleton)
	if complete {
		for _, r := range []struct{ old, new string }{
			// The status, in place of Reconcile's last return.
			{"\treturn ctrl.Result{}, nil\n}\n\n// editDirectory", hintCode(t, "a status subresource, and Ready with observedGeneration", 3) + "}\n\n// editDirectory"},
			// The finalizer, before the directory's entry.
			{"\t// The User's entry in the shared directory.", hintCode(t, "a finalizer on every User", 1) + "\t// The User's entry in the shared directory."},
			// The clean-up, in place of the deletion branch's return.
			{"\t\treturn ctrl.Result{}, nil\n\t}\n\n\t// TODO(you), finalizer: put", hintCode(t, "delete bob, and the directory is cleaned up first", 2) + "\t}\n\n\t// TODO(you), finalizer: put"},
			// The owner reference.
			{"\t\t// TODO(you), owner:", hintCode(t, "each ConfigMap owned by its User", 1) + "\t\t// TODO(you), owner:"},
		} {
			if !strings.Contains(src, r.old) {
				t.Fatalf("the skeleton has no %q", r.old)
			}
			src = strings.Replace(src, r.old, r.new, 1)
		}
	}
	work := t.TempDir()
	for _, f := range []string{"go.mod", "go.sum"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatalf("the lesson's module: %v", err)
		}
		c.write(filepath.Join(work, f), string(data))
	}
	c.write(filepath.Join(work, "main.go"), src)
	bin := filepath.Join(work, "user-operator")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = work
	build.Env = append(os.Environ(), "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=readonly"))
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build of the skeleton (completed: %v): %v\n%s", complete, err, out)
	}
	return &learnerController{t: t, bin: bin}
}

// Lesson operator: the skeleton as given makes the ConfigMaps and the
// directory's entries but no status, and the first task waits, also once
// the CRD has the status subresource (the hint's kubectl patch); completed
// with the hints' code, pasted as they are, the Operator passes every
// task: Ready catches up with the lesson's change of alice's spec, bob's
// deletion waits for the directory's clean-up, and the garbage collector
// deletes alice's ConfigMap with her.
func playOperator(t *testing.T, c *cli) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command: the learner's Operator cannot be built")
	}
	l := c.startLesson("operator")
	l.waitFor("▶ operator", "Your task")
	asGiven := buildOperator(t, c, false)
	complete := buildOperator(t, c, true)

	task := "a status subresource, and Ready with observedGeneration"
	asGiven.start(c)
	l.stillOpen(task)
	// The hint's patch, for each version the CRD serves (versions-admission,
	// played before, adds v1).
	versions := strings.Fields(c.kubectl("", "get", "crd", "users.auth.ilinux.io", "-o", "jsonpath={.spec.versions[*].name}"))
	for i := range versions {
		c.kubectl("", "patch", "crd", "users.auth.ilinux.io", "--type", "json", "-p",
			strings.ReplaceAll(`[{"op":"add","path":"/spec/versions/0/subresources","value":{"status":{}}},{"op":"add","path":"/spec/versions/0/schema/openAPIV3Schema/properties/status","value":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}]`,
				"/versions/0/", fmt.Sprintf("/versions/%d/", i)))
	}
	l.waitFor("▶ operator", "alice's status.conditions has Ready")
	l.stillOpen(task)
	asGiven.stop()
	complete.start(c)
	l.done(task)
	// The complete Operator has done these already: each holds with what
	// is there.
	l.waitFor("✓ observedGeneration catches up with a spec change", "done")
	l.waitFor("✓ a finalizer on every User", "done")

	task = "delete bob, and the directory is cleaned up first"
	l.stillOpen(task)
	c.kubectl("", "delete", "user", "bob", "--timeout=2m")
	l.done(task)
	// The narration's clean-up: this Operator owned user-bob already, and
	// the garbage collector may have deleted it.
	c.kubectl("", "delete", "configmap", "user-bob", "--ignore-not-found")
	l.waitFor("✓ each ConfigMap owned by its User", "done")
	c.kubectl("", "delete", "user", "alice", "--timeout=2m")
	l.done("delete alice, and the garbage collector deletes her ConfigMap")
	if out, code := l.wait(); code != 0 || !strings.Contains(out, "PASS operator") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}
