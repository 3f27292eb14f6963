package kubeminor_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/crdlab/crdlab/lab/labtest/release"
)

// fakeMinor is the minor TestAddingAMinor adds, older than every other so
// that it is also the new oldest: a real release, so that the module
// generator finds its go.mod on the module proxy.
const fakeMinor, fakeLine = "1.34", "1.34     v1.34.0     v0.34.0\n"

// TestAddingAMinor adds a minor to a temporary copy of minors.txt, one
// line, and shows that each consumer of the list picks it up with no other
// edit: the Makefile's lists, the components module generator, the
// release's names and index.json, and crdlab itself (built with the copy
// in place of the embedded file: --help, the error for a minor not served,
// the search for the new minor's components executable, version).
func TestAddingAMinor(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("minors.txt")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	list := filepath.Join(tmp, "minors.txt")
	// The list is oldest first: the new line goes before the first minor.
	first := bytes.Index(data, []byte("\n1.")) + 1
	added := append(append(append([]byte{}, data[:first]...), fakeLine...), data[first:]...)
	if err := os.WriteFile(list, added, 0o644); err != nil {
		t.Fatal(err)
	}

	var minors []string // the components minors, as make prints them
	t.Run("Makefile", func(t *testing.T) {
		out := run(t, root, nil, "make", "-s", "--no-print-directory", "print-minors", "MINORS_FILE="+list)
		vars := map[string]string{}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			k, v, _ := strings.Cut(line, "=")
			vars[k] = v
		}
		want := map[string]string{"K8S_MINORS": "1.34 1.35 1.36 1.38", "K8S_OLDEST": fakeMinor, "K8S_BUILTIN": "1.37"}
		for k, v := range want {
			if vars[k] != v {
				t.Errorf("make print-minors: %s=%q, want %q (all: %q)", k, vars[k], v, out)
			}
		}
		minors = strings.Fields(vars["K8S_MINORS"])
	})

	t.Run("components module", func(t *testing.T) {
		// minorgen's check against the repository fails: the new minor's
		// module is not there yet.
		if out, err := runErr(root, nil, "go", "run", "./lab/internal/tools/minorgen", "-check", "-minors", list); err == nil ||
			!strings.Contains(out, filepath.Join("lab", "components", fakeMinor)) {
			t.Errorf("minorgen -check with the new line passed or did not name its module: %v\n%s", err, out)
		}
		gen := copyRepo(t, root)
		run(t, root, nil, "go", "run", "./lab/internal/tools/minorgen", "-root", gen, "-minors", list, "-tidy=false")
		dir := filepath.Join(gen, "lab", "components", fakeMinor)
		for file, says := range map[string][]string{
			"go.mod":               {"module github.com/crdlab/crdlab/lab/components/1.34", "k8s.io/kubernetes => k8s.io/kubernetes v1.34.0", "k8s.io/api => k8s.io/api v0.34.0", "github.com/crdlab/crdlab => ../../.."},
			"main.go":              {"Command crdlab-k8s-1.34", `"github.com/crdlab/crdlab/lab/components/1.34/fasthelp"`, "kubecmd.Run()"},
			"main_test.go":         {`componentstest.Want{Minor: "1.34", Kubernetes: "v1.34.0"}`},
			"fasthelp/fasthelp.go": {"Kubernetes 1.34's"},
		} {
			b, err := os.ReadFile(filepath.Join(dir, file))
			if err != nil {
				t.Error(err)
				continue
			}
			for _, s := range says {
				if !strings.Contains(string(b), s) {
					t.Errorf("%s of the new minor lacks %q:\n%s", file, s, b)
				}
			}
		}
	})

	t.Run("release", func(t *testing.T) {
		if len(minors) == 0 {
			t.Skip("the Makefile's list failed")
		}
		const version = "v0.0.0-addminor"
		platform := runtime.GOOS + "/" + runtime.GOARCH
		bin := filepath.Join(tmp, "bin", runtime.GOOS+"-"+runtime.GOARCH)
		for _, name := range append([]string{release.Binary}, componentsBinaries(minors)...) {
			if err := os.MkdirAll(bin, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		out := filepath.Join(tmp, "dist")
		run(t, root, nil, "go", "run", "./lab/internal/tools/release", "package", "-version", version, "-out", out,
			"-bin", filepath.Join(tmp, "bin"), "-components", strings.Join(minors, " "),
			"-signing-key", filepath.Join("lab", "labtest", "internal", "releasetest", "testdata", "test-only-release-signing-key.pem"), platform)
		b, err := os.ReadFile(filepath.Join(out, release.IndexFile))
		if err != nil {
			t.Fatal(err)
		}
		idx, err := release.ParseIndex(b)
		if err != nil {
			t.Fatal(err)
		}
		name, a, err := idx.ComponentsArchive(version, fakeMinor, runtime.GOOS, runtime.GOARCH)
		if err != nil || a.Kubernetes != fakeMinor || name != release.ComponentsArchiveName(fakeMinor, version, runtime.GOOS, runtime.GOARCH) {
			t.Errorf("index.json's archive of the new minor: %q %+v %v", name, a, err)
		}
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Error(err)
		}
	})

	t.Run("crdlab", func(t *testing.T) {
		overlay, err := json.Marshal(map[string]any{"Replace": map[string]string{filepath.Join(root, "lab", "kubeminor", "minors.txt"): list}})
		if err != nil {
			t.Fatal(err)
		}
		ov := filepath.Join(tmp, "overlay.json")
		if err := os.WriteFile(ov, overlay, 0o644); err != nil {
			t.Fatal(err)
		}
		crdlab := filepath.Join(tmp, "crdlab")
		run(t, root, nil, "go", "build", "-overlay", ov, "-o", crdlab, "./cmd/crdlab")
		home := t.TempDir()
		env := []string{"HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, "cache"), "CRDLAB_COMPONENTS_DIR=" + t.TempDir(), "CRDLAB_KUBERNETES_VERSION="}

		if out := run(t, tmp, env, crdlab, "up", "--help"); !strings.Contains(out, "1.34, 1.35, 1.36, 1.37 or 1.38 (preview)") || !strings.Contains(out, "--kubernetes 1.34, 1.35, 1.36 or 1.38") {
			t.Errorf("up --help does not list the new minor:\n%s", out)
		}
		out, err := runErr(tmp, env, crdlab, "envtest", "--kubernetes", "1.33")
		if err == nil || !strings.Contains(out, "--kubernetes 1.33: not supported; crdlab serves Kubernetes 1.34, 1.35, 1.36, 1.37 and 1.38") {
			t.Errorf("envtest --kubernetes 1.33: %v\n%s", err, out)
		}
		out, err = runErr(tmp, env, crdlab, "envtest", "--kubernetes", "1.34.0")
		if err == nil || !strings.Contains(out, "crdlab-k8s-1.34: components executable not found") || !strings.Contains(out, "make components K8S=1.34") {
			t.Errorf("envtest --kubernetes 1.34.0 without its components: %v\n%s", err, out)
		}
		if out := run(t, tmp, env, crdlab, "version"); !strings.Contains(out, "  1.34  not found") {
			t.Errorf("version does not list the new minor:\n%s", out)
		}
	})
}

// copyRepo copies crdlab's repository at root (its files git tracks, and
// new ones not ignored) to a temporary folder and returns the folder.
func copyRepo(t *testing.T, root string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "repo")
	files := run(t, root, nil, "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	for _, name := range strings.Split(strings.TrimRight(files, "\x00"), "\x00") {
		data, err := os.ReadFile(filepath.Join(root, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted, not yet committed
		}
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dst, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func componentsBinaries(minors []string) []string {
	var out []string
	for _, m := range minors {
		out = append(out, release.ComponentsBinary(m))
	}
	return out
}

// run runs name in dir with env added, failing the test when it fails; it
// returns stdout and stderr.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	out, err := runErr(dir, env, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return out
}

func runErr(dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}
