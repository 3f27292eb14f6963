package proc

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestTreeFindsAChildWithItsNameAndMemory(t *testing.T) {
	cmd := exec.Command("sleep", "1000")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	pid := cmd.Process.Pid

	children, err := Children(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(children, pid) {
		t.Errorf("Children(%d) = %v, without the child %d", os.Getpid(), children, pid)
	}

	tree, err := Tree(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if len(tree) == 0 || tree[0].PID != os.Getpid() {
		t.Fatalf("Tree(%d) does not start with the process itself: %+v", os.Getpid(), tree)
	}
	i := slices.IndexFunc(tree, func(p Process) bool { return p.PID == pid })
	if i < 0 {
		t.Fatalf("Tree(%d) = %+v, without the child %d", os.Getpid(), tree, pid)
	}
	child := tree[i]
	if child.Name != "sleep" {
		t.Errorf("child's name = %q, want sleep", child.Name)
	}
	if child.RSS <= 0 {
		t.Errorf("child's RSS = %d, want more than 0", child.RSS)
	}
	if runtime.GOOS == "linux" && (child.PeakRSS < child.RSS || child.PSS <= 0) {
		t.Errorf("child's peak RSS = %d, PSS = %d: want a peak RSS of at least its RSS (%d), and a PSS", child.PeakRSS, child.PSS, child.RSS)
	}
}

// psRSS, macOS's way to read a process's RSS, is checked here too.
func TestPSRSS(t *testing.T) {
	if _, err := exec.LookPath("ps"); err != nil {
		t.Skip("no ps here")
	}
	rss, err := psRSS(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if rss <= 0 {
		t.Errorf("psRSS of this process = %d, want more than 0", rss)
	}
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	if rss, err := psRSS(gone.Process.Pid); err == nil {
		t.Errorf("psRSS of process %d, which ended: %d, no error", gone.Process.Pid, rss)
	}
}

func TestArgv0(t *testing.T) {
	for _, tc := range []struct {
		name, procargs2, want string
	}{
		{"argv after the path and its padding", "\x02\x00\x00\x00/opt/crdlab/bin/crdlab\x00\x00\x00\x00/tmp/x/bin/etcd\x00--data-dir\x00HOME=/\x00", "/tmp/x/bin/etcd"},
		{"no padding", "\x01\x00\x00\x00/bin/sleep\x00sleep\x00", "sleep"},
		{"no argv", "\x00\x00\x00\x00/bin/sleep\x00\x00", ""},
		{"cut short", "\x01\x00\x00\x00/bin/sl", ""},
		{"too short for argc", "\x01\x00", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := argv0([]byte(tc.procargs2)); got != tc.want {
				t.Errorf("argv0(%q) = %q, want %q", tc.procargs2, got, tc.want)
			}
		})
	}
}

// A process whose arguments cannot be read (a zombie; a child in the
// middle of the exec that cmd.Start has just returned from, as a test saw
// under load) is named by the file it runs, or the kernel's name of it,
// never ".".
func TestProcessWithoutArgumentsIsNamed(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Wait() })
	pid := cmd.Process.Pid
	deadline := time.Now().Add(10 * time.Second)
	for { // until it has exited, unreaped: a zombie, whose cmdline is empty
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			t.Fatal(err)
		}
		if _, after, ok := strings.Cut(string(stat), ") "); ok && strings.HasPrefix(after, "Z") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d did not exit: %s", pid, stat)
		}
		time.Sleep(time.Millisecond)
	}
	p, err := readProcess(pid)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "true" {
		t.Errorf("a zombie's name = %q, want true", p.Name)
	}
}
