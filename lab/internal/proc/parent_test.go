package proc

import (
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A child that called DieWithParent ends when its parent is killed, with
// nobody to stop it: here the parent is a helper process, the child its
// child, this test their grandparent.
func TestDieWithParentEndsTheChildWhenTheParentIsKilled(t *testing.T) {
	parent := helper("parent")
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = parent.Process.Kill(); _ = parent.Wait() })
	line := readLine(t, out)
	child, err := strconv.Atoi(line)
	if err != nil {
		t.Fatalf("the parent printed %q, not its child's pid", line)
	}
	childDone, err := Done(child)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !isClosed(childDone) {
			_ = syscall.Kill(child, syscall.SIGKILL)
		}
	})
	if isClosed(childDone) {
		t.Fatalf("child %d ended while its parent runs", child)
	}

	if err := parent.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = parent.Wait()
	waitClosed(t, childDone, 20*time.Second, "the child of a killed parent ends")
}

// A child told that its parent is a process that is not (any more) its
// parent says so and exits.
func TestDieWithParentRefusesAParentThatIsGone(t *testing.T) {
	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	other := exec.Command("sleep", "1000")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Process.Kill(); _ = other.Wait() })

	for name, pid := range map[string]int{
		"a process that ended":         ended.Process.Pid,
		"a process that is not parent": other.Process.Pid,
	} {
		t.Run(name, func(t *testing.T) {
			child := helper("child", "PROC_TEST_PARENT="+strconv.Itoa(pid))
			out, err := child.Output()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 3 {
				t.Fatalf("child exited with %v, printing %q; want exit status 3", err, out)
			}
			if want := ErrParentGone.Error(); !strings.Contains(string(out), want) {
				t.Errorf("child printed %q, want %q", out, want)
			}
		})
	}
}
