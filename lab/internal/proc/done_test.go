package proc

import (
	"os/exec"
	"testing"
	"time"
)

// Done is open while a process runs and closed once it has exited, before
// anybody has waited for it.
func TestDoneWhenAProcessExits(t *testing.T) {
	cmd := exec.Command("cat")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	done, err := Done(cmd.Process.Pid)
	if err != nil {
		t.Fatalf("Done(%d): %v", cmd.Process.Pid, err)
	}
	if isClosed(done) {
		t.Fatalf("Done(%d) is closed while the process runs", cmd.Process.Pid)
	}
	_ = stdin.Close() // cat exits
	waitClosed(t, done, 20*time.Second, "Done of a process that exited")
}

func TestDoneOfAProcessAlreadyGone(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	done, err := Done(cmd.Process.Pid)
	if err != nil {
		t.Fatalf("Done(%d): %v", cmd.Process.Pid, err)
	}
	if !isClosed(done) {
		t.Errorf("Done(%d) of a process that ended and was waited for is not closed", cmd.Process.Pid)
	}
}

func TestDoneRefusesWhatIsNotAProcessID(t *testing.T) {
	for _, pid := range []int{0, -1} {
		if _, err := Done(pid); err == nil {
			t.Errorf("Done(%d): no error", pid)
		}
	}
}
