package proc

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// helperEnv names the variable that makes this test binary, run again by a
// test, play a part (its value) instead of running the tests.
const helperEnv = "PROC_TEST_HELPER"

// TestHelperProcess is not a test: it is the part a test asked this binary
// to play (helperEnv), in a process of its own.
//
//   - "child" dies with its parent (PROC_TEST_PARENT, a pid), prints "ready",
//     then waits for the end;
//   - "parent" starts a "child", prints its pid once it is ready, then waits;
//   - "peer" connects to the Unix socket PROC_TEST_SOCKET as user
//     PROC_TEST_UID and waits for the other end to close.
//
// Each ends at the latest when its -test.timeout fires.
func TestHelperProcess(t *testing.T) {
	switch os.Getenv(helperEnv) {
	case "":
		return
	case "child":
		parent, _ := strconv.Atoi(os.Getenv("PROC_TEST_PARENT"))
		if err := DieWithParent(parent); err != nil {
			fmt.Println(err)
			os.Exit(3)
		}
		fmt.Println("ready")
		select {}
	case "parent":
		child := helper("child", "PROC_TEST_PARENT="+strconv.Itoa(os.Getpid()))
		out, err := child.StdoutPipe()
		if err == nil {
			err = child.Start()
		}
		if err != nil {
			fmt.Println(err)
			os.Exit(3)
		}
		if line, err := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
			fmt.Printf("child said %q (%v)\n", line, err)
			os.Exit(3)
		}
		fmt.Println(child.Process.Pid)
		select {}
	case "peer":
		uid, _ := strconv.Atoi(os.Getenv("PROC_TEST_UID"))
		if err := syscall.Setuid(uid); err != nil {
			fmt.Println(err)
			os.Exit(3)
		}
		conn, err := net.Dial("unix", os.Getenv("PROC_TEST_SOCKET"))
		if err != nil {
			fmt.Println(err)
			os.Exit(3)
		}
		_, _ = io.Copy(io.Discard, conn)
		os.Exit(0)
	}
}

// helper returns the command that runs this test binary as the part role,
// with the environment variables env (KEY=value) added.
func helper(role string, env ...string) *exec.Cmd {
	self, err := os.Executable()
	if err != nil {
		self = os.Args[0]
	}
	cmd := exec.Command(self, "-test.run=^TestHelperProcess$", "-test.timeout=2m")
	cmd.Env = append(append(os.Environ(), helperEnv+"="+role), env...)
	cmd.Stderr = os.Stderr
	return cmd
}

// readLine returns the next line r has, without its newline, or fails the
// test when none comes within 30 s.
func readLine(t *testing.T, r io.Reader) string {
	t.Helper()
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		lines <- strings.TrimSuffix(line, "\n")
	}()
	select {
	case line := <-lines:
		return line
	case <-time.After(30 * time.Second):
		t.Fatal("no line within 30s")
		return ""
	}
}

// waitClosed fails the test when ch is not closed within d.
func waitClosed(t *testing.T, ch <-chan struct{}, d time.Duration, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(d):
		t.Fatalf("%s: not within %s", what, d)
	}
}

// isClosed says whether ch is closed now.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
