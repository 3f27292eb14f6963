package format

import (
	"fmt"
	"io"
	"strings"
)

// Explain writes what a scenario shows: its title, concept, what it needs,
// its steps with their narration, and its explanation.
func Explain(w io.Writer, s *Scenario) {
	fmt.Fprintf(w, "%s: %s\n", s.Metadata.Name, s.Spec.Title)
	if s.Spec.Concept != "" {
		fmt.Fprintf(w, "concept: %s\n", s.Spec.Concept)
	}
	if len(s.Spec.Requires) > 0 {
		fmt.Fprintf(w, "needs:   %s\n", strings.Join(s.Spec.Requires, ", "))
	}
	fmt.Fprintf(w, "source:  %s\n\nSteps\n", s.source)
	n := 0
	for i := range s.Spec.Steps {
		st := &s.Spec.Steps[i]
		if st.Narrate != "" {
			for _, line := range Wrap(st.Narrate, 72) {
				fmt.Fprintln(w, "      "+line)
			}
			continue
		}
		n++
		fmt.Fprintf(w, "  %2d. %s\n", n, st.Describe())
		if st.Task != nil {
			for _, line := range Wrap(st.Task.Text, 70) {
				fmt.Fprintln(w, "        "+line)
			}
			if len(st.Task.Hints) > 0 {
				fmt.Fprintf(w, "        (%d hints)\n", len(st.Task.Hints))
			}
		}
	}
	if s.Spec.Explanation != "" {
		fmt.Fprintln(w, "\nWhat it shows")
		for _, line := range Wrap(s.Spec.Explanation, 76) {
			fmt.Fprintln(w, "  "+line)
		}
	}
}

// Wrap folds text into lines of at most width runes, keeping paragraphs
// (blank lines) and lines that start with spaces or "-" (lists, commands).
func Wrap(text string, width int) []string {
	var out []string
	var cur []string
	curLen := 0
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, " "))
			cur, curLen = nil, 0
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		switch {
		case strings.TrimSpace(line) == "":
			flush()
			out = append(out, "")
			continue
		case strings.HasPrefix(line, " "), strings.HasPrefix(line, "-"), strings.HasPrefix(line, "$"):
			flush()
			out = append(out, line)
			continue
		}
		for _, word := range strings.Fields(line) {
			n := len([]rune(word))
			if curLen > 0 && curLen+1+n > width {
				flush()
			}
			if curLen > 0 {
				curLen++
			}
			cur = append(cur, word)
			curLen += n
		}
	}
	flush()
	return out
}
