package trace_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The wrapper asks for controller-runtime v0.22, no newer than the
// Kubernetes libraries labtest already asks of a suite, and brings nothing
// of k8s.io/kubernetes nor of crdlab's main module.
func TestDependencies(t *testing.T) {
	graph := goCmd(t, ".", "mod", "graph")
	noKubernetes(t, graph)
	got := goCmd(t, ".", "list", "-m", "sigs.k8s.io/controller-runtime", "k8s.io/client-go")
	if !strings.Contains(got, "sigs.k8s.io/controller-runtime v0.22.") || !strings.Contains(got, "k8s.io/client-go v0.34.") {
		t.Errorf("the wrapper's own versions, want controller-runtime v0.22 on client-go v0.34:\n%s", got)
	}
}

// A project on a newer controller-runtime than the wrapper's (and, in
// crdlab's repository, on the main module's other versions) keeps its
// own: minimal version selection takes the newer, the wrapper builds
// against it, and k8s.io/kubernetes stays out.
func TestYourControllerRuntimeWins(t *testing.T) {
	here, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), `module example.com/yours

go 1.26.0

require (
	github.com/crdlab/crdlab/lab/labtest/trace v0.0.0
	sigs.k8s.io/controller-runtime v0.25.2
`+mainModuleRequires(t, filepath.Join(here, "..", "..", "..", "go.mod"))+`)

replace github.com/crdlab/crdlab/lab/labtest/trace => `+here+`

replace github.com/crdlab/crdlab/lab/labtest => `+filepath.Dir(here)+`
`)
	write(t, filepath.Join(dir, "main.go"), `package main

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crdlab/crdlab/lab/labtest/trace"
)

func main() {
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{NewClient: trace.NewClient})
	if err != nil {
		panic(err)
	}
	err = trace.ControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Owns(&corev1.Secret{}).
		Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			return reconcile.Result{}, nil
		}))
	if err != nil {
		panic(err)
	}
}
`)
	goCmd(t, dir, "mod", "tidy")
	got := goCmd(t, dir, "list", "-m", "sigs.k8s.io/controller-runtime", "k8s.io/client-go")
	if !strings.Contains(got, "sigs.k8s.io/controller-runtime v0.25.2") || !strings.Contains(got, "k8s.io/client-go v0.37.") {
		t.Errorf("your versions must win (controller-runtime v0.25.2 on client-go v0.37), got:\n%s", got)
	}
	noKubernetes(t, goCmd(t, dir, "mod", "graph"))
	goCmd(t, dir, "build", "-o", os.DevNull, ".")
}

func noKubernetes(t *testing.T, graph string) {
	t.Helper()
	for _, line := range strings.Split(graph, "\n") {
		if strings.Contains(line, "k8s.io/kubernetes@") || strings.Contains(line, "github.com/crdlab/crdlab@") {
			t.Errorf("go mod graph: %s", line)
		}
	}
}

// mainModuleRequires returns the requirements of crdlab's main module
// (gomod, its go.mod) as lines of a require block, each at the version
// the main module builds (its replace directives applied), but crdlab's
// own modules and k8s.io/kubernetes: the project of
// TestYourControllerRuntimeWins then selects the main module's version of
// each module it shares with it, so that its build reuses the packages go
// test compiled for the main module instead of compiling a client-go and
// a controller-runtime of its own (about 270 CPU-s, cold). Outside
// crdlab's repository (no gomod) it returns nothing: the project selects
// its versions alone.
func mainModuleRequires(t *testing.T, gomod string) string {
	t.Helper()
	data, err := os.ReadFile(gomod)
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	type requirement struct{ path, version string }
	var required []requirement
	replaced := map[string]string{}
	block := "" // the directive of the block the line is in
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		directive := block
		switch {
		case len(f) == 2 && f[1] == "(":
			block = f[0]
			continue
		case len(f) == 1 && f[0] == ")":
			block = ""
			continue
		case len(f) > 1 && (f[0] == "require" || f[0] == "replace"): // one line
			directive, f = f[0], f[1:]
		}
		switch {
		case directive == "require" && len(f) >= 2:
			required = append(required, requirement{f[0], f[1]})
		case directive == "replace" && len(f) == 4 && f[1] == "=>" && f[2] == f[0]: // path => path version
			replaced[f[0]] = f[3]
		}
	}
	var b strings.Builder
	for _, r := range required {
		if v, ok := replaced[r.path]; ok {
			r.version = v
		}
		if strings.HasPrefix(r.path, "github.com/crdlab/") || r.path == "k8s.io/kubernetes" ||
			r.path == "sigs.k8s.io/controller-runtime" || r.version == "v0.0.0" {
			continue
		}
		b.WriteString("\t" + r.path + " " + r.version + "\n")
	}
	return b.String()
}

func goCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	// The caller's GOFLAGS kept (make's): the build reuses the packages
	// its other builds compiled with them.
	cmd.Env = append(os.Environ(), "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=mod"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
