package format

import (
	"os"
	"strings"
	"testing"
)

// A lesson's place on the course map loads; what one file can tell is
// wrong with it is refused, with the file, line and field; a scenario has
// no place on it.
func TestCourseFields(t *testing.T) {
	lesson := func(fields string) string {
		return "apiVersion: crdlab.dev/v1alpha1\nkind: Lesson\nmetadata: {name: x}\nspec:\n  title: t\n" + fields + "  steps:\n  - narrate: n\n"
	}
	parse := func(yaml string) (*Scenario, error) {
		return Parse("f.yaml", []byte(yaml), func(string) ([]byte, error) { return nil, os.ErrNotExist })
	}
	s, err := parse(lesson("  order: 3\n  after: [crd-basics, no-controller]\n  minutes: 20\n  seed: 自定义控制器 / 和解循环\n"))
	if err != nil {
		t.Fatal(err)
	}
	if sp := s.Spec; sp.Order != 3 || strings.Join(sp.After, ",") != "crd-basics,no-controller" || sp.Minutes != 20 || sp.Seed != "自定义控制器 / 和解循环" {
		t.Errorf("loaded %d %v %d %q", sp.Order, sp.After, sp.Minutes, sp.Seed)
	}
	for _, tc := range []struct{ name, yaml, want string }{
		{"negative order", lesson("  order: -1\n"), `f.yaml:6: spec.order: -1: want 1 or more`},
		{"negative minutes", lesson("  minutes: -5\n"), `f.yaml:6: spec.minutes: -5: want the minutes`},
		{"after itself", lesson("  after: [x]\n"), `f.yaml:6: spec.after: "x" is this lesson`},
		{"after twice", lesson("  after: [a, a]\n"), `f.yaml:6: spec.after: "a" is named twice`},
		{"after no name", lesson("  after: [Crd Basics]\n"), `f.yaml:6: spec.after: "Crd Basics": want a lesson's name`},
		{"in a scenario", strings.Replace(lesson("  minutes: 5\n"), "kind: Lesson", "kind: Scenario", 1), `f.yaml:6: spec.minutes: a lesson's place on the course map: it belongs in a lesson`},
		{"not a number", lesson("  order: first\n"), `f.yaml:6: spec.order: wrong type`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parse(tc.yaml)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
}
