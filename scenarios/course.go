package scenarios

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// The course is the built-in lessons, each file of lessons/ one, in the
// order their spec.order gives; spec.after, minutes and seed place each
// on the course map ('crdlab learn', the web UI). A lesson is in the
// course when its file is: the course has no list of its own to keep in
// step.

// Lessons returns the built-in lessons in the course's order: by
// spec.order (a lesson without one after those with one), then by name.
// It checks the course: each lesson a lesson comes after (spec.after) is
// one of them, and no lesson comes, through after, after itself.
func Lessons() ([]*Scenario, error) {
	var out []*Scenario
	for _, name := range lessonFileNames() {
		s, err := loadBuiltinLesson(name)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	sortCourse(out)
	if err := checkCourse(out); err != nil {
		return nil, err
	}
	return out, nil
}

// LessonNames lists the built-in lessons, in the course's order (by name
// when the course does not load: Lessons says why).
func LessonNames() []string {
	all, err := Lessons()
	if err != nil {
		return lessonFileNames()
	}
	out := make([]string, len(all))
	for i, s := range all {
		out[i] = s.Metadata.Name
	}
	return out
}

// lessonFileNames lists the built-in lessons' files, lessons/NAME.yaml,
// by name.
func lessonFileNames() []string {
	files, _ := fs.Glob(lessonsFS, "lessons/*.yaml") // a valid pattern
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = strings.TrimSuffix(path.Base(f), ".yaml")
	}
	slices.Sort(out)
	return out
}

// sortCourse puts lessons in the course's order.
func sortCourse(lessons []*Scenario) {
	slices.SortStableFunc(lessons, func(a, b *Scenario) int {
		oa, ob := a.Spec.Order, b.Spec.Order
		switch {
		case oa != ob && (oa == 0 || ob == 0):
			return ob - oa // one with an order first
		case oa != ob:
			return oa - ob
		}
		return strings.Compare(a.Metadata.Name, b.Metadata.Name)
	})
}

// checkCourse checks the prerequisites of the lessons (spec.after): each
// names one of them, and none comes, through them, after itself. Each
// problem names the lesson's file and the field.
func checkCourse(lessons []*Scenario) error {
	byName := map[string]*Scenario{}
	var names []string
	for _, s := range lessons {
		byName[s.Metadata.Name] = s
		names = append(names, s.Metadata.Name)
	}
	var errs []error
	for _, s := range lessons {
		for _, a := range s.Spec.After {
			if byName[a] == nil {
				errs = append(errs, fmt.Errorf("%s: spec.after: %q is no lesson of the course (its lessons: %s)", s.Source(), a, strings.Join(names, ", ")))
			}
		}
		if st := s.Spec.Start; st != nil {
			for i, n := range st.Needs {
				if n.Finish != "" && byName[n.Finish] == nil {
					errs = append(errs, fmt.Errorf("%s: spec.start.needs[%d].finish: %q is no lesson of the course (its lessons: %s)", s.Source(), i, n.Finish, strings.Join(names, ", ")))
				}
			}
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	// A depth-first walk along after: a lesson met again on the path is a cycle.
	const (
		walking = 1
		walked  = 2
	)
	mark := map[string]int{}
	var walk func(s *Scenario, path []string) error
	walk = func(s *Scenario, path []string) error {
		name := s.Metadata.Name
		path = append(path, name)
		switch mark[name] {
		case walking:
			first := slices.Index(path, name)
			return fmt.Errorf("%s: spec.after: a cycle, %s (each comes after the next): no order of the lessons can follow it", s.Source(), strings.Join(path[first:], " → "))
		case walked:
			return nil
		}
		mark[name] = walking
		for _, a := range s.Spec.After {
			if err := walk(byName[a], path); err != nil {
				return err
			}
		}
		mark[name] = walked
		return nil
	}
	for _, s := range lessons {
		if err := walk(s, nil); err != nil {
			return err
		}
	}
	return nil
}

// checkInCourse checks the prerequisites of a lesson from a file against
// the course: it takes the place of a built-in lesson of its name.
func checkInCourse(s *Scenario) error {
	if len(s.Spec.After) == 0 {
		return nil
	}
	course, err := Lessons()
	if err != nil {
		return err
	}
	course = slices.DeleteFunc(course, func(c *Scenario) bool { return c.Metadata.Name == s.Metadata.Name })
	return checkCourse(append([]*Scenario{s}, course...)) // a cycle is said from s
}
