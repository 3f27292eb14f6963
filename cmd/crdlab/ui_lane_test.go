package main

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/crdlab/crdlab/lab/labtest/control"
)

// checkYourControllersLane is issue 28's "the UI shows its lane": a reconcile
// pass of a controller outside the lab's process, sent over the control
// socket as lab/labtest/trace sends a suite's own controller's, shows on the
// page as its lane above the timeline and as its RECONCILE line, with what
// woke it and what it wrote. browser is the page of the lab on stateDir.
func checkYourControllersLane(t *testing.T, browser context.Context, stateDir string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pass := control.Pass{
		Controller: "guestbook", Kind: "Deployment", Namespace: "default", Name: "web",
		Start: time.Now(), Duration: 2 * time.Millisecond,
		Triggers: []control.Trigger{{Kind: "Deployment", Namespace: "default", Name: "web", Change: "status or metadata updated"}},
		Writes:   []control.Write{{Verb: "STATUS", Kind: "Deployment", Namespace: "default", Name: "web"}},
	}
	if err := control.NewClient(control.Dir(stateDir)).Passes(ctx, []control.Pass{pass}); err != nil {
		t.Fatalf("sending a reconcile pass to the lab: %v", err)
	}
	type page struct {
		Lanes []string
		Lines []string
	}
	var last page
	for ctx.Err() == nil {
		got, err := chromedp.Run(browser, chromedp.Evaluate[page](`({
			Lanes: [...document.querySelectorAll("#lanes .lane-label")].map(t => t.textContent),
			Lines: [...document.querySelectorAll('#events li[data-actor="guestbook"][data-verb="RECONCILE"]')].map(li => li.innerText)})`))
		if err != nil {
			t.Fatal(err)
		}
		last = got
		if slices.Contains(got.Lanes, "guestbook") && slices.ContainsFunc(got.Lines, func(l string) bool {
			return strings.Contains(l, "deployment/web") && strings.Contains(l, "STATUS deployment/web; woken by deployment/web status or metadata updated")
		}) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no lane and RECONCILE line of the controller guestbook within a minute: lanes %q, its lines %q", last.Lanes, last.Lines)
}
