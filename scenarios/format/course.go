package format

import (
	"fmt"
	"slices"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/util/validation"
)

// checkCourse checks a lesson's place on the course map (spec.order,
// after, minutes, seed) as far as one file can tell: a scenario has
// none, numbers are not negative, a prerequisite is a lesson's name, not
// this lesson's, and named once. Whether each names a lesson of the
// course, and whether they make a cycle, the course tells
// (scenarios.Lessons).
func (s *Scenario) checkCourse(root *yaml.Node) []Problem {
	var out []Problem
	add := func(field, format string, args ...any) {
		out = append(out, Problem{Line: lineAt(root, "spec", field), Msg: "spec." + field + ": " + fmt.Sprintf(format, args...)})
	}
	sp := s.Spec
	if !s.IsLesson() {
		for _, f := range []struct {
			name string
			set  bool
		}{{"order", sp.Order != 0}, {"after", len(sp.After) > 0}, {"minutes", sp.Minutes != 0}, {"seed", sp.Seed != ""}} {
			if f.set {
				add(f.name, "a lesson's place on the course map: it belongs in a lesson (kind: Lesson), not in a scenario")
			}
		}
		return out
	}
	if sp.Order < 0 {
		add("order", "%d: want 1 or more (1 first)", sp.Order)
	}
	if sp.Minutes < 0 {
		add("minutes", "%d: want the minutes the lesson takes, 1 or more", sp.Minutes)
	}
	for i, a := range sp.After {
		switch {
		case len(validation.IsDNS1123Label(a)) > 0:
			add("after", "%q: want a lesson's name (lowercase letters, digits and '-')", a)
		case a == s.Metadata.Name:
			add("after", "%q is this lesson: a lesson does not come after itself", a)
		case slices.Contains(sp.After[:i], a):
			add("after", "%q is named twice", a)
		}
	}
	return out
}
