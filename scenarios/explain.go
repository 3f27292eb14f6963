package scenarios

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
	r := &runner{s: s}
	n := 0
	for i := range s.Spec.Steps {
		st := &s.Spec.Steps[i]
		if st.Narrate != "" {
			for _, line := range wrap(st.Narrate, 72) {
				fmt.Fprintln(w, "      "+line)
			}
			continue
		}
		n++
		fmt.Fprintf(w, "  %2d. %s\n", n, r.describe(st))
	}
	if s.Spec.Explanation != "" {
		fmt.Fprintln(w, "\nWhat it shows")
		for _, line := range wrap(s.Spec.Explanation, 76) {
			fmt.Fprintln(w, "  "+line)
		}
	}
}
