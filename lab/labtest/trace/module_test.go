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

// A project on a newer controller-runtime than the wrapper's keeps its
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
)

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
