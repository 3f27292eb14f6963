package timeline

import (
	"context"
	"testing"
	"time"
)

// receive returns the next n lines of ch, failing after a deadline.
func receive(t *testing.T, ch <-chan Event, n int) []Event {
	t.Helper()
	var out []Event
	deadline := time.After(10 * time.Second)
	for len(out) < n {
		select {
		case e := <-ch:
			out = append(out, e)
		case <-deadline:
			t.Fatalf("received %d lines, want %d: %+v", len(out), n, out)
		}
	}
	return out
}

// Lines that arrive within the window in any order are released by
// revision, lines without a revision among them by time; a line that
// arrives after a later one was released is released at once, marked and
// counted.
func TestOrder(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := NewOrder(time.Hour, true) // nothing is due before the test says
	ch, end := o.Subscribe()
	defer end()
	t0 := time.Now()
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	for _, e := range []Event{
		{Name: "c", Revision: 30, Time: at(30)},
		{Name: "a", Revision: 10, Time: at(10)},
		{Name: "reconcile", Time: at(20)},
		{Name: "b", Revision: 20, Time: at(19)},
		{Name: "crash", Time: at(5)},
	} {
		o.Record(e)
	}
	o.mu.Lock()
	o.release(time.Now().Add(2 * time.Hour))
	o.mu.Unlock()
	var names []string
	for _, e := range receive(t, ch, 5) {
		names = append(names, e.Name)
		if e.Late {
			t.Errorf("%s marked late", e.Name)
		}
	}
	if got, want := names, []string{"crash", "a", "b", "reconcile", "c"}; !equal(got, want) {
		t.Errorf("released %v, want %v", got, want)
	}
	o.Record(Event{Name: "old", Revision: 15, Time: at(15)})
	if e := receive(t, ch, 1)[0]; e.Name != "old" || !e.Late {
		t.Errorf("a line behind the released ones: %+v, want old, late", e)
	}
	if o.Late() != 1 {
		t.Errorf("Late() = %d, want 1", o.Late())
	}

	// Run releases a line once its window has passed.
	o2 := NewOrder(10*time.Millisecond, true)
	ch2, end2 := o2.Subscribe()
	defer end2()
	go o2.Run(ctx)
	o2.Record(Event{Name: "y", Revision: 2})
	o2.Record(Event{Name: "x", Revision: 1})
	if got := receive(t, ch2, 2); got[0].Name != "x" || got[1].Name != "y" {
		t.Errorf("Run released %v", got)
	}
}

// Without revisions (a real cluster), lines go out as they arrive.
func TestOrderArrival(t *testing.T) {
	o := NewOrder(time.Hour, false)
	ch, end := o.Subscribe()
	defer end()
	o.Record(Event{Name: "b", Revision: 2})
	o.Record(Event{Name: "a", Revision: 1})
	if got := receive(t, ch, 2); got[0].Name != "b" || got[1].Name != "a" || got[1].Late {
		t.Errorf("arrival order: %+v", got)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
