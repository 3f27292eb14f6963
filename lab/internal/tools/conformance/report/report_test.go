package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The committed docs/conformance.md is what the committed results give.
func TestDocMatchesResults(t *testing.T) {
	root := filepath.Join("..", "..", "..", "..", "..")
	err := run("", filepath.Join(root, "docs", "conformance", "results.json"), filepath.Join(root, "docs", "conformance.md"), "", "", "", "", true)
	if err != nil {
		t.Fatal(err)
	}
}

func TestReadJUnit(t *testing.T) {
	junit := `<?xml version="1.0" encoding="UTF-8"?>
<testsuites><testsuite name="Kubernetes e2e suite">
<testcase name="[It] [sig-api-machinery] Watchers should observe add, update, and delete watch notifications on configmaps [Conformance]" status="passed" time="2.51"></testcase>
<testcase name="[It] [sig-api-machinery] AdmissionWebhook [Privileged:ClusterAdmin] should be able to deny pod and configmap creation [Conformance]" status="failed" time="30"><failure message="boom" type="failed">&#xA;  wait for the webhook: timed out&#xA;more</failure></testcase>
<testcase name="[It] [sig-apps] Deployment should run [Conformance]" status="skipped" time="0"><skipped message="skipped"></skipped></testcase>
<testcase name="[SynchronizedBeforeSuite]" status="passed" time="1"></testcase>
</testsuite></testsuites>`
	p := filepath.Join(t.TempDir(), "junit_01.xml")
	if err := os.WriteFile(p, []byte(junit), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := readJUnit(p, `\[sig-api-machinery\].*\[Conformance\]`)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Tests) != 2 {
		t.Fatalf("read %+v, want the two api-machinery tests", r.Tests)
	}
	if p, f, s := r.Counts(); p != 1 || f != 1 || s != 0 {
		t.Errorf("counts %d %d %d", p, f, s)
	}
	md := string(Render(r))
	for _, want := range []string{
		"**1 passed, 1 failed, 0 skipped** of 2",
		"Of the 1 tests that need no real container, 1 pass; the other 1 deploy an image",
		"| [sig-api-machinery] AdmissionWebhook [Privileged:ClusterAdmin] should be able to deny pod and configmap creation [Conformance] | failed | needs a real container: deploys agnhost's webhook server (a Deployment and a Service) and waits for the apiserver to reach it (wait for the webhook: timed out) |",
		"| [sig-api-machinery] Watchers should observe add, update, and delete watch notifications on configmaps [Conformance] | passed |  |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the doc lacks %q:\n%s", want, md)
		}
	}
}
