package scenarios

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/lab/timeline"
	"github.com/crdlab/crdlab/scenarios/format"
)

// TextListener prints a scenario's report for people: the narration, each
// step and how it went, the timeline of every change with its actor, and
// the explanation at the end. Colour on a terminal, plain otherwise.
func TextListener(out io.Writer) Listener { return TextListenerIn(out, lang.EN) }

// TextListenerIn is TextListener in a language: its own words (PASS, What
// happened...) and the timeline's actors (with a Chinese gloss) are in l;
// the scenario's text is in the language Options.Lang gave the run.
func TextListenerIn(out io.Writer, l lang.Lang) Listener {
	p := &textPrinter{out: out, lang: l}
	if f, ok := out.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.color = true
	}
	return p.print
}

type textPrinter struct {
	mu    sync.Mutex
	out   io.Writer
	color bool
	tl    *timeline.Printer
	lang  lang.Lang
	// group counts bursts (a scale-up of thousands of Pods) in front of
	// tl, as 'crdlab up' does in the foreground; stopGroup ends its ticks.
	group     *timeline.Group
	stopGroup func()
}

// endGroup prints what the burst counter holds and stops it.
func (p *textPrinter) endGroup() {
	if p.group == nil {
		return
	}
	p.stopGroup()
	p.group.Flush()
	p.group, p.stopGroup = nil, nil
}

const (
	bold  = "\x1b[1m"
	dim   = "\x1b[2m"
	green = "\x1b[32m"
	red   = "\x1b[31m"
	cyan  = "\x1b[36m"
	reset = "\x1b[0m"
)

func (p *textPrinter) paint(code, s string) string {
	if !p.color {
		return s
	}
	return code + s + reset
}

