// Package guestbook holds the module's own checks: its dependencies, and
// that its suite leaves nothing running when 'go test' is killed.
package guestbook

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Using crdlab's labtest must not bring Kubernetes itself, nor replace any
// k8s.io module: this project's own client-go and controller-runtime win.
func TestDependencies(t *testing.T) {
	out, err := exec.Command("go", "mod", "graph").CombinedOutput()
	if err != nil {
		t.Fatalf("go mod graph: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "k8s.io/kubernetes") {
			t.Errorf("go mod graph lists k8s.io/kubernetes: %s", line)
		}
	}
	gomod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(gomod), "\n") {
		if f := strings.Fields(line); len(f) > 0 && (f[0] == "replace" || strings.HasPrefix(f[0], "k8s.io/")) &&
			strings.Contains(line, "=>") && strings.Contains(line, "k8s.io/") {
			t.Errorf("go.mod replaces a k8s.io module: %s", line)
		}
	}
	list, err := exec.Command("go", "list", "-m", "k8s.io/client-go", "sigs.k8s.io/controller-runtime").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -m: %v\n%s", err, list)
	}
	if !strings.Contains(string(list), "k8s.io/client-go v0.34.") || !strings.Contains(string(list), "sigs.k8s.io/controller-runtime v0.22.") {
		t.Errorf("the project's own versions must win, got:\n%s", list)
	}
}

// kill -9 of a running 'go test' of the suite leaves no crdlab, etcd or
// kube-apiserver process behind.
func TestKillLeavesNothingRunning(t *testing.T) {
	if os.Getenv("CRDLAB_BINARY") == "" {
		t.Fatal("CRDLAB_BINARY must name the crdlab binary (make test-modules sets it)")
	}
	marker := "GUESTBOOK_KILL_TEST=" + strconv.FormatInt(time.Now().UnixNano(), 36)
	cmd := exec.Command("go", "test", "-vet=off", "-count=1", "-run", "TestControllers", "./internal/controller/")
	cmd.Env = append(os.Environ(), marker)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, p := range marked(marker) {
			_ = syscall.Kill(p.pid, syscall.SIGKILL)
		}
	})
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	// Wait until the suite's lab serves: a kube-apiserver carries the marker.
	deadline := time.Now().Add(5 * time.Minute)
	for !hasComponent(marked(marker), "kube-apiserver") {
		select {
		case err := <-exited:
			t.Fatalf("go test ended before its lab ran: %v\n%s", err, out.String())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no kube-apiserver of the suite after 5 minutes:\n%s", out.String())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = <-exited // killed: its exit status says nothing
	killed := time.Now()
	for {
		left := lab(marked(marker))
		if len(left) == 0 {
			t.Logf("nothing left %.1fs after kill -9 of go test", time.Since(killed).Seconds())
			return
		}
		if time.Since(killed) > 5*time.Second {
			t.Fatalf("5s after kill -9 of go test, still running: %v", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type process struct {
	pid  int
	name string
}

func (p process) String() string { return fmt.Sprintf("%s (pid %d)", p.name, p.pid) }

// marked lists the processes whose environment holds marker.
func marked(marker string) []process {
	var out []process
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		if err != nil || !bytes.Contains(env, []byte(marker)) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(d))
		comm, _ := os.ReadFile(filepath.Join(d, "comm"))
		out = append(out, process{pid: pid, name: strings.TrimSpace(string(comm))})
	}
	return out
}

func hasComponent(ps []process, name string) bool {
	for _, p := range ps {
		if strings.HasPrefix(name, p.name) { // comm is cut at 15 bytes
			return true
		}
	}
	return false
}

// lab keeps the processes of the lab: crdlab and what it runs.
func lab(ps []process) []process {
	var out []process
	for _, p := range ps {
		for _, n := range []string{"crdlab", "etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler"} {
			if strings.HasPrefix(n, p.name) {
				out = append(out, p)
				break
			}
		}
	}
	return out
}
