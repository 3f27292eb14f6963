package main

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The web UI shows the lesson's task beside the graph: its text, the hints
// shown so far, and its check's state, open then passed.
func playLessonInTheUI(t *testing.T, c *cli) {
	chrome := browser(t)
	url := uiURL.FindString(c.mustRun("status"))
	if url == "" {
		t.Fatal("crdlab status shows no web UI URL")
	}
	ctx := openPage(t, chrome, url)
	// text returns the text of the first element selector matches ("" if none).
	text := func(selector string) string {
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector(`+"`"+selector+"`"+`) || {}).innerText || ""`))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	waitText := func(selector, want string) {
		t.Helper()
		deadline := time.Now().Add(lessonWait)
		for !strings.Contains(text(selector), want) {
			if time.Now().After(deadline) {
				t.Fatalf("the web UI's %s has no %q within %s; the scenario pane:\n%s", selector, want, lessonWait, text("#scenario"))
			}
			time.Sleep(100 * time.Millisecond)
		}
	}

	l := c.startLesson("aggregator", "--restart")
	l.waitFor("▶ aggregator", "Your task")
	waitText("#scenario .task .tasktext", "Register the route of lab.crdlab.dev/v1alpha1")
	waitText("#scenario .task .check", "not yet")
	c.mustRun("learn", "hint")
	waitText("#scenario .task ol.hints", "Hint 1/2")
	waitText("#scenario .task ol.hints", "kubectl get apiservice v1beta1.metrics.k8s.io -o yaml")
	skeleton := c.file("aggregator", "apiservice.yaml")
	filled := strings.NewReplacer("group: ___", "group: lab.crdlab.dev", "version: ___", "version: v1alpha1",
		"namespace: ___", "namespace: kube-system", "name: ___", "name: crdlab-aggregated")
	data := readFile(t, skeleton)
	c.kubectl(filled.Replace(data), "apply", "-f", "-")
	waitText("#scenario .task .check.passed", "✓")
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
