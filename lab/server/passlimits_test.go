package server

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/timeline"
)

// postPasses posts passes, one JSON object a line, to h and returns the
// status and the body.
func postPasses(t *testing.T, h http.Handler, body []byte) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/passes", bytes.NewReader(body)))
	return rec.Code, rec.Body.String()
}

func passLines(t *testing.T, passes ...control.Pass) []byte {
	t.Helper()
	var body []byte
	for _, p := range passes {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		body = append(append(body, b...), '\n')
	}
	return body
}

// Issue 37: a pass dated 2319 is put at now, so that the passes after it
// are not late; one from long ago within passWindow.
func TestPassTimesAreClampedAroundNow(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	order := timeline.NewOrder(10*time.Millisecond, true)
	go order.Run(ctx)
	released, stop := order.Subscribe()
	defer stop()
	h := takePasses(order.Record)
	next := func() timeline.Event {
		t.Helper()
		select {
		case e := <-released:
			return e
		case <-ctx.Done():
			t.Fatal("no pass was released")
			return timeline.Event{}
		}
	}

	pass := control.Pass{Controller: "guestbook", Kind: "Guestbook", Namespace: "default", Name: "demo", Duration: time.Millisecond}
	future := pass
	future.Start = time.Date(2319, 1, 1, 0, 0, 0, 0, time.UTC)
	before := time.Now()
	if code, body := postPasses(t, h, passLines(t, future)); code != http.StatusOK {
		t.Fatalf("POST a pass of 2319: %d %s", code, body)
	}
	if e := next(); e.Time.Before(before) || e.Time.After(time.Now()) {
		t.Errorf("a pass ending in 2319 is at %s, want between %s and now", e.Time, before)
	}
	now := pass
	now.Start = time.Now().Add(-time.Millisecond)
	if code, body := postPasses(t, h, passLines(t, now)); code != http.StatusOK {
		t.Fatalf("POST a pass: %d %s", code, body)
	}
	if e := next(); e.Late {
		t.Errorf("a pass of now after one of 2319: %+v; want it in order", e)
	}
	if n := order.Late(); n != 0 {
		t.Errorf("%d passes late after one of 2319, want none", n)
	}

	// Long ago, or lasting longer than the window: within it.
	at := time.Now()
	for _, p := range []control.Pass{{Controller: "c"}, {Controller: "c", Start: at.Add(-time.Minute), Duration: 100 * time.Hour}, {Controller: "c", Start: at, Duration: -time.Hour}} {
		got, err := cleanPass(0, p, at)
		if end := got.Start.Add(got.Duration); err != nil || end.After(at) || end.Before(at.Add(-passWindow)) || got.Duration < 0 || got.Duration > passWindow {
			t.Errorf("cleanPass(start %s, duration %s) = start %s, duration %s, %v; want within %s before %s", p.Start, p.Duration, got.Start, got.Duration, err, passWindow, at)
		}
	}
}

// Issue 37: what a pass says reaches the terminal as text: no escape
// sequence, bell, line break or bidirectional override.
func TestPassTextIsStripped(t *testing.T) {
	p := control.Pass{
		Controller: "guest\x1b[2Jbook", Kind: "Guest\u202ebook", Namespace: "default", Name: "de\nmo",
		Start: time.Now(), Error: "boom\x07\r\x1b]0;pwned\x07", Terminal: true,
		Triggers: []control.Trigger{{Kind: "Pod", Name: "a\x00b", Change: "deleted\u009b1m\xff"}},
		Writes:   []control.Write{{Verb: "CREATE\x1b", Kind: "Deployment", Name: "web", Error: "no\tway"}},
	}
	got, err := cleanPass(0, p, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	e := passEvent(got)
	line := e.Actor + " " + e.Kind + " " + e.Name + " " + e.Detail
	for _, r := range line {
		if r < 0x20 || (r >= 0x7f && r < 0xa0) || r == '\u202e' {
			t.Errorf("the line has the control character %U: %q", r, line)
		}
	}
	for _, want := range []string{"guest[2Jbook", "Guestbook", "de mo", "boom ]0;pwned", "pod/ab deleted1m\ufffd", "CREATE deployment/web (refused: no way)"} {
		if !strings.Contains(line, want) {
			t.Errorf("the line %q does not say %q", line, want)
		}
	}
}

// Issue 37: names longer than a Kubernetes name, too many triggers or
// writes, and a body of more than maxPassesBody are refused, naming what;
// a long error is cut.
func TestPassLimits(t *testing.T) {
	var recorded []timeline.Event
	h := takePasses(func(e timeline.Event) { recorded = append(recorded, e) })
	ok := control.Pass{Controller: "guestbook", Kind: "Guestbook", Name: "demo", Start: time.Now(), Error: strings.Repeat("e", 5000)}
	long := strings.Repeat("n", maxName+1)
	for _, tc := range []struct {
		name   string
		change func(*control.Pass)
		says   string
	}{
		{"a long name", func(p *control.Pass) { p.Name = long }, "reconcile pass 1: name is 254 characters long, more than 253"},
		{"a long controller", func(p *control.Pass) { p.Controller = long }, "controller is 254 characters long"},
		{"a write's long namespace", func(p *control.Pass) { p.Writes = []control.Write{{}, {Namespace: long}} }, "writes[1].namespace is 254 characters long"},
		{"a trigger's long kind", func(p *control.Pass) { p.Triggers = []control.Trigger{{Kind: long}} }, "triggers[0].kind is 254"},
		{"too many triggers", func(p *control.Pass) { p.Triggers = make([]control.Trigger, maxTriggers+1) }, "101 triggers, more than 100"},
		{"too many writes", func(p *control.Pass) { p.Writes = make([]control.Write, maxWrites+1) }, "1001 writes, more than 1000"},
		{"no controller", func(p *control.Pass) { p.Controller = "" }, "reconcile pass 1: no controller"},
	} {
		recorded = nil
		bad := ok
		tc.change(&bad)
		code, body := postPasses(t, h, passLines(t, ok, bad, ok))
		if code != http.StatusBadRequest || !strings.Contains(body, tc.says) {
			t.Errorf("%s: %d %s; want 400 saying %q", tc.name, code, body, tc.says)
		}
		if len(recorded) != 1 {
			t.Errorf("%s: %d passes recorded, want the one before it", tc.name, len(recorded))
		}
	}
	recorded = nil
	if code, body := postPasses(t, h, passLines(t, ok)); code != http.StatusOK || len(recorded) != 1 ||
		!strings.Contains(recorded[0].Detail, "error: "+strings.Repeat("e", maxText)+"… (terminal") && !strings.Contains(recorded[0].Detail, strings.Repeat("e", maxText)+"…") {
		t.Errorf("a pass with a 5000-character error: %d %s %+v; want it cut to %d characters", code, body, recorded, maxText)
	}
	if strings.Contains(recorded[0].Detail, strings.Repeat("e", maxText+1)) {
		t.Errorf("the error is not cut to %d characters", maxText)
	}

	recorded = nil
	huge := ok
	huge.Error = ""
	var body []byte
	for len(body) <= maxPassesBody {
		body = append(body, passLines(t, huge)...)
	}
	code, resp := postPasses(t, h, body)
	if code != http.StatusRequestEntityTooLarge || !strings.Contains(resp, "more than 8388608 bytes") {
		t.Errorf("a body of %d bytes: %d %s; want 413", len(body), code, resp)
	}
	if len(recorded) == 0 || len(recorded)*len(passLines(t, huge)) > maxPassesBody {
		t.Errorf("a body of %d bytes: %d passes recorded, want those within the limit", len(body), len(recorded))
	}
}
