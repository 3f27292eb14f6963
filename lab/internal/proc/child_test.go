package proc

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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
	defer c.Stop(0)
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

// An adopted process (one someone else started, as envtest starts etcd) is
// restarted on its own command line when it dies.
func TestChildAdoptsAndRestartsAProcess(t *testing.T) {
	cmd := exec.Command("/bin/sleep", "1001")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	reaped := make(chan struct{})
	go func() { _ = cmd.Wait(); close(reaped) }() // its parent reaps it, as envtest does

	rec := newChanges()
	c := &Child{Name: "adopted", Health: healthy(t), LogPath: filepath.Join(t.TempDir(), "adopted.log"), OnChange: rec.record}
	if err := c.Adopt(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	defer c.Stop(0)
	if c.Path != "/bin/sleep" || len(c.Args) != 1 || c.Args[0] != "1001" {
		t.Errorf("command line read %q %q, want /bin/sleep [1001]", c.Path, c.Args)
	}
	if st := c.Status(); !st.Up {
		t.Errorf("an adopted, healthy process is not up: %+v", st)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-reaped
	if ch := rec.next(t); ch.Up {
		t.Errorf("first change %+v, want down", ch)
	}
	if ch := rec.next(t); !ch.Up || ch.Restarts != 1 {
		t.Errorf("second change %+v, want up after restart 1", ch)
	}
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(c.PID()) + "/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	if string(cmdline) != "/bin/sleep\x001001\x00" {
		t.Errorf("restarted as %q", cmdline)
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
	defer c.Stop(0)
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
