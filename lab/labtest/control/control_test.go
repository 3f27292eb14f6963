package control

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
)

// A route names its method, and its path with the name escaped.
func TestRoute(t *testing.T) {
	for _, tc := range []struct {
		route        Route
		name         string
		method, path string
	}{
		{RouteComponents, "", "GET", "/components"},
		{RouteStopNode, "lab-node-1", "POST", "/nodes/lab-node-1/stop"},
		{RouteStartComponent, "a b/c", "POST", "/components/a%20b%2Fc/start"},
	} {
		if m, p := tc.route.Method(), tc.route.Path(tc.name); m != tc.method || p != tc.path {
			t.Errorf("%q with %q: %s %s, want %s %s", tc.route, tc.name, m, p, tc.method, tc.path)
		}
	}
	seen := map[Route]bool{}
	for _, r := range Routes() {
		if seen[r] {
			t.Errorf("Routes lists %q twice", r)
		}
		seen[r] = true
	}
}

// A wire error keeps the message and the sentinel it wrapped, and only
// the sentinels a client branches on.
func TestWireError(t *testing.T) {
	for _, sentinel := range []error{ErrUnknownComponent, ErrUnknownNode} {
		err := WireError(fmt.Errorf("%w %q", sentinel, "x"))
		if !errors.Is(err, sentinel) || err.Error() != sentinel.Error()+` "x"` {
			t.Errorf("WireError of %v: %q (reason %q), want it to wrap %v", sentinel, err, err.Reason, sentinel)
		}
	}
	err := WireError(errors.New("busy"))
	if err.Reason != "" || err.Unwrap() != nil || err.Error() != "busy" {
		t.Errorf("WireError(busy) = %+v, want the message alone", err)
	}
}

// No lab runs on a state dir whose lock nobody holds, even with a status
// left by a lab that was killed; one runs while a process holds it.
func TestStatusFollowsTheLock(t *testing.T) {
	d := Dir(t.TempDir())
	if _, err := d.Status(); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("Status of an empty dir: %v, want ErrNotRunning", err)
	}
	if err := os.WriteFile(d.StatusFile(), []byte(`{"pid": 42, "endpoint": "https://127.0.0.1:1"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Status(); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("Status with a stale lab.json and no lock: %v, want ErrNotRunning", err)
	}
	f, err := os.OpenFile(d.LockFile(), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	st, err := d.Status()
	if err != nil || st.PID != 42 {
		t.Fatalf("Status while the lock is held: %+v, %v; want pid 42", st, err)
	}
	if _, err := Dial(d); err != nil {
		t.Errorf("Dial while the lock is held: %v", err)
	}
	if err := os.Remove(d.StatusFile()); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Status(); !errors.Is(err, ErrNotRunning) || !strings.Contains(err.Error(), "starting") {
		t.Errorf("Status of a lab still starting: %v, want ErrNotRunning saying it is starting", err)
	}
}

// A state dir too long for its control socket is refused, naming it.
func TestCheckPathLength(t *testing.T) {
	if err := Dir("/tmp/short").CheckPathLength(); err != nil {
		t.Errorf("a short state dir: %v", err)
	}
	long := Dir("/tmp/" + strings.Repeat("x", MaxSocketPath))
	if err := long.CheckPathLength(); err == nil || !strings.Contains(err.Error(), string(long)) {
		t.Errorf("a long state dir: %v, want an error naming it", err)
	}
}
