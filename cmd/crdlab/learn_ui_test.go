package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/crdlab/crdlab/lab/ui/browsertest"
)

// The web UI shows the lesson's task beside the graph: its text, the hints
// shown so far, and its check's state, open then passed. Its hint button
// asks the lesson for the next hint, and its course map shows the
// learner's progress, 0/1 then 1/1.
// lessonPage is the lab's web UI in a browser, as a learner sees a lesson
// in it: what a selector finds is read, waited for and clicked.
type lessonPage struct {
	t   *testing.T
	ctx context.Context
}

// openLessonPage opens the web UI of the lab c runs on.
func openLessonPage(t *testing.T, c *cli) *lessonPage {
	t.Helper()
	chrome := browsertest.Chromium(t)
	url := uiURL.FindString(c.mustRun("status"))
	if url == "" {
		t.Fatal("crdlab status shows no web UI URL")
	}
	return &lessonPage{t: t, ctx: browsertest.Open(t, chrome, url)}
}

// text returns the text of the first element selector matches ("" if none).
func (p *lessonPage) text(selector string) string {
	s, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`(document.querySelector(`+"`"+selector+"`"+`) || {}).innerText || ""`))
	if err != nil {
		p.t.Fatal(err)
	}
	return s
}

// waitText waits until what selector matches has want.
func (p *lessonPage) waitText(selector, want string) {
	p.t.Helper()
	deadline := time.Now().Add(lessonWait)
	for !strings.Contains(p.text(selector), want) {
		if time.Now().After(deadline) {
			p.t.Fatalf("the web UI's %s has no %q within %s (it has %q); the course map:\n%s\nthe scenario pane:\n%s",
				selector, want, lessonWait, p.text(selector), p.text("#course"), p.text("#scenario"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// click clicks what selector finds, in one step of the page (the scenario
// pane is drawn anew at each report entry).
func (p *lessonPage) click(selector string) {
	p.t.Helper()
	found, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](fmt.Sprintf(
		`(() => { const e = document.querySelector(%q); if (!e) return false; e.dispatchEvent(new MouseEvent("click", {bubbles: true})); return true; })()`, selector)))
	if err != nil || !found {
		p.t.Fatalf("the web UI has no %s to click (%v); the scenario pane:\n%s", selector, err, p.text("#scenario"))
	}
}

func playLessonInTheUI(t *testing.T, c *cli) {
	page := openLessonPage(t, c)
	ctx, waitText, click := page.ctx, page.waitText, page.click
	progress := `#course tr[data-lesson="aggregator"] td.done`

	l := c.startLesson("aggregator", "--restart")
	l.waitFor("▶ aggregator", "Your task")
	waitText("#scenario .task .tasktext", "Register the route of lab.crdlab.dev/v1alpha1")
	waitText("#scenario .task .check", "not yet")
	click("#course-open")
	waitText(progress, "0/1")
	waitText(`#course tr[data-lesson="aggregator"] td.seed`, "自定义ApiServer")
	waitText(`#course tr[data-lesson="reconcile-loop"] td.after`, "no-controller")
	c.mustRun("learn", "hint")
	waitText("#scenario .task ol.hints", "Hint 1/3")
	waitText("#scenario .task ol.hints", "kubectl get apiservice v1beta1.metrics.k8s.io -o yaml")
	click("#scenario .task button.hint")
	waitText("#scenario .task .hintanswer", "the service crdlab-aggregated")
	waitText("#scenario .task ol.hints", "Hint 2/3")
	skeleton := c.file("aggregator", "apiservice.yaml")
	filled := strings.NewReplacer("group: ___", "group: lab.crdlab.dev", "version: ___", "version: v1alpha1",
		"namespace: ___", "namespace: kube-system", "name: ___", "name: crdlab-aggregated")
	data := readFile(t, skeleton)
	c.kubectl(filled.Replace(data), "apply", "-f", "-")
	waitText("#scenario .task .check.passed", "✓")
	waitText(progress, "1/1")
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!document.querySelector("#scenario .task button.hint:not([hidden])")`))
	if err != nil || shown {
		t.Errorf("the hint button stays once the task is done (%v)", err)
	}
	// What CI shows of it: the course map beside the task done.
	if png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err != nil {
		t.Error(err)
	} else if err := os.WriteFile(filepath.Join(artifacts(t, "ui"), "lesson-course-map.png"), png, 0o644); err != nil {
		t.Error(err)
	}
	if out, code := l.wait(); code != 0 {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
