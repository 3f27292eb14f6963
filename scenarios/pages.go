package scenarios

import (
	"fmt"
	"strings"
)

// Page returns the documentation page of a built-in scenario
// (docs/scenarios/NAME.md), generated from it.
func Page(s *Scenario) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "# Scenario %s: %s\n\n", s.Metadata.Name, s.Spec.Title)
	fmt.Fprintf(&b, "<!-- Generated from scenarios/%s by make generate. Do not edit by hand. -->\n\n", s.Source())
	if s.Spec.Concept != "" {
		fmt.Fprintf(&b, "**Concept:** %s\n\n", s.Spec.Concept)
	}
	needs := "any cluster (also through `--kubeconfig`)"
	if len(s.Spec.Requires) > 0 {
		needs = strings.Join(s.Spec.Requires, ", ")
	}
	fmt.Fprintf(&b, "**Needs:** %s\n\n", needs)
	fmt.Fprintf(&b, "```sh\ncrdlab scenario run %s            # boots a lab, or uses the one 'crdlab up' runs\ncrdlab scenario explain %s\n```\n\n", s.Metadata.Name, s.Metadata.Name)
	b.WriteString("## What it shows\n\n")
	b.WriteString(strings.TrimSpace(s.Spec.Explanation) + "\n\n")
	b.WriteString("## Steps\n\n")
	n := 0
	for i := range s.Spec.Steps {
		st := &s.Spec.Steps[i]
		minors := "" // a step of some minors says which
		if st.Kubernetes != "" {
			minors = "(Kubernetes " + st.Kubernetes + ") "
		}
		if st.Narrate != "" {
			b.WriteString("> " + minors + strings.ReplaceAll(strings.TrimSpace(st.Narrate), "\n", " ") + "\n\n")
			continue
		}
		n++
		fmt.Fprintf(&b, "%d. %s%s\n", n, minors, strings.ReplaceAll(st.Describe(), "|", `\|`))
		if i+1 < len(s.Spec.Steps) && s.Spec.Steps[i+1].Narrate != "" {
			b.WriteString("\n")
		}
	}
	data, err := builtinFS.ReadFile(s.Source())
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&b, "\n## Source\n\n[`scenarios/%s`](../../scenarios/%s):\n\n```yaml\n%s```\n", s.Source(), s.Source(), data)
	return b.String(), nil
}