func (p *textPrinter) print(e Entry) {
	p.mu.Lock()
	defer p.mu.Unlock()
	w := p.out
	switch e.Type {
	case "scenario":
		p.endGroup()
		p.tl = timeline.NewPrinter(w) // times relative to the scenario's start
		p.tl.Namespace = e.Namespace
		p.tl.ActorName, p.tl.Lang = p.lang.Actor, p.lang
		p.group = timeline.NewGroup(p.tl)
		p.group.Msgf = p.lang.Msgf
		stop, done := make(chan struct{}), make(chan struct{})
		go func(g *timeline.Group) { defer close(done); g.Run(stop) }(p.group)
		p.stopGroup = func() { close(stop); <-done }
		fmt.Fprintf(w, "%s %s\n", p.paint(bold, "▶ "+e.Scenario), p.paint(bold, "— "+e.Title))
		if e.Text != "" {
			fmt.Fprint(w, p.lang.Msgf("  concept:   %s\n", e.Text))
		}
		fmt.Fprint(w, p.lang.Msgf("  namespace: %s\n", e.Namespace))
	case "narrate":
		fmt.Fprintln(w)
		for _, line := range format.Wrap(e.Text, 76) {
			fmt.Fprintln(w, "  "+p.paint(cyan, line))
		}
		fmt.Fprintln(w)
	case "step":
		label := fmt.Sprintf("[%d/%d]", e.Step, e.Steps)
		switch e.Status {
		case Running:
			fmt.Fprintf(w, "%s %s\n", p.paint(bold, label), e.Description)
		case Passed:
			msg := p.lang.Msgf("  %s %s (%.2fs)", p.paint(green, "✓"), e.Description, e.Seconds)
			switch {
			case e.Action == "task" && e.Text != "":
				// What the learner's writes did, every line.
				first, rest, _ := strings.Cut(e.Text, "\n")
				msg += p.lang.Msg(": ") + p.paint(bold, first)
				if rest != "" {
					msg += "\n  " + strings.ReplaceAll(rest, "\n", "\n  ")
				}
			case e.Text != "":
				msg += p.paint(dim, p.lang.Msg(": ")+firstLine(e.Text))
			}
			fmt.Fprintln(w, msg)
		case Failed:
			fmt.Fprint(w, p.lang.Msgf("  %s %s (%.2fs)\n", p.paint(red, "✗"), e.Description, e.Seconds))
			for _, line := range strings.Split(e.Text, "\n") {
				fmt.Fprintln(w, "    "+line)
			}
		case Skipped:
			fmt.Fprint(w, p.lang.Msgf("  - %s %s: %s\n", label, e.Description, p.paint(dim, e.Text)))
		}
	case "event":
		switch {
		case p.group != nil && e.Event != nil:
			p.group.Record(*e.Event)
		case p.tl != nil && e.Event != nil:
			p.tl.Record(*e.Event)
		}
	case "note":
		fmt.Fprintln(w, "  "+p.paint(dim, e.Text))
	case "task":
		fmt.Fprintln(w)
		fmt.Fprintln(w, "  "+p.paint(bold+cyan, "▶ "+e.Description))
		for _, line := range format.Wrap(e.Text, 74) {
			fmt.Fprintln(w, "    "+p.paint(cyan, line))
		}
		fmt.Fprintln(w)
	case "hint":
		fmt.Fprintf(w, "  %s\n", p.paint(bold, "? "+e.Description))
		for _, line := range format.Wrap(e.Text, 74) {
			fmt.Fprintln(w, "    "+line)
		}
	case "check":
		if e.Status == Running && e.Text != "" {
			fmt.Fprintf(w, "  %s\n", p.paint(dim, "… "+e.Description+p.lang.Msg(": ")+firstLine(e.Text)))
			// A check's text says what it wants; its next line, what it
			// found (a line ending in a colon opens a longer account).
			if _, rest, ok := strings.Cut(e.Text, "\n"); ok {
				if found := firstLine(rest); found != "" && !strings.HasSuffix(found, ":") {
					fmt.Fprintf(w, "    %s\n", p.paint(dim, found))
				}
			}
		}
	case "result":
		p.endGroup()
		fmt.Fprintln(w)
		switch e.Status {
		case Passed:
			fmt.Fprint(w, p.lang.Msgf("%s %s (%.1fs)\n", p.paint(green+bold, p.lang.Msg("PASS")), e.Scenario, e.Seconds))
		case Skipped:
			fmt.Fprint(w, p.lang.Msgf("%s %s: %s\n", p.paint(bold, p.lang.Msg("SKIP")), e.Scenario, e.Text))
		default:
			fmt.Fprint(w, p.lang.Msgf("%s %s: %s (%.1fs)\n", p.paint(red+bold, p.lang.Msg("FAIL")), e.Scenario, e.Text, e.Seconds))
		}
		if e.Description != "" && e.Status == Passed {
			fmt.Fprintln(w)
			fmt.Fprintln(w, p.paint(bold, p.lang.Msg("What happened")))
			for _, line := range format.Wrap(e.Description, 76) {
				fmt.Fprintln(w, "  "+line)
			}
		}
		fmt.Fprintln(w)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// JSONListener writes each entry as one JSON object per line.
func JSONListener(out io.Writer) Listener {
	enc := json.NewEncoder(out)
	var mu sync.Mutex
	return func(e Entry) {
		mu.Lock()
		defer mu.Unlock()
		_ = enc.Encode(e)
	}
}

// JUnit XML, as CI systems read it: one testsuite per scenario, one
// testcase per step.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string      `xml:"name,attr"`
	Tests     int         `xml:"tests,attr"`
	Failures  int         `xml:"failures,attr"`
	Skipped   int         `xml:"skipped,attr"`
	Time      string      `xml:"time,attr"`
	Timestamp string      `xml:"timestamp,attr"`
	Cases     []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"` // the step's timeline lines
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// timelineText is a step's timeline lines as the text report prints them,
// times relative to start.
func timelineText(lines []timeline.Event, namespace string, start time.Time) string {
	if len(lines) == 0 {
		return ""
	}
	var b strings.Builder
	p := timeline.NewPrinterAt(&b, start)
	p.Namespace = namespace
	for _, e := range lines {
		p.Record(e)
	}
	return b.String()
}

// WriteJUnit writes the results as JUnit XML: a testcase per step, with
// the step's timeline lines as its system-out.
func WriteJUnit(w io.Writer, results []*Result, started time.Time) error {
	all := junitSuites{Name: "crdlab scenarios", Time: seconds(time.Since(started))}
	for _, r := range results {
		s := junitSuite{Name: r.Scenario, Time: seconds(r.Duration), Timestamp: started.UTC().Format(time.RFC3339)}
		if len(r.Steps) == 0 { // skipped or failed before its first step
			c := junitCase{Name: r.Title, Classname: r.Scenario}
			switch r.Status {
			case Skipped:
				c.Skipped = &junitMessage{Message: r.Message}
			case Failed:
				c.Failure = &junitMessage{Message: r.Message, Text: r.Message}
			}
			s.Cases = append(s.Cases, c)
		}
		for _, st := range r.Steps {
			c := junitCase{Name: fmt.Sprintf("%02d %s", st.Index, st.Description), Classname: r.Scenario, Time: seconds(st.Duration),
				SystemOut: timelineText(st.Timeline, r.Namespace, started)}
			switch st.Status {
			case Failed:
				c.Failure = &junitMessage{Message: firstLine(st.Message), Text: st.Message}
			case Skipped:
				c.Skipped = &junitMessage{Message: st.Message}
			}
			s.Cases = append(s.Cases, c)
		}
		for _, c := range s.Cases {
			s.Tests++
			if c.Failure != nil {
				s.Failures++
			}
			if c.Skipped != nil {
				s.Skipped++
			}
		}
		all.Tests += s.Tests
		all.Failures += s.Failures
		all.Skipped += s.Skipped
		all.Suites = append(all.Suites, s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(all); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
