package scenarios

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crdlab/crdlab/lab/timeline"
)

// Every built-in scenario loads: strict decoding, every file it applies
// exists and decodes, every CEL expression compiles.
func TestBuiltinScenariosLoad(t *testing.T) {
	all, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"delete-pod", "scale", "invalid-cr", "crd-missing", "cascade-delete", "namespace-delete",
		"node-failure", "controller-down", "operator-scale", "finalizer", "backup"}
	if got := Names(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("built-in scenarios %v, want %v", got, want)
	}
	for _, s := range all {
		if s.Spec.Explanation == "" || s.Spec.Concept == "" {
			t.Errorf("%s: a built-in scenario needs a concept and an explanation", s.Metadata.Name)
		}
		if !strings.HasSuffix(s.Source(), "/"+s.Metadata.Name+".yaml") {
			t.Errorf("%s is in %s: name and file differ", s.Metadata.Name, s.Source())
		}
	}
}

// Every scenario file of the repository loads (docs examples, testdata);
// every one under testdata/invalid fails.
func TestScenarioFilesLoad(t *testing.T) {
	docs, _ := filepath.Glob("../docs/scenarios/*.yaml")
	valid, _ := filepath.Glob("testdata/*.yaml")
	for _, f := range append(docs, valid...) {
		if strings.HasSuffix(f, "-objects.yaml") {
			continue // what a scenario applies
		}
		if _, err := LoadFile(f); err != nil {
			t.Errorf("%v", err)
		}
	}
	invalid, _ := filepath.Glob("testdata/invalid/*.yaml")
	for _, f := range invalid {
		if _, err := LoadFile(f); err == nil {
			t.Errorf("%s loaded; it is invalid", f)
		}
	}
}

// Lint reports an unknown field, a bad duration and an unknown step, each
// with its file and line, all at once.
func TestLoadReportsEveryProblemWithItsLine(t *testing.T) {
	_, err := LoadFile("testdata/invalid/three-problems.yaml")
	if err == nil {
		t.Fatal("loaded")
	}
	want := []string{
		`testdata/invalid/three-problems.yaml:7: spec.timeout: bad duration "30"`,
		`testdata/invalid/three-problems.yaml:10: spec.steps[0]: unknown field "colour" in a narrate step`,
		`testdata/invalid/three-problems.yaml:11: spec.steps[1]: unknown step "sleep"`,
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%v", len(lines), len(want), err)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("problem %d:\n got %s\nwant %s…", i, lines[i], w)
		}
	}
}

