package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/server"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// asMainEnv makes the test binary run crdlab's main: the CLI tests run the
// test binary as crdlab (and, through lab's links, as etcd and
// kube-apiserver), so no separate build is needed.
const asMainEnv = "CRDLAB_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMainEnv) == "1" {
		os.Exit(run(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// cli runs crdlab commands against one state dir.
type cli struct {
	t        *testing.T
	stateDir string
	env      []string // more environment, after the defaults
}

func newCLI(t *testing.T) *cli {
	t.Helper()
	c := &cli{t: t, stateDir: t.TempDir()}
	t.Cleanup(func() {
		// Whatever a test left running stops with it.
		if st, err := control.Dir(c.stateDir).Status(); err == nil {
			_ = syscall.Kill(st.PID, syscall.SIGKILL)
		}
		if t.Failed() {
			keepLogs(t, control.Dir(c.stateDir))
		}
	})
	return c
}

// keepLogs copies the logs of a failed test's lab (crdlab's own, each
// component's, the timeline) to _artifacts/logs/<test>, which outlives the
// test's temporary state dir.
func keepLogs(t *testing.T, d control.Dir) {
	logs, err := filepath.Glob(d.Path("logs", "*.log"))
	if err != nil || len(logs) == 0 {
		return
	}
	dst := filepath.Join("..", "..", "_artifacts", "logs", strings.ReplaceAll(t.Name(), "/", "_"))
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Log(err)
		return
	}
	for _, f := range logs {
		data, err := os.ReadFile(f)
		if err == nil {
			err = os.WriteFile(filepath.Join(dst, filepath.Base(f)), data, 0o644)
		}
		if err != nil {
			t.Log(err)
		}
	}
	t.Logf("the lab's logs are kept in %s", dst)
}

func (c *cli) command(args ...string) *exec.Cmd {
	return c.commandContext(context.Background(), args...)
}

// commandContext is command, ended when ctx is done (exec.CommandContext).
func (c *cli) commandContext(ctx context.Context, args ...string) *exec.Cmd {
	self, err := os.Executable()
	if err != nil {
		c.t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, self, args...)
	// English, whatever the machine's locale; a test of another language
	// sets c.env or --lang.
	cmd.Env = append(os.Environ(), asMainEnv+"=1", "CRDLAB_STATE_DIR="+c.stateDir, "LC_ALL=", "LC_MESSAGES=", "LANG=C.UTF-8")
	cmd.Env = append(cmd.Env, c.env...)
	return cmd
}

// commandDeadline is how long one crdlab command of a test may run. The
// slowest that ends on its own is 'scenario run --all' (every built-in
// scenario, one after the other, against one lab: 231 s on 2 cores under
// a load of 20, four engineers' builds and tests); a command still running
// after it is waiting for something that will not come, as a lesson at an
// open task waits for its learner, and fails with what it printed then,
// long before the package's 30-minute timeout.
const commandDeadline = 10 * time.Minute

// interruptGrace is how long an interrupted command has to stop (a lab it
// started stops, a lesson says where it is) before it is killed.
const interruptGrace = 10 * time.Second

// run runs crdlab and returns its combined output and exit code. A command
// still running after commandDeadline fails the test (runWithin).
func (c *cli) run(args ...string) (string, int) {
	c.t.Helper()
	out, code, err := c.runWithin(commandDeadline, args...)
	if err != nil {
		c.t.Fatal(err)
	}
	return out, code
}

// runWithin runs crdlab for at most d and returns its combined output and
// exit code. A command still running after d is interrupted, as Ctrl-C
// would (killed interruptGrace later if it has not stopped), and the error
// names it, the time it ran and its output up to then.
func (c *cli) runWithin(d time.Duration, args ...string) (string, int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var out bytes.Buffer
	cmd := c.commandContext(ctx, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = interruptGrace
	if err := cmd.Start(); err != nil {
		return "", 0, fmt.Errorf("crdlab %s: %w", strings.Join(args, " "), err)
	}
	err := cmd.Wait()
	if ctx.Err() != nil {
		return out.String(), -1, fmt.Errorf("crdlab %s: still running after %s, its deadline; interrupted (%w); its output:\n%s",
			strings.Join(args, " "), d, err, out.String())
	}
	code := 0
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		return out.String(), 0, fmt.Errorf("crdlab %s: %w", strings.Join(args, " "), err)
	}
	return out.String(), code, nil
}

// mustRun runs crdlab and fails the test unless it exits 0.
func (c *cli) mustRun(args ...string) string {
	c.t.Helper()
	out, code := c.run(args...)
	if code != 0 {
		c.t.Fatalf("crdlab %s: exit %d\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

// kubectl runs Debian's kubectl (not crdlab's) against the lab.
func (c *cli) kubectl(stdin string, args ...string) string {
	c.t.Helper()
	path, err := exec.LookPath("kubectl")
	if err != nil {
		c.t.Fatalf("Debian's kubectl is not installed (make test-deps installs it): %v", err)
	}
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+control.Dir(c.stateDir).Kubeconfig())
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		c.t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// kubectlFails runs Debian's kubectl, which must fail, and returns its output.
func (c *cli) kubectlFails(args ...string) string {
	c.t.Helper()
	cmd := exec.Command("kubectl", args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+control.Dir(c.stateDir).Kubeconfig())
	out, err := cmd.CombinedOutput()
	if err == nil {
		c.t.Fatalf("kubectl %s succeeded, want a refusal:\n%s", strings.Join(args, " "), out)
	}
	return string(out)
}

// upForeground starts 'crdlab up' in the foreground (in a process group of
// its own, as a terminal's job, if ownGroup) and returns it, once ready,
// with its process tree.
func (c *cli) upForeground(ownGroup bool) (*exec.Cmd, []server.Process) {
	c.t.Helper()
	cmd := c.command("up")
	if ownGroup {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		c.t.Fatal(err)
	}
	cmd.Stderr = os.Stderr // why it did not start, if it does not
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	waitForLine(c.t, stdout, "lab ready", 2*time.Minute)
	tree := c.labTree()
	if len(tree) < 3 {
		c.t.Fatalf("lab tree %+v: want crdlab, etcd and kube-apiserver at least", tree)
	}
	return cmd, tree
}

// labTree returns the processes of the running lab.
func (c *cli) labTree() []server.Process {
	c.t.Helper()
	st, err := control.Dir(c.stateDir).Status()
	if err != nil {
		c.t.Fatal(err)
	}
	tree, err := server.Processes(st.PID)
	if err != nil {
		c.t.Fatal(err)
	}
	return tree
}

// processes lists the live processes started for this test's state dir: all
// of them, down to etcd and kube-apiserver, inherit its environment.
func (c *cli) processes() []string {
	marker := []byte("CRDLAB_STATE_DIR=" + c.stateDir + "\x00")
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var found []string
	for _, dir := range dirs {
		env, err := os.ReadFile(filepath.Join(dir, "environ"))
		if err != nil || !bytes.Contains(env, marker) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(dir))
		if pid != os.Getpid() && alive(pid) {
			found = append(found, filepath.Base(dir))
		}
	}
	return found
}

// alive reports whether pid is a live (not zombie) process.
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return false
	}
	if s[i+2] != 'Z' {
		return true
	}
	// A zombie leader is gone only once its other threads are: after a
	// kill -9 the thread group's leader turns Z first, while the other
	// threads still exit holding the process's files (a lab's state-dir
	// lock among them: TestChaos's 'up -d' right after once found it held).
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	return err == nil && len(tasks) > 1
}

// expectGone fails when any of procs still runs after wait.
func expectGone(t *testing.T, procs []server.Process, wait time.Duration) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		var left []string
		for _, p := range procs {
			if alive(p.PID) {
				left = append(left, fmt.Sprintf("%s (pid %d)", p.Name, p.PID))
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("still running %s later: %s", wait, strings.Join(left, ", "))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitForLine reads r until a line containing want, or fails after timeout
// with what it read.
func waitForLine(t *testing.T, r io.Reader, want string, timeout time.Duration) {
	t.Helper()
	found, ended := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var read []string
	go func() {
		defer close(ended)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			mu.Lock()
			read = append(read, sc.Text())
			mu.Unlock()
			if strings.Contains(sc.Text(), want) {
				close(found)
				_, _ = io.Copy(io.Discard, r)
				return
			}
		}
	}()
	select {
	case <-found:
	case <-ended:
		select {
		case <-found:
			return
		default:
		}
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("the output ended without a line %q; read:\n%s", want, strings.Join(read, "\n"))
	case <-time.After(timeout):
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("no line %q within %s; read:\n%s", want, timeout, strings.Join(read, "\n"))
	}
}

func goldenCompare(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/crdlab -run %s -update to create it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs from %s (rerun with -update if intended):\n%s", t.Name(), path, lineDiff(string(want), got))
	}
}

// lineDiff shows the lines of want and got that differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want: %q\n  got:  %q\n", i+1, wl, gl)
		}
	}
	return b.String()
}

// listenAddrs returns the local addresses (hex, as /proc/net/tcp has them)
// on which any of procs listens.
func listenAddrs(t *testing.T, procs []server.Process) []string {
	t.Helper()
	inodes := map[string]bool{}
	for _, p := range procs {
		fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", p.PID))
		for _, fd := range fds {
			if target, err := os.Readlink(fd); err == nil && strings.HasPrefix(target, "socket:[") {
				inodes[strings.TrimSuffix(strings.TrimPrefix(target, "socket:["), "]")] = true
			}
		}
	}
	var addrs []string
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) > 9 && f[3] == "0A" && inodes[f[9]] { // 0A: LISTEN
				addrs = append(addrs, f[1])
			}
		}
	}
	return addrs
}

// loopbackHex is 127.0.0.1 as /proc/net/tcp writes it.
const loopbackHex = "0100007F:"
