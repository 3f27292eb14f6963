package kubemain

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The test binary runs, under a name of testComponents, as that component:
// what Run does for a multi-call program.
var testComponents = map[string]func([]string) int{
	"echo-args": func(args []string) int {
		os.Stdout.WriteString(strings.Join(args[1:], " ") + "\n")
		return 3
	},
}

func init() {
	Run(testComponents)
}

func TestRunDispatchesByName(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := Link(t.TempDir(), []string{"echo-args", KubeAPIServer})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"echo-args", KubeAPIServer} {
		target, err := os.Readlink(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if resolved, _ := filepath.EvalSymlinks(self); target != resolved {
			t.Errorf("%s links to %s, want this executable %s", name, target, resolved)
		}
	}
	if _, err := Link(dir, []string{"echo-args"}); err != nil {
		t.Fatalf("linking again: %v", err)
	}

	out, err := exec.Command(filepath.Join(dir, "echo-args"), "a", "b").Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Fatalf("echo-args: %v, want exit status 3 (the component's)", err)
	}
	if string(out) != "a b\n" {
		t.Errorf("echo-args printed %q, want its arguments", out)
	}
}

// Only a version set at link time makes a release: a build from a checkout
// carries the version the Go toolchain stamps (a pseudo-version of the
// commit, which looks like a release's), and must not download components.
func TestBuildVersionsReleaseOnlyWhenLinkedIn(t *testing.T) {
	if v := BuildVersions(""); v.Release {
		t.Errorf("BuildVersions(\"\") = %+v: a test binary is no release", v)
	}
	if v := BuildVersions("v0.1.0"); !v.Release || v.Crdlab != "v0.1.0" {
		t.Errorf("BuildVersions(\"v0.1.0\") = %+v, want Crdlab v0.1.0 and Release", v)
	}
}