func TestLoadProblems(t *testing.T) {
	head := "apiVersion: crdlab.dev/v1alpha1\nkind: Scenario\nmetadata: {name: x}\nspec:\n  title: t\n  steps:\n"
	for _, tc := range []struct{ name, yaml, want string }{
		{"wrong type", head + "  - scale: {apiVersion: v1, kind: X, name: a, replicas: many}\n", `:7: spec.steps[0].scale.replicas: wrong type: "many" is a string, want an integer`},
		{"two actions", head + "  - narrate: a\n    wait: 1s\n", ":7: spec.steps[0]: more than one action"},
		{"no action", head + "  - name: nothing\n", ":7: spec.steps[0]: no action"},
		{"bad selector", head + "  - delete: {apiVersion: v1, kind: Pod, selector: 'a in ('}\n", `:7: spec.steps[0]: delete: selector "a in ("`},
		{"bad CEL", head + "  - expect: {resource: {apiVersion: v1, kind: Pod}, cel: 'objects.size() =='}\n", ":7: spec.steps[0]: expect.cel: "},
		{"CEL not bool", head + "  - expect: {resource: {apiVersion: v1, kind: Pod}, cel: 'objects.size()'}\n", "want a bool"},
		{"missing file", head + "  - apply: {file: nope.yaml}\n", `:7: spec.steps[0]: apply.file "nope.yaml": file does not exist`},
		{"wrong kind", strings.Replace(head, "kind: Scenario", "kind: Scenery", 1) + "  - wait: 1s\n", `:2: kind is "Scenery", want Scenario`},
		{"no steps", strings.TrimSuffix(head, "  steps:\n") + "\n", "spec.steps is required"},
		{"second document", head + "  - wait: 1s\n---\nfoo: bar\n", "a second YAML document"},
		{"not yaml", "a: [", "did not find expected"},
		{"empty", "", "empty file"},
		{"negative duration", head + "  - wait: -1s\n", `bad duration "-1s"`},
		{"code", head + "  - expectError: {delete: {apiVersion: v1, kind: Pod, name: a}, code: 200}\n", "want an HTTP error status"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("f.yaml", []byte(tc.yaml), func(string) ([]byte, error) { return nil, os.ErrNotExist })
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

// The loader never panics, whatever it is given.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("builtin/*.yaml")
	more, _ := filepath.Glob("testdata/*/*.yaml")
	for _, p := range append(seeds, more...) {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("spec: {steps: [{expect: {object: {metadata: 3}}}]}"))
	f.Add([]byte("spec: {steps: [{apply: {object: {apiVersion: 1}}}, {wait: 1}]}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.yaml", data, func(string) ([]byte, error) {
			return []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"), nil
		})
		if err == nil {
			r := &runner{s: s}
			for i := range s.Spec.Steps {
				_ = r.describe(&s.Spec.Steps[i])
			}
		}
	})
}

func TestMatch(t *testing.T) {
	actual := map[string]any{
		"metadata": map[string]any{"name": "web", "labels": map[string]any{"app": "web"}},
		"spec":     map[string]any{"replicas": int64(3)},
		"status": map[string]any{"conditions": []any{
			map[string]any{"type": "Progressing", "status": "True"},
			map[string]any{"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable"},
		}},
	}
	for _, tc := range []struct {
		name string
		want map[string]any
		diff string
	}{
		{"subset", map[string]any{"metadata": map[string]any{"name": "web"}}, ""},
		{"numbers by value", map[string]any{"spec": map[string]any{"replicas": 3.0}}, ""},
		{"list element anywhere", map[string]any{"status": map[string]any{"conditions": []any{map[string]any{"type": "Available", "status": "True"}}}}, ""},
		{"wrong value", map[string]any{"spec": map[string]any{"replicas": int64(4)}}, "spec.replicas: want 4, got 3"},
		{"missing", map[string]any{"spec": map[string]any{"paused": true}}, "spec.paused: want true, missing"},
		{"no list element", map[string]any{"status": map[string]any{"conditions": []any{map[string]any{"type": "Available", "status": "False"}}}},
			"status.conditions[0]: no element matches; closest: status.conditions[1].status: want \"False\", got \"True\""},
		{"two elements need two", map[string]any{"status": map[string]any{"conditions": []any{
			map[string]any{"status": "True"}, map[string]any{"status": "True"}, map[string]any{"status": "True"}}}},
			"status.conditions[2]: no element matches"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(match(tc.want, actual, ""), "; ")
			if !strings.HasPrefix(got, tc.diff) || (tc.diff == "") != (got == "") {
				t.Errorf("diff %q, want %q", got, tc.diff)
			}
		})
	}
}

func TestJUnitIsValidXML(t *testing.T) {
	results := []*Result{
		{Scenario: "a", Title: "A", Status: Passed, Duration: time.Second, Steps: []StepResult{{Index: 1, Description: "apply x", Status: Passed}}},
		{Scenario: "b", Title: "B", Status: Failed, Steps: []StepResult{
			{Index: 1, Description: "expect <x> & y", Status: Failed, Message: "not true\ndiff: a \"b\""},
			{Index: 2, Description: "wait", Status: Skipped, Message: "skipped"},
		}},
		{Scenario: "c", Title: "C", Status: Skipped, Message: "needs nodes"},
	}
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, results, time.Now()); err != nil {
		t.Fatal(err)
	}
	var back junitSuites
	if err := xml.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if back.Tests != 4 || back.Failures != 1 || back.Skipped != 2 || len(back.Suites) != 3 {
		t.Errorf("tests %d failures %d skipped %d suites %d:\n%s", back.Tests, back.Failures, back.Skipped, len(back.Suites), buf.String())
	}
	if f := back.Suites[1].Cases[0].Failure; f == nil || f.Text != "not true\ndiff: a \"b\"" {
		t.Errorf("failure %+v", f)
	}
}

func TestJSONListenerWritesOneObjectPerLine(t *testing.T) {
	var buf bytes.Buffer
	l := JSONListener(&buf)
	l(Entry{Type: "narrate", Text: "two\nlines"})
	l(Entry{Type: "event", Event: &timeline.Event{Actor: "scheduler", Verb: timeline.Bind, Kind: "Pod", Name: "p"}})
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines:\n%s", len(lines), buf.String())
	}
	for _, line := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Errorf("%q: %v", line, err)
		}
	}
}

var update = flag.Bool("update", false, "rewrite the generated docs")

// The format reference and JSON schema in docs/ are generated from the
// types; this fails when they are stale (-update rewrites them).
func TestGeneratedDocs(t *testing.T) {
	schema, err := JSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"../docs/scenario.schema.json": schema,
		"../docs/scenario-format.md":   []byte(FormatReference()),
	}
	all, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range all {
		page, err := Page(s)
		if err != nil {
			t.Fatal(err)
		}
		files["../docs/scenarios/"+s.Metadata.Name+".md"] = []byte(page)
	}
	for path, want := range files {
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run make generate", path)
		}
	}
}
