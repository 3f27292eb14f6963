package proc

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// changes records a child's OnChange calls.
type changes struct {
	mu  sync.Mutex
	got []Change
	ch  chan Change
}

func newChanges() *changes { return &changes{ch: make(chan Change, 16)} }

func (c *changes) record(ch Change) {
	c.mu.Lock()
	c.got = append(c.got, ch)
	c.mu.Unlock()
	c.ch <- ch
}

func (c *changes) next(t *testing.T) Change {
	t.Helper()
	select {
	case ch := <-c.ch:
		return ch
	case <-time.After(20 * time.Second):
		t.Fatal("no change reported within 20s")
		return Change{}
	}
}

func healthy(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func sleeper(t *testing.T, health string, rec *changes) *Child {
	return &Child{
		Name:     "sleeper",
		Path:     "/bin/sleep",
		Args:     []string{"1000"},
		Health:   health,
		LogPath:  filepath.Join(t.TempDir(), "sleeper.log"),
		OnChange: rec.record,
	}
}

// A killed child is reported down, restarted at once, reported up; a
// stopped one is not restarted.
func TestChildRestartsAfterAKill(t *testing.T) {
	rec := newChanges()
	c := sleeper(t, healthy(t), rec)
	if err := c.Start(context.Background(), 10*time.Second); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.Stop(0); err != nil {
			t.Error(err)
		}
	}()
	first := c.PID()
	if st := c.Status(); !st.Up || st.Restarts != 0 {
		t.Fatalf("status after start: %+v", st)
	}
	if err := c.Kill(); err != nil {
		t.Fatal(err)
	}
	down := rec.next(t)
	if down.Up || down.Restarts != 1 || down.Cause != "signal: killed" {
		t.Errorf("first change %+v, want down, restart 1, signal: killed", down)
	}
	up := rec.next(t)
	if !up.Up || up.Restarts != 1 || up.Downtime <= 0 {
		t.Errorf("second change %+v, want up after restart 1", up)
	}
	if pid := c.PID(); pid == 0 || pid == first {
		t.Errorf("pid after restart %d (was %d)", pid, first)
	}
	if st := c.Status(); !st.Up || st.Restarts != 1 || !st.DownSince.IsZero() || st.LastExit != "signal: killed" {
		t.Errorf("status after restart: %+v", st)
	}

	pid := c.PID()
	if err := c.Stop(time.Second); err != nil {
		t.Fatal(err)
	}
	if st := c.Status(); st.Up || !st.Stopped {
		t.Errorf("status after stop: %+v", st)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("process %d still runs after Stop", pid)
	}
	select {
	case ch := <-rec.ch:
		t.Errorf("a stopped child reported %+v", ch)
	default:
	}
}

// A child killed is restarted on its own command line and with its own
// environment (Env), which the lab's process does not have.
func TestChildRestartsWithItsCommandLineAndEnv(t *testing.T) {
	rec := newChanges()
	c := &Child{
		Name: "sleeper", Path: "/bin/sleep", Args: []string{"1001"},
		Env:    []string{"CRDLAB_CHILD_TEST=restarted"},
		Health: healthy(t), LogPath: filepath.Join(t.TempDir(), "sleeper.log"), OnChange: rec.record,
	}
	if err := c.Start(context.Background(), 10*time.Second); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.Stop(0); err != nil {
			t.Error(err)
		}
	}()
	if _, ok := os.LookupEnv("CRDLAB_CHILD_TEST"); ok {
		t.Fatal("Env leaked into the parent's environment")
	}
	if err := c.Kill(); err != nil {
		t.Fatal(err)
	}
	if ch := rec.next(t); ch.Up {
		t.Errorf("first change %+v, want down", ch)
	}
	if ch := rec.next(t); !ch.Up || ch.Restarts != 1 {
		t.Errorf("second change %+v, want up after restart 1", ch)
	}
	pid := strconv.Itoa(c.PID())
	cmdline, err := os.ReadFile("/proc/" + pid + "/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	if string(cmdline) != "/bin/sleep\x001001\x00" {
		t.Errorf("restarted as %q", cmdline)
	}
	environ, err := os.ReadFile("/proc/" + pid + "/environ")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(strings.Split(string(environ), "\x00"), "CRDLAB_CHILD_TEST=restarted") {
		t.Errorf("restarted without its Env: %q", environ)
	}
}

// A Stop while a child starts (kube-apiserver waiting for an etcd that
// failed) ends the start at once, not at its timeout, and leaves no
// process; a child stopped before its start does not start.
func TestChildStopEndsItsStart(t *testing.T) {
	never := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer never.Close()
	c := sleeper(t, never.URL, newChanges())
	done := make(chan error, 1)
	go func() { done <- c.Start(context.Background(), time.Hour) }()
	deadline := time.Now().Add(10 * time.Second)
	for c.PID() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the child did not start within 10s")
		}
		time.Sleep(time.Millisecond) // polling for the process to exist
	}
	pid := c.PID()
	if err := c.Stop(0); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Start still waits 10s after Stop")
	}
	var se *StartError
	if !errors.As(err, &se) || se.Name != "sleeper" || !errors.Is(err, ErrStopped) {
		t.Errorf("Start returned %v, want a StartError of sleeper wrapping ErrStopped", err)
	}
	if syscall.Kill(pid, 0) == nil {
		t.Errorf("process %d still runs after Stop", pid)
	}

	stopped := sleeper(t, healthy(t), newChanges())
	_ = stopped.Stop(0)
	if err := stopped.Start(context.Background(), 10*time.Second); !errors.Is(err, ErrStopped) {
		t.Errorf("Start after Stop returned %v, want ErrStopped", err)
	}
	if stopped.PID() != 0 {
		t.Errorf("a child stopped before its start runs as %d", stopped.PID())
	}
}

// A child whose health never answers after a restart is killed and tried
// again, with a back-off, and stays down meanwhile; once healthy, it is up.
func TestChildNotHealthyAfterRestartIsRetried(t *testing.T) {
	var mu sync.Mutex
	ok := true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if !ok {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	rec := newChanges()
	c := sleeper(t, srv.URL, rec)
	c.RestartTimeout = 300 * time.Millisecond
	if err := c.Start(context.Background(), 10*time.Second); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.Stop(0); err != nil {
			t.Error(err)
		}
	}()
	mu.Lock()
	ok = false
	mu.Unlock()
	if err := c.Kill(); err != nil {
		t.Fatal(err)
	}
	if ch := rec.next(t); ch.Up {
		t.Fatalf("first change %+v, want down", ch)
	}
	// Two unhealthy attempts count as two more restarts.
	deadline := time.Now().Add(20 * time.Second)
	for c.Status().Restarts < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("restarts %d after 20s, want 3", c.Status().Restarts)
		}
		time.Sleep(10 * time.Millisecond) // polling the child's counter
	}
	if st := c.Status(); st.Up || st.DownSince.IsZero() {
		t.Errorf("status while unhealthy: %+v", st)
	}
	mu.Lock()
	ok = true
	mu.Unlock()
	if ch := rec.next(t); !ch.Up || ch.Restarts < 3 {
		t.Errorf("change %+v, want up after 3 restarts or more", ch)
	}
}
