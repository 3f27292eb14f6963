package linkname

import (
	"bufio"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestUpstreamSignatures checks every go:linkname of crdlab's source in
// every module that compiles it: the main module (the built-in minor) and
// each components module lab/components/<minor>, whose replace of
// github.com/crdlab/crdlab compiles the main module's packages against
// that minor (every such directive is checked in every components module,
// whether that module's executable uses its package or not). A directive
// of another module is checked in that module only.
//
// Each module resolves both packages ('go list -find' in its folder: it
// may download modules, it compiles nothing), and the two declarations'
// types are compared with go/types: our package's and upstream's own
// files are type-checked, every other import being a fake package that
// holds, as named types, just the names the files use (see doc.go for why
// that is sound). Seconds, for every minor.
func TestUpstreamSignatures(t *testing.T) {
	root, err := filepath.Abs("../../../..")
	if err != nil {
		t.Fatal(err)
	}
	ds, err := Scan(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) == 0 {
		t.Fatalf("no go:linkname found under %s: Scan is broken", root)
	}
	modules := map[string]string{root: "main module"}
	mods, err := filepath.Glob(filepath.Join(root, "lab/components/*/go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mods {
		modules[filepath.Dir(m)] = "lab/components/" + filepath.Base(filepath.Dir(m))
	}
	for _, d := range ds { // a directive of a module of its own
		if _, ok := modules[d.Module]; !ok {
			rel, err := filepath.Rel(root, d.Module)
			if err != nil {
				t.Fatal(err)
			}
			modules[d.Module] = filepath.ToSlash(rel)
		}
	}
	for _, minor := range components(t, filepath.Join(root, "lab/kubeminor/minors.txt")) {
		if _, ok := modules[filepath.Join(root, "lab/components", minor)]; !ok {
			t.Errorf("lab/kubeminor/minors.txt serves Kubernetes %s but lab/components/%s/go.mod is missing, so its go:linkname declarations are not checked (make components-modules)", minor, minor)
		}
	}
	for _, dir := range slices.Sorted(maps.Keys(modules)) {
		name := modules[dir]
		t.Run(name, func(t *testing.T) {
			var mine []Directive
			for _, d := range ds {
				if d.Module == root || d.Module == dir {
					mine = append(mine, d)
				}
			}
			errs := CheckModule(dir, mine)
			for _, err := range errs {
				t.Errorf("module %s: %v", name, err)
			}
			if len(errs) == 0 {
				t.Logf("%d go:linkname declarations agree with upstream's", len(mine))
			}
		})
	}
}

// components returns the minors of minors.txt that are not built in.
func components(t *testing.T, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var minors []string
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) < 3 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		if !slices.Contains(fields[3:], "built-in") {
			minors = append(minors, fields[0])
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return minors
}

// TestChangedUpstreamSignature checks the real ensureRBACPolicy
// directive against a copy of upstream's package, as the main module
// resolves it, with a parameter added: it must fail, naming both.
func TestChangedUpstreamSignature(t *testing.T) {
	root, err := filepath.Abs("../../../..")
	if err != nil {
		t.Fatal(err)
	}
	ds, err := Scan(root)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(ds, func(d Directive) bool { return d.Local == "ensureRBACPolicy" })
	if i < 0 {
		t.Fatal("no go:linkname ensureRBACPolicy in crdlab's source: change this test to another directive")
	}
	d := ds[i]
	up, _, err := d.Target()
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err := List(root, []string{d.Package, up})
	if err != nil {
		t.Fatal(err)
	}
	if err := NewChecker(pkgs).Compare(d); err != nil {
		t.Fatalf("unchanged: %v", err)
	}
	copied := *pkgs[up]
	copied.Dir = t.TempDir()
	changed := false
	for _, f := range copied.GoFiles {
		src, err := os.ReadFile(filepath.Join(pkgs[up].Dir, f))
		if err != nil {
			t.Fatal(err)
		}
		s := strings.Replace(string(src), "client clientset.Interface)", "client clientset.Interface, retries int)", 1)
		changed = changed || s != string(src)
		if err := os.WriteFile(filepath.Join(copied.Dir, f), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if !changed {
		t.Fatalf("no 'client clientset.Interface)' in %s to change", pkgs[up].Dir)
	}
	pkgs[up] = &copied
	err = NewChecker(pkgs).Compare(d)
	if err == nil || !strings.Contains(err.Error(), "differ in type") || !strings.Contains(err.Error(), "retries int") {
		t.Fatalf("want an error naming both signatures, got %v", err)
	}
	t.Logf("as wanted:\n%v", err)
}
