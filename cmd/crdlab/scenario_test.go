package main

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// With no lab running, 'scenario run' boots one, shows each loop on the
// timeline naming its actor, passes, and leaves no process behind.
func TestScenarioRunBootsALab(t *testing.T) {
	c := newCLI(t)
	out, code := c.run("scenario", "run", "delete-pod", "invalid-cr")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, want := range []string{
		"no lab running", "booting one for this run",
		"you (scenario)       CREATE  deployment/web",
		"you (scenario)       DELETE  pod/web-",
		"replicaset           CREATE  pod/web-",
		"scheduler            BIND    pod/web-",
		"kubelet (simulated)  STATUS  pod/web-",
		"PASS delete-pod",
		"refused (422 Invalid)", "spec.userID in body should be less than or equal to 65535",
		"PASS invalid-cr",
		"What happened",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if left := c.processes(); len(left) != 0 {
		t.Errorf("processes left: %v", left)
	}
}

// A scenario whose expectation cannot hold fails with exit status 1 and a
// diff; --output json is one JSON object per line; --junit is JUnit XML.
func TestScenarioRunFailingFileJSONAndJUnit(t *testing.T) {
	c := newCLI(t)
	report := filepath.Join(t.TempDir(), "report.xml")
	out, code := c.run("scenario", "run", "../../scenarios/testdata/failing.yaml", "-o", "json", "--junit", report)
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, out)
	}
	var failed bool
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e map[string]any
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Errorf("not a JSON object: %q: %v", sc.Text(), err)
			continue
		}
		if e["type"] == "step" && e["status"] == "failed" {
			failed = true
			if msg, _ := e["text"].(string); !strings.Contains(msg, `data.color: want "green", got "blue"`) {
				t.Errorf("failed step without a diff: %q", msg)
			}
		}
	}
	if !failed {
		t.Errorf("no failed step in:\n%s", out)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &suites); err != nil {
		t.Fatalf("JUnit report is not XML: %v\n%s", err, data)
	}
	if suites.Tests != 2 || suites.Failures != 1 || len(suites.Suites) != 1 || suites.Suites[0].Name != "failing" ||
		suites.Suites[0].Cases[1].Failure == nil {
		t.Errorf("JUnit report:\n%s", data)
	}
}

// lint needs no cluster and reports every problem with its line.
func TestScenarioLint(t *testing.T) {
	c := newCLI(t)
	out, code := c.run("scenario", "lint", "../../scenarios/testdata/invalid/three-problems.yaml", "../../docs/scenarios/configmap-env.yaml")
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, out)
	}
	for _, want := range []string{
		"three-problems.yaml:7: spec.timeout: bad duration",
		`three-problems.yaml:10: spec.steps[0]: unknown field "colour"`,
		`three-problems.yaml:11: spec.steps[1]: unknown step "sleep"`,
		"configmap-env.yaml: ok",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lint output lacks %q:\n%s", want, out)
		}
	}
}

// lint warns about a scenario with no Chinese text, and keeps its exit
// status: a learner of --lang zh reads the texts in English.
func TestScenarioLintUntranslated(t *testing.T) {
	c := newCLI(t)
	out, code := c.run("scenario", "lint", "../../scenarios/testdata/zh/incomplete.yaml", "../../scenarios/testdata/zh/complete.yaml")
	if code != 0 {
		t.Fatalf("exit %d, want 0:\n%s", code, out)
	}
	if !strings.Contains(out, "incomplete.yaml: warning: no Chinese text for spec.") {
		t.Errorf("no warning about incomplete.yaml's missing Chinese:\n%s", out)
	}
	if strings.Count(out, ": warning") != 1 {
		t.Errorf("want one warning, for incomplete.yaml only:\n%s", out)
	}
	c.env = []string{"LANG=zh_CN.UTF-8"}
	if out, _ := c.run("scenario", "lint", "../../scenarios/testdata/zh/incomplete.yaml"); !strings.Contains(out, "incomplete.yaml：警告：") {
		t.Errorf("the warning in Chinese:\n%s", out)
	}
}
