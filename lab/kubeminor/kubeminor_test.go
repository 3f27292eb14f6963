package kubeminor_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crdlab/crdlab/lab/internal/kubeversion"
	"github.com/crdlab/crdlab/lab/kubeminor"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{in: "1.36", want: "1.36"},
		{in: "v1.36", want: "1.36"},
		{in: "1.36.5", want: "1.36"},
		{in: "v1.35.8", want: "1.35"},
		{in: "1.37", want: "1.37"},
		{in: "1.20", err: "--kubernetes 1.20: not supported; crdlab serves Kubernetes 1.35, 1.36, 1.37 and 1.38"},
		{in: "1.99", err: "--kubernetes 1.99: not supported; crdlab serves Kubernetes 1.35, 1.36, 1.37 and 1.38"},
		{in: "latest", err: "--kubernetes latest: not supported; crdlab serves Kubernetes 1.35, 1.36, 1.37 and 1.38"},
		{in: "1.36.4", err: "--kubernetes 1.36.4: not supported; crdlab serves Kubernetes 1.36 as v1.36.5: give 1.36"},
	} {
		got, err := kubeminor.Parse("--kubernetes", tc.in)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err || !errors.Is(err, kubeminor.ErrUnsupported) {
				t.Errorf("Parse(%q) = %q, %v; want the error %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestChooseNamesTheVariable(t *testing.T) {
	t.Setenv(kubeminor.Env, "")
	if got, err := kubeminor.Choose(""); err != nil || got != kubeminor.BuiltIn {
		t.Errorf("Choose with nothing set = %q, %v; want %s", got, err, kubeminor.BuiltIn)
	}
	t.Setenv(kubeminor.Env, "1.35")
	if got, err := kubeminor.Choose(""); err != nil || got != "1.35" {
		t.Errorf("Choose with %s=1.35 = %q, %v", kubeminor.Env, got, err)
	}
	if got, err := kubeminor.Choose("1.36"); err != nil || got != "1.36" {
		t.Errorf("Choose(1.36) with %s=1.35 = %q, %v; the flag wins", kubeminor.Env, got, err)
	}
	t.Setenv(kubeminor.Env, "1.20")
	want := "CRDLAB_KUBERNETES_VERSION 1.20: not supported; crdlab serves Kubernetes 1.35, 1.36, 1.37 and 1.38"
	if _, err := kubeminor.Choose(""); err == nil || err.Error() != want {
		t.Errorf("Choose with %s=1.20: %v; want %q", kubeminor.Env, err, want)
	}
}

// The built-in minor's patch is the k8s.io/kubernetes of crdlab's go.mod
// (minorgen writes it from minors.txt), and what the components compiled
// in report when the program has no build information on its modules.
func TestBuiltInPatchIsGoMods(t *testing.T) {
	patch := kubeminor.Patch(kubeminor.BuiltIn)
	mod, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(mod), "\n\tk8s.io/kubernetes "+patch+"\n") {
		t.Errorf("go.mod does not require k8s.io/kubernetes %s, the built-in line's (go run ./lab/internal/tools/minorgen writes it)", patch)
	}
	if kubeversion.Kubernetes != patch {
		t.Errorf("kubeversion.Kubernetes = %s, want %s", kubeversion.Kubernetes, patch)
	}
}

func TestWithinSkew(t *testing.T) {
	for a, want := range map[string]bool{"1.37": true, "1.36": true, "1.35": false} {
		if got := kubeminor.WithinSkew(a, "1.37"); got != want {
			t.Errorf("WithinSkew(%s, 1.37) = %v, want %v", a, got, want)
		}
	}
}

// fakeComponents writes an executable to dir that prints versions as a
// components executable built from commit 0123456789ab does.
func fakeComponents(t *testing.T, dir, minor, kubernetes string) string {
	t.Helper()
	path := filepath.Join(dir, kubeminor.Name(minor))
	script := "#!/bin/sh\n[ \"$1\" = version ] || exit 2\necho '{\"crdlab\":\"(devel) 0123456789ab\",\"kubernetes\":\"" + kubernetes + "\",\"go\":\"go1.26.0\"}'\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o755); err != nil { // whatever the umask
		t.Fatal(err)
	}
	return path
}

func TestFind(t *testing.T) {
	ctx := context.Background()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	self := filepath.Join(t.TempDir(), "crdlab")
	w := kubeminor.Where{Self: self, Crdlab: "(devel) 0123456789ab"}
	if err := os.WriteFile(self, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	components := t.TempDir()
	t.Setenv(kubeminor.DirEnv, components)

	// Nowhere: the error says where it looked and how to build it.
	_, err := kubeminor.Find(ctx, "1.36", w)
	if !errors.Is(err, kubeminor.ErrNotFound) {
		t.Fatalf("Find with nothing there: %v; want ErrNotFound", err)
	}
	for _, want := range []string{"crdlab-k8s-1.36", components, filepath.Dir(self), filepath.Join("crdlab", "components", "devel-0123456789ab"), "make components K8S=1.36", kubeminor.DirEnv} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("not-found error %q does not name %q", err, want)
		}
	}

	// Next to crdlab.
	beside := fakeComponents(t, filepath.Dir(self), "1.36", "v1.36.5")
	c, err := kubeminor.Find(ctx, "1.36", w)
	if err != nil || c.Path != beside || c.Versions.Kubernetes != "v1.36.5" {
		t.Fatalf("Find next to crdlab = %+v, %v; want %s", c, err, beside)
	}
	// CRDLAB_COMPONENTS_DIR first.
	first := fakeComponents(t, components, "1.36", "v1.36.5")
	if c, err = kubeminor.Find(ctx, "1.36", w); err != nil || c.Path != first {
		t.Fatalf("Find with %s = %+v, %v; want %s", kubeminor.DirEnv, c, err, first)
	}
	// One of another minor is refused, naming the file.
	wrong := fakeComponents(t, components, "1.35", "v1.36.5")
	_, err = kubeminor.Find(ctx, "1.35", w)
	if !errors.Is(err, kubeminor.ErrWrongVersion) || !strings.Contains(err.Error(), wrong) || !strings.Contains(err.Error(), "v1.36.5") {
		t.Errorf("Find of a 1.36 executable named crdlab-k8s-1.35: %v; want ErrWrongVersion naming %s", err, wrong)
	}
	// The built-in minor has none.
	if _, err := kubeminor.Find(ctx, kubeminor.BuiltIn, w); err == nil {
		t.Errorf("Find(%s) found a components executable for the built-in minor", kubeminor.BuiltIn)
	}
}

// A release build downloads (step 3), a build of the repository does not;
// NoDownload only looks.
func TestHereDownloadsForAReleaseOnly(t *testing.T) {
	if !kubeminor.Here("v0.2.0", true).Release || kubeminor.Here("(devel) 0123456789ab", false).Release ||
		kubeminor.Here("v0.0.0-20261204210220-e2e3471f1080 e2e3471f1080", false).Release || kubeminor.Here("", true).Release {
		t.Errorf("Here: a release is v0.2.0 only")
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv(kubeminor.DirEnv, t.TempDir())
	self := filepath.Join(t.TempDir(), "crdlab")
	w := kubeminor.Here("v0.2.0", true)
	w.Self, w.NoDownload = self, true
	if err := os.WriteFile(self, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := kubeminor.Find(context.Background(), "1.35", w); !errors.Is(err, kubeminor.ErrNotFound) {
		t.Errorf("Find for a release without download: %v; want ErrNotFound", err)
	}
}
