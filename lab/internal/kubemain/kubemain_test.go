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
