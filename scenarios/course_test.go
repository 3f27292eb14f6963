package scenarios

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crdlab/crdlab/scenarios/format"
)

// courseLesson makes a lesson of the course map: its name, order and
// prerequisites.
func courseLesson(t *testing.T, name string, order int, after ...string) *Scenario {
	t.Helper()
	doc := fmt.Sprintf("apiVersion: crdlab.dev/v1alpha1\nkind: Lesson\nmetadata: {name: %s}\nspec:\n  title: t\n  order: %d\n  after: [%s]\n  steps:\n  - narrate: n\n",
		name, order, strings.Join(after, ", "))
	s, err := format.Parse("lessons/"+name+".yaml", []byte(doc), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The course is in spec.order, a lesson without one last; a prerequisite
// that is no lesson of the course, and a cycle, are refused with the file
// and the field.
func TestCourseOrderAndPrerequisites(t *testing.T) {
	course := []*Scenario{courseLesson(t, "c", 0), courseLesson(t, "b", 2, "a"), courseLesson(t, "a", 1), courseLesson(t, "d", 2, "a", "b")}
	sortCourse(course)
	var names []string
	for _, s := range course {
		names = append(names, s.Metadata.Name)
	}
	if got := strings.Join(names, ","); got != "a,b,d,c" {
		t.Errorf("course order %s, want a,b,d,c (by order, then name; no order last)", got)
	}
	if err := checkCourse(course); err != nil {
		t.Errorf("a course without a cycle: %v", err)
	}

	err := checkCourse([]*Scenario{courseLesson(t, "a", 1), courseLesson(t, "operator", 2, "a", "reconcile-loop")})
	if err == nil || !strings.Contains(err.Error(), `lessons/operator.yaml: spec.after: "reconcile-loop" is no lesson of the course (its lessons: a, operator)`) {
		t.Errorf("an unknown prerequisite: %v", err)
	}
	err = checkCourse([]*Scenario{courseLesson(t, "a", 1, "c"), courseLesson(t, "b", 2, "a"), courseLesson(t, "c", 3, "b"), courseLesson(t, "d", 4)})
	if err == nil || !strings.Contains(err.Error(), "lessons/a.yaml: spec.after: a cycle, a → c → b → a") {
		t.Errorf("a cycle: %v", err)
	}
}

// A lesson file's prerequisites are checked against the course, which it
// joins in place of a built-in lesson of its name.
func TestLessonFileInTheCourse(t *testing.T) {
	dir := t.TempDir()
	write := func(name, after string) string {
		f := filepath.Join(dir, name+".yaml")
		doc := "apiVersion: crdlab.dev/v1alpha1\nkind: Lesson\nmetadata: {name: " + name + "}\nspec:\n  title: t\n  after: [" + after + "]\n  steps:\n  - narrate: n\n"
		if err := os.WriteFile(f, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	if _, err := LoadLesson(write("mine", "crd-validation")); err != nil {
		t.Errorf("after a built-in lesson: %v", err)
	}
	bad := write("mine", "crd-validaton")
	if _, err := LoadLesson(bad); err == nil || !strings.Contains(err.Error(), bad+`: spec.after: "crd-validaton" is no lesson of the course`) {
		t.Errorf("after no lesson: %v", err)
	}
	// crd-basics again, after crd-validation, which comes after it.
	again := write("crd-basics", "crd-validation")
	if _, err := LoadLesson(again); err == nil || !strings.Contains(err.Error(), again+": spec.after: a cycle, crd-basics → crd-validation → crd-basics") {
		t.Errorf("a cycle through the built-in lessons: %v", err)
	}
}

// Every built-in lesson has its place on the course map: an order of its
// own, after its prerequisites; its minutes; the seed's section it
// teaches.
func TestBuiltinCourse(t *testing.T) {
	all, err := Lessons()
	if err != nil {
		t.Fatal(err)
	}
	orders := map[int]string{}
	for _, s := range all {
		sp := s.Spec
		if sp.Order < 1 || sp.Minutes < 1 || sp.Seed == "" {
			t.Errorf("%s: order %d, minutes %d, seed %q: a built-in lesson needs all three (docs/learn.md's course map has them)", s.Source(), sp.Order, sp.Minutes, sp.Seed)
		}
		if other, ok := orders[sp.Order]; ok {
			t.Errorf("%s: spec.order %d is %s's too", s.Source(), sp.Order, other)
		}
		orders[sp.Order] = s.Metadata.Name
	}
	for _, s := range all {
		for _, a := range s.Spec.After {
			for _, p := range all {
				if p.Metadata.Name == a && p.Spec.Order >= s.Spec.Order {
					t.Errorf("%s: comes after %s, whose order (%d) is not before its own (%d)", s.Source(), a, p.Spec.Order, s.Spec.Order)
				}
			}
		}
	}
}
