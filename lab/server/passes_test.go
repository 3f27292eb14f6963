package server

import (
	"testing"
	"time"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/timeline"
)

// A pass of a suite's own controller reads as a sample operator's does:
// writes, how it ended, what woke it, how long it took; at its end.
func TestPassEvent(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	base := control.Pass{
		Controller: "guestbook", Kind: "Guestbook", Namespace: "default", Name: "demo",
		Start: start, Duration: 1500 * time.Microsecond,
	}
	for _, tc := range []struct {
		name   string
		change func(*control.Pass)
		detail string
	}{
		{"nothing to do, after a requeue", func(*control.Pass) {},
			"no change; woken by a requeue or a related object; in 1.5ms"},
		{"writes, woken by its object and an owned one", func(p *control.Pass) {
			p.Triggers = []control.Trigger{
				{Kind: "Guestbook", Namespace: "default", Name: "demo", Change: "spec changed"},
				{Kind: "Deployment", Namespace: "default", Name: "demo", Change: "status or metadata updated"},
			}
			p.Writes = []control.Write{
				{Verb: timeline.Update, Kind: "Deployment", Namespace: "default", Name: "demo"},
				{Verb: timeline.Status, Kind: "Guestbook", Namespace: "default", Name: "demo", Error: "Conflict"},
			}
		}, "UPDATE deployment/demo, STATUS guestbook/demo (refused: Conflict); " +
			"woken by guestbook/demo spec changed, deployment/demo status or metadata updated; in 1.5ms"},
		{"an error", func(p *control.Pass) { p.Error = "boom"; p.RequeueAfter = time.Second },
			"no change; error: boom (retried with back-off); woken by a requeue or a related object; in 1.5ms"},
		{"a terminal error", func(p *control.Pass) { p.Error = "bad spec"; p.Terminal = true },
			"no change; error: bad spec (terminal: not retried); woken by a requeue or a related object; in 1.5ms"},
		{"woken by a burst", func(p *control.Pass) {
			p.Triggers = []control.Trigger{{Kind: "Pod", Name: "a", Change: "deleted"}, {Change: "…"}}
		}, "no change; woken by pod/a deleted, …; in 1.5ms"},
		{"a requeue after", func(p *control.Pass) { p.RequeueAfter = 5 * time.Second },
			"no change; requeue after 5s; woken by a requeue or a related object; in 1.5ms"},
		{"a requeue", func(p *control.Pass) { p.Requeue = true },
			"no change; requeue (with back-off); woken by a requeue or a related object; in 1.5ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := base
			tc.change(&p)
			want := timeline.Event{
				Time: start.Add(1500 * time.Microsecond), Actor: "guestbook", Verb: "RECONCILE",
				Kind: "Guestbook", Namespace: "default", Name: "demo", Detail: tc.detail,
			}
			if got := passEvent(p); got != want {
				t.Errorf("passEvent:\n  %+v\nwant\n  %+v", got, want)
			}
		})
	}
}
