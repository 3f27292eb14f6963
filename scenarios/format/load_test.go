package format

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Lint reports an unknown field, a bad duration and an unknown step, each
// with its file and line, all at once.
func TestLoadReportsEveryProblemWithItsLine(t *testing.T) {
	_, err := LoadFile("../testdata/invalid/three-problems.yaml")
	if err == nil {
		t.Fatal("loaded")
	}
	want := []string{
		`../testdata/invalid/three-problems.yaml:7: spec.timeout: bad duration "30"`,
		`../testdata/invalid/three-problems.yaml:10: spec.steps[0]: unknown field "colour" in a narrate step`,
		`../testdata/invalid/three-problems.yaml:11: spec.steps[1]: unknown step "sleep"`,
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
		{"kubernetes not a range", head + "  - narrate: a\n    kubernetes: '>=v1.37.0'\n", `:8: spec.steps[0].kubernetes ">=v1.37.0": "v1.37.0" is not a Kubernetes minor`},
		{"kubernetes bad operator", head + "  - narrate: a\n    kubernetes: '=>1.37'\n", `:8: spec.steps[0].kubernetes "=>1.37": ">1.37" is not a Kubernetes minor`},
		{"kubernetes three bounds", head + "  - narrate: a\n    kubernetes: '>1.35, <1.38, =1.36'\n", `:8: spec.steps[0].kubernetes ">1.35, <1.38, =1.36": want one or two bounds`},
		{"kubernetes empty", head + "  - wait: 1s\n  - narrate: a\n    kubernetes: ' '\n", `:9: spec.steps[1].kubernetes " ": want one or two bounds`},
		{"kubernetes serves none", head + "  - narrate: a\n    kubernetes: '<1.30'\n", `:8: spec.steps[0].kubernetes "<1.30": no minor crdlab serves (1.35`},
		{"minKubernetes not a minor", strings.Replace(head, "  title: t\n", "  title: t\n  minKubernetes: v1.36.5\n", 1) + "  - wait: 1s\n", `:6: spec.minKubernetes "v1.36.5": want a Kubernetes minor, as 1.36`},
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
	seeds, _ := filepath.Glob("../builtin/*.yaml")
	more, _ := filepath.Glob("../testdata/*/*.yaml")
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
			for i := range s.Spec.Steps {
				_ = s.Spec.Steps[i].Describe()
			}
		}
	})
}
