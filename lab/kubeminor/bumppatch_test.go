package kubeminor_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/crdlab/crdlab/lab/kubeminor"
)

// notFollowed are the files of the repository that may name the built-in
// release after a bump, each for a reason: a record of a run, or a test's
// sample input that any version would do for.
var notFollowed = map[string]string{
	"docs/conformance.md":                        "a run's record: the e2e.test it ran (make conformance writes it again)",
	"docs/conformance/results.json":              "a run's record, as docs/conformance.md",
	"docs/boot.md":                               "a measurement: the releases its patches were checked on",
	"lab/kubeminor/releases_test.go":             "ParseReleases' sample lists",
	"lab/timeline/audit_test.go":                 "sample user agents",
	"lab/internal/actor/actor_test.go":           "sample user agents",
	"lab/lang/pseudo_test.go":                    "a sample kubectl output",
	"lab/labtest/install/install_test.go":        "a fake crdlab's output",
	"lab/internal/tools/release/release_test.go": "a fake crdlab's output",
	"lab/datadir.go":                             "an example in a comment",
}

// TestBumpingTheBuiltInPatch bumps the built-in minor's patch on a
// temporary copy of the repository: its line of minors.txt, then the
// generator (minorgen, as make components-modules runs it, without go mod
// tidy, which needs the new release on the module proxy). Nothing else is
// edited, and no file but a go.sum, which tidy writes, or one of
// notFollowed names the old release any more; minorgen -check then passes.
func TestBumpingTheBuiltInPatch(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	var old kubeminor.Release
	for _, r := range kubeminor.Releases() {
		if r.BuiltIn {
			old = r
		}
	}
	v, _ := kubeminor.ParseVersion(old.Kubernetes)
	patch, err := strconv.Atoi(strings.TrimPrefix(v.Rest, "."))
	if err != nil {
		t.Fatal(err)
	}
	// The next patch, of k8s.io/kubernetes and of the staging modules.
	next := func(s string) string {
		return strings.TrimSuffix(s, "."+strconv.Itoa(patch)) + "." + strconv.Itoa(patch+1)
	}
	bumped := kubeminor.Release{Minor: old.Minor, Kubernetes: next(old.Kubernetes), Staging: next(old.Staging), BuiltIn: true}

	repo := copyRepo(t, root)
	list := filepath.Join(repo, filepath.FromSlash(kubeminor.File))
	data, err := os.ReadFile(list)
	if err != nil {
		t.Fatal(err)
	}
	line := old.Kubernetes + "     " + old.Staging
	if !strings.Contains(string(data), line) {
		t.Fatalf("%s has no line with %q", kubeminor.File, line)
	}
	data = []byte(strings.Replace(string(data), line, bumped.Kubernetes+"    "+bumped.Staging, 1))
	if err := os.WriteFile(list, data, 0o644); err != nil {
		t.Fatal(err)
	}

	// Before the generator, the copy is stale: minorgen -check says so.
	if out, err := runErr(root, nil, "go", "run", "./lab/internal/tools/minorgen", "-root", repo, "-check"); err == nil || !strings.Contains(out, "go.mod (Kubernetes "+bumped.Kubernetes+", built in)") {
		t.Errorf("minorgen -check on the bumped list passed or did not name go.mod: %v\n%s", err, out)
	}
	run(t, root, nil, "go", "run", "./lab/internal/tools/minorgen", "-root", repo, "-tidy=false")
	run(t, root, nil, "go", "run", "./lab/internal/tools/minorgen", "-root", repo, "-check")

	for file, says := range map[string][]string{
		"go.mod": {"\tk8s.io/kubernetes " + bumped.Kubernetes + "\n", "\tk8s.io/api => k8s.io/api " + bumped.Staging + "\n",
			"\tk8s.io/api " + bumped.Staging + "\n"},
		"lab/internal/tools/conformance/go.mod":                   {"k8s.io/kubernetes " + bumped.Kubernetes + "\n", "\tk8s.io/client-go => k8s.io/client-go " + bumped.Staging + "\n"},
		"scenarios/lessons/_files/operator/controller/go.mod.txt": {"\tk8s.io/api " + bumped.Staging + "\n"},
		"lab/multicall/hooks.go":                                  {"Kubernetes " + old.Minor + ", the minor", "informername.Set"},
	} {
		b, err := os.ReadFile(filepath.Join(repo, filepath.FromSlash(file)))
		if err != nil {
			t.Error(err)
			continue
		}
		for _, s := range says {
			if !strings.Contains(string(b), s) {
				t.Errorf("%s after the bump lacks %q", file, s)
			}
		}
	}

	// Nothing else names the old release.
	err = filepath.WalkDir(repo, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(repo, path)
		rel = filepath.ToSlash(rel)
		if _, ok := notFollowed[rel]; ok || strings.HasSuffix(rel, "go.sum") || strings.HasSuffix(rel, "go.sum.txt") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, old.Kubernetes) || strings.Contains(l, old.Staging) {
				t.Errorf("%s:%d still names %s after the bump (a hand edit a bump would need): %s", rel, i+1, old.Kubernetes, strings.TrimSpace(l))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
