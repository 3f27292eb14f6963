package main

import (
	"testing"

	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/scenarios"
)

// Every step of every built-in scenario and lesson, described in Chinese
// as the runner prints it at run time (its name, or what it does: "删除
// pods（app=web）（随机挑一个）"), has full-width punctuation.
func TestStepDescriptionsInChineseAreFullWidth(t *testing.T) {
	all, err := scenarios.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range scenarios.LessonNames() {
		s, err := scenarios.LoadLesson(name)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, s)
	}
	steps := 0
	for _, s := range all {
		zh := s.In(lang.ZH)
		for i := range zh.Spec.Steps {
			steps++
			d := zh.Spec.Steps[i].Describe()
			if bad := lang.MixedPunctuation(d); len(bad) > 0 {
				t.Errorf("%s, step %d: %q: %q", s.Metadata.Name, i+1, d, bad)
			}
		}
	}
	if steps < 100 {
		t.Errorf("only %d steps described", steps)
	}
}
