// Command report turns the JUnit report of a conformance run of
// Kubernetes' e2e.test against a lab into docs/conformance/results.json
// (what was run, what passed) and docs/conformance.md (the table, with why
// each test that did not pass did not), and checks that the committed doc
// matches the committed results (-check).
package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Results are what a run found.
type Results struct {
	Date       string `json:"date"`
	Commit     string `json:"commit"`
	Kubernetes string `json:"kubernetes"`
	Focus      string `json:"focus"`
	Skip       string `json:"skip,omitempty"`
	Tests      []Test `json:"tests"`
}

// Test is one conformance test's outcome.
type Test struct {
	Name    string  `json:"name"`
	Status  string  `json:"status"` // passed, failed, skipped
	Seconds float64 `json:"seconds"`
	Message string  `json:"message,omitempty"` // the first line of why it failed
}

type junitSuites struct {
	Suites []struct {
		Cases []struct {
			Name    string  `xml:"name,attr"`
			Status  string  `xml:"status,attr"`
			Time    float64 `xml:"time,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Message string `xml:"message,attr"`
			} `xml:"error"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func main() {
	junit := flag.String("junit", "", "the JUnit report of e2e.test (junit_01.xml) to read")
	results := flag.String("results", "docs/conformance/results.json", "the results file to write (with -junit) or read")
	doc := flag.String("doc", "docs/conformance.md", "the doc to write, or to check with -check")
	commit := flag.String("commit", "", "the crdlab commit the run tested")
	focus := flag.String("focus", "", "the run's --ginkgo.focus")
	skip := flag.String("skip", "", "the run's --ginkgo.skip")
	k8s := flag.String("kubernetes", "", "the Kubernetes version of e2e.test, with -junit (run.sh: the k8s.io/kubernetes this module requires)")
	check := flag.Bool("check", false, "fail when the doc does not match the results")
	flag.Parse()
	if err := run(*junit, *results, *doc, *commit, *focus, *skip, *k8s, *check); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

func run(junit, resultsPath, doc, commit, focus, skip, k8s string, check bool) error {
	var r Results
	if junit != "" {
		if k8s == "" {
			return fmt.Errorf("-junit %s: -kubernetes not given: the Kubernetes version of the e2e.test that wrote it", junit)
		}
		var err error
		if r, err = readJUnit(junit, focus); err != nil {
			return err
		}
		r.Date, r.Commit, r.Kubernetes, r.Focus, r.Skip = time.Now().UTC().Format("2006-01-02"), commit, k8s, focus, skip
		data, _ := json.MarshalIndent(r, "", "  ")
		if err := os.WriteFile(resultsPath, append(data, '\n'), 0o644); err != nil {
			return err
		}
	} else {
		data, err := os.ReadFile(resultsPath)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(data, &r); err != nil {
			return fmt.Errorf("%s: %w", resultsPath, err)
		}
	}
	md := Render(r)
	if check {
		have, err := os.ReadFile(doc)
		if err != nil {
			return err
		}
		if !bytes.Equal(have, md) {
			return fmt.Errorf("%s is stale against %s: run 'make conformance-report' and commit", doc, resultsPath)
		}
		return nil
	}
	if err := os.WriteFile(doc, md, 0o644); err != nil {
		return err
	}
	p, f, s := r.Counts()
	fmt.Printf("%d passed, %d failed, %d skipped\n", p, f, s)
	return nil
}

// readJUnit reads the tests of the focus from a Ginkgo JUnit report, which
// lists every spec of e2e.test (those outside the focus as skipped).
func readJUnit(path, focus string) (Results, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Results{}, err
	}
	var js junitSuites
	if err := xml.Unmarshal(data, &js); err != nil {
		return Results{}, fmt.Errorf("%s: %w", path, err)
	}
	re := regexp.MustCompile(`\[Conformance\]`)
	if focus != "" {
		if re, err = regexp.Compile(focus); err != nil {
			return Results{}, fmt.Errorf("focus %q: %w", focus, err)
		}
	}
	var r Results
	for _, s := range js.Suites {
		for _, c := range s.Cases {
			name := strings.TrimSpace(strings.TrimPrefix(c.Name, "[It]"))
			if !re.MatchString(name) {
				continue
			}
			t := Test{Name: name, Seconds: float64(int(c.Time*10)) / 10}
			switch c.Status {
			case "passed":
				t.Status = "passed"
			case "skipped", "pending":
				t.Status = "skipped"
				if c.Skipped != nil {
					t.Message = firstLine(c.Skipped.Message)
				}
			default:
				t.Status = "failed"
				switch {
				case c.Failure != nil && strings.TrimSpace(c.Failure.Text) != "":
					t.Message = firstLine(c.Failure.Text)
				case c.Failure != nil:
					t.Message = firstLine(c.Failure.Message)
				case c.Error != nil:
					t.Message = firstLine(c.Error.Message)
				default:
					t.Message = c.Status
				}
			}
			r.Tests = append(r.Tests, t)
		}
	}
	if len(r.Tests) == 0 {
		return r, fmt.Errorf("%s: no test matches %q", path, focus)
	}
	sort.Slice(r.Tests, func(i, j int) bool { return r.Tests[i].Name < r.Tests[j].Name })
	return r, nil
}

func firstLine(s string) string {
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if len(l) > 300 {
				l = l[:300] + "…"
			}
			return l
		}
	}
	return ""
}

// Counts are the passed, failed and skipped tests.
func (r Results) Counts() (passed, failed, skipped int) {
	for _, t := range r.Tests {
		switch t.Status {
		case "passed":
			passed++
		case "failed":
			failed++
		default:
			skipped++
		}
	}
	return
}
