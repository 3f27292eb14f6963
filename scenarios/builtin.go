package scenarios

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/crdlab/crdlab/fixtures"
	"github.com/crdlab/crdlab/scenarios/format"
)

// builtinFS holds the built-in scenarios (builtin/NAME.yaml) and the files
// they apply.
//
//go:embed builtin
var builtinFS embed.FS

// order is the order the built-in scenarios are listed and run in: from the
// first control loop to the operators.
var order = []string{
	"delete-pod", "bare-pod", "scale", "invalid-cr", "crd-missing", "crd-versions", "webhook", "admission-policy",
	"cascade-delete", "namespace-delete", "node-failure", "controller-down", "operator-scale", "finalizer",
	"backup", "aggregated-api", "autoscale", "scale-out",
}

// Builtin returns the built-in scenarios, in order.
func Builtin() ([]*Scenario, error) {
	entries, err := fs.Glob(builtinFS, "builtin/*.yaml")
	if err != nil {
		return nil, err
	}
	rank := map[string]int{}
	for i, n := range order {
		rank[n] = i + 1
	}
	var out []*Scenario
	for _, e := range entries {
		s, err := loadBuiltin(e)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool {
		ri, rj := rank[out[i].Metadata.Name], rank[out[j].Metadata.Name]
		if ri == 0 || rj == 0 {
			return ri != 0 || (rj == 0 && out[i].Metadata.Name < out[j].Metadata.Name)
		}
		return ri < rj
	})
	return out, nil
}

// Names lists the built-in scenarios.
func Names() []string {
	all, _ := Builtin()
	var out []string
	for _, s := range all {
		out = append(out, s.Metadata.Name)
	}
	return out
}

func loadBuiltin(name string) (*Scenario, error) {
	data, err := builtinFS.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return format.Parse(name, data, readBuiltin)
}

// readBuiltin reads the files built-in scenarios apply: next to them in
// builtin/, or the sample manifests (fixtures/...) users find in the repo.
func readBuiltin(name string) ([]byte, error) {
	if rest, ok := strings.CutPrefix(name, "fixtures/"); ok {
		return fixtures.FS.ReadFile(rest)
	}
	return builtinFS.ReadFile(path.Join("builtin", name))
}

// Load returns the built-in scenario of that name, or, when arg is a file
// (it has a / or ends in .yaml or .yml), the scenario in that file.
func Load(arg string) (*Scenario, error) {
	if strings.ContainsRune(arg, '/') || strings.HasSuffix(arg, ".yaml") || strings.HasSuffix(arg, ".yml") {
		if isLessonFile(arg) {
			return LoadLesson(arg) // its files are in its folder
		}
		return format.LoadFile(arg)
	}
	if _, err := builtinFS.ReadFile("builtin/" + arg + ".yaml"); err == nil {
		return loadBuiltin("builtin/" + arg + ".yaml")
	}
	if _, err := os.Stat(arg); err == nil {
		return format.LoadFile(arg)
	}
	return nil, &NotFoundError{Name: arg}
}

// NotFoundError: Load found no built-in scenario and no file of the name.
type NotFoundError struct{ Name string }

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no scenario %q: built-in scenarios are %s; or give a file", e.Name, strings.Join(Names(), ", "))
}
