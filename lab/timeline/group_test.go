package timeline

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// groupAt is a Group printing to b, times relative to t0, whose lines
// arrive at the times *now says.
func groupAt(b *bytes.Buffer, t0 time.Time, now *time.Time) *Group {
	g := NewGroup(NewPrinterAt(b, t0))
	g.now = func() time.Time { return *now }
	return g
}

func podEvent(t0 time.Time, at time.Duration, actor, verb string, i int) Event {
	return Event{Time: t0.Add(at), Actor: actor, Verb: verb, Kind: "Pod", Namespace: "default", Name: fmt.Sprintf("web-%d", i)}
}

// A few lines print exactly as the Printer alone prints them.
func TestGroupSmallUnchanged(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	var grouped, plain bytes.Buffer
	now := t0
	g := groupAt(&grouped, t0, &now)
	p := NewPrinterAt(&plain, t0)
	for i := range GroupThreshold {
		for _, e := range []Event{
			podEvent(t0, time.Duration(i)*10*time.Millisecond, "replicaset", Create, i),
			podEvent(t0, time.Duration(i)*10*time.Millisecond+time.Millisecond, "scheduler", Bind, i),
		} {
			now = e.Time
			g.Record(e)
			p.Record(e)
		}
	}
	g.Flush()
	if diff := cmp.Diff(plain.String(), grouped.String()); diff != "" {
		t.Errorf("a timeline of %d lines per actor changed when grouped (-plain +grouped):\n%s", GroupThreshold, diff)
	}
}

// A burst prints its first lines, then counts the rest when it ends; lines
// of other actors in between print as they come.
func TestGroupCountsABurst(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	var out bytes.Buffer
	now := t0
	g := groupAt(&out, t0, &now)
	for i := range 500 {
		now = t0.Add(time.Duration(i) * 2 * time.Millisecond)
		g.Record(podEvent(t0, time.Duration(i)*2*time.Millisecond, "replicaset", Create, i))
		if i == 250 {
			g.Record(Event{Time: now, Actor: "you (kubectl)", Verb: Update, Kind: "Deployment", Namespace: "default", Name: "web"})
		}
	}
	g.Tick(now.Add(GroupWindow / 2)) // not ended yet
	if strings.Contains(out.String(), "more in") {
		t.Fatalf("counted before the burst ended:\n%s", out.String())
	}
	g.Tick(now.Add(2 * GroupWindow))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := GroupThreshold + 1 /* kubectl */ + 1 /* note */ + 1 /* count */
	if len(lines) != want {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), want, out.String())
	}
	if got := lines[0]; !strings.HasSuffix(got, "replicaset           CREATE  pod/web-0") {
		t.Errorf("first line %q, want the burst's first Pod", got)
	}
	if got := lines[GroupThreshold]; !strings.Contains(got, "UPDATE  deployment/web") {
		t.Errorf("line %d %q, want kubectl's line as it came", GroupThreshold+1, got)
	}
	if got := lines[len(lines)-1]; !strings.HasSuffix(got, "replicaset           CREATE  pod ×480 more in 1.0 s") {
		t.Errorf("count line %q", got)
	}
	if got := lines[len(lines)-2]; !strings.Contains(got, "logs/timeline.log has every line") {
		t.Errorf("note %q", got)
	}
}

// A burst that lasts is counted every Every; a gap longer than Window
// starts a new burst, whose first lines print again.
func TestGroupLongBurstAndGap(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	var out bytes.Buffer
	now := t0
	g := groupAt(&out, t0, &now)
	g.Msgf = func(format string, args ...any) string { return "zh:" + fmt.Sprintf(format, args...) }
	// 12 s of a line every 10 ms: counted at 5 s and 10 s of held lines, and at the end.
	n := 0
	for at := time.Duration(0); at < 12*time.Second; at += 10 * time.Millisecond {
		now = t0.Add(at)
		g.Record(podEvent(t0, at, "kubelet (simulated)", Status, n))
		n++
	}
	// After a gap of 30 s (more than Cool), a new burst.
	for i := range 3 {
		now = t0.Add(42*time.Second + time.Duration(i)*time.Millisecond)
		g.Record(podEvent(t0, 42*time.Second+time.Duration(i)*time.Millisecond, "kubelet (simulated)", Status, n+i))
	}
	g.Flush()
	var counts []string
	tail := 0
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if i := strings.Index(line, "zh:×"); i >= 0 {
			counts = append(counts, line[i:])
		}
		if strings.Contains(line, "+42.00") {
			tail++
		}
	}
	want := []string{"zh:×501 more in 5.0 s", "zh:×501 more in 5.0 s", "zh:×178 more in 1.8 s"}
	if diff := cmp.Diff(want, counts); diff != "" {
		t.Errorf("counts (-want +got):\n%s\n%s", diff, out.String())
	}
	if tail != 3 {
		t.Errorf("the burst after the gap printed %d of its 3 lines:\n%s", tail, out.String())
	}
	if total := GroupThreshold + 501 + 501 + 178; total != n {
		t.Errorf("lines counted and printed: %d, sent %d", total, n)
	}
}

// A burst soon after one of the same key (a scale-up's next batch) prints
// no line one by one: it is counted from its first line.
func TestGroupNextBatchCounted(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	var out bytes.Buffer
	now := t0
	g := groupAt(&out, t0, &now)
	batch := func(from time.Duration, n, first int) {
		for i := range n {
			at := from + time.Duration(i)*time.Millisecond
			now = t0.Add(at)
			g.Record(podEvent(t0, at, "replicaset", Create, first+i))
		}
		g.Tick(now.Add(2 * GroupWindow))
	}
	batch(0, 64, 0)
	batch(3*time.Second, 128, 64)
	var lines, counts []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		switch {
		case strings.Contains(line, "pod/web-"):
			lines = append(lines, line)
		case strings.Contains(line, "more in"):
			counts = append(counts, line[strings.Index(line, "pod ×"):])
		}
	}
	if len(lines) != GroupThreshold {
		t.Errorf("%d lines printed one by one, want the first batch's first %d:\n%s", len(lines), GroupThreshold, out.String())
	}
	if diff := cmp.Diff([]string{"pod ×44 more in 0.0 s", "pod ×128 more in 0.1 s"}, counts); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
}
