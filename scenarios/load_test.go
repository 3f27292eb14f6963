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

	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/lab/timeline"
)

// Every built-in scenario loads: strict decoding, every file it applies
// exists and decodes, every CEL expression compiles.
func TestBuiltinScenariosLoad(t *testing.T) {
	all, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"delete-pod", "bare-pod", "scale", "invalid-cr", "crd-missing", "crd-versions", "webhook", "admission-policy",
		"cascade-delete", "namespace-delete", "node-failure", "controller-down", "operator-scale", "finalizer",
		"backup", "aggregated-api", "autoscale", "scale-out"}
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
			got := strings.Join(match(lang.EN, tc.want, actual, ""), "; ")
			if !strings.HasPrefix(got, tc.diff) || (tc.diff == "") != (got == "") {
				t.Errorf("diff %q, want %q", got, tc.diff)
			}
		})
	}
}

func TestJUnitIsValidXML(t *testing.T) {
	started := time.Now()
	results := []*Result{
		{Scenario: "a", Title: "A", Status: Passed, Duration: time.Second, Namespace: "ns", Steps: []StepResult{{Index: 1, Description: "apply x", Status: Passed,
			Timeline: []timeline.Event{{Time: started.Add(1500 * time.Millisecond), Actor: "you (scenario)", Verb: timeline.Create, Kind: "Deployment", Namespace: "ns", Name: "web", Revision: 7}}}}},
		{Scenario: "b", Title: "B", Status: Failed, Steps: []StepResult{
			{Index: 1, Description: "expect <x> & y", Status: Failed, Message: "not true\ndiff: a \"b\""},
			{Index: 2, Description: "wait", Status: Skipped, Message: "skipped"},
		}},
		{Scenario: "c", Title: "C", Status: Skipped, Message: "needs nodes"},
	}
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, results, started); err != nil {
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
	// A step's timeline lines are its system-out, as the text report prints them.
	if out, want := back.Suites[0].Cases[0].SystemOut, "  +1.500s  you (scenario)       CREATE  deployment/web\n"; out != want {
		t.Errorf("system-out of step 1: %q, want %q", out, want)
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
