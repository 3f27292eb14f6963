package format

import (
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/crdlab/crdlab/lab/lang"
)

// Start is the state a lesson starts from: what it takes from the lessons
// before it (the learner's User CRD), in the learner's words, and what
// must hold before its steps run. A learner comes by any path the course
// map allows (or by none: a fresh lab); each need is checked as the
// lesson starts, and made by the lesson when it does not hold, or the
// lesson says which lesson to finish first.
type Start struct {
	Text  string      `json:"text" yaml:"text" doc:"The state the lesson starts from, in the learner's words: what it keeps of the lessons before it, and what it makes itself. ${FILES} and ${NAMESPACE} are expanded."`
	Needs []StartNeed `json:"needs,omitempty" yaml:"needs,omitempty" doc:"What must hold before the lesson's steps run, checked in order as it starts (also when the learner goes on from an earlier session). A need that does not hold is made by its make steps, or the lesson stops, naming the lesson to finish first (finish)."`
}

// StartNeed is one condition of a lesson's start, and how the lesson
// gets there when it does not hold.
type StartNeed struct {
	Text   string  `json:"text" yaml:"text" doc:"What must hold, in the learner's words (a User CRD serves auth.ilinux.io/v1beta1): said, with what was found, when the lesson makes it or stops."`
	Expect *Expect `json:"expect" yaml:"expect" doc:"The condition: objects match, or a CEL expression over them holds (as the expect step), checked once (not waited for)."`
	Make   []Step  `json:"make,omitempty" yaml:"make,omitempty" doc:"Steps that make the need hold when it does not (apply, delete, patch, expect): run in order, then the need is checked again, for the steps' timeout. What they replace of the learner's work, the text says."`
	Finish string  `json:"finish,omitempty" yaml:"finish,omitempty" doc:"The lesson of the course to finish first when the need does not hold (and make, if given, did not make it): the lesson stops, saying crdlab learn FINISH."`
}

// StartZH is a start's text in Chinese.
type StartZH struct {
	Text  string   `json:"text,omitempty" yaml:"text,omitempty" doc:"start.text in Chinese."`
	Needs []string `json:"needs,omitempty" yaml:"needs,omitempty" doc:"The text of each of start.needs in Chinese, as many and in the same order."`
}

// The steps a need's make may have: writes and waits, nothing the learner
// reads or the lab does.
var makeActions = []string{"apply", "delete", "patch", "expect"}

func init() {
	formatTypes["Start"] = reflect.TypeFor[Start]()
	formatTypes["StartNeed"] = reflect.TypeFor[StartNeed]()
	formatTypes["StartZH"] = reflect.TypeFor[StartZH]()
}

// checkStart checks a lesson's start: only a lesson has one; each need
// has a text, a valid expect, and make steps or a lesson to finish; the
// Chinese texts match the English ones. Whether finish names a lesson of
// the course, the course tells (scenarios.Lessons).
func (s *Scenario) checkStart(root *yaml.Node) []Problem {
	st := s.Spec.Start
	var out []Problem
	add := func(format string, args ...any) {
		out = append(out, Problem{Line: lineAt(root, "spec", "start"), Msg: "spec.start" + fmt.Sprintf(format, args...)})
	}
	var zh *StartZH
	if s.Spec.ZH != nil {
		zh = s.Spec.ZH.Start
	}
	if st == nil {
		if zh != nil {
			out = append(out, Problem{Line: lineAt(root, "spec", "zh", "start"), Msg: "spec.zh.start: the Chinese of a start the lesson does not have: give spec.start too"})
		}
		return out
	}
	if !s.IsLesson() {
		add(": the state a lesson starts from: it belongs in a lesson (kind: Lesson), not in a scenario, which makes its own namespace")
		return out
	}
	if strings.TrimSpace(st.Text) == "" {
		add(".text is required: say in the learner's words what the lesson starts from")
	}
	for i, n := range st.Needs {
		at := fmt.Sprintf(".needs[%d]", i)
		if strings.TrimSpace(n.Text) == "" {
			add("%s.text is required: what must hold, in the learner's words", at)
		}
		if n.Expect == nil {
			add("%s.expect is required: the condition the lesson checks", at)
		} else {
			for _, msg := range n.Expect.check() {
				add("%s: %s", at, msg)
			}
		}
		if len(n.Make) == 0 && n.Finish == "" {
			add("%s: give make (the steps that make it) or finish (the lesson to finish first), or both", at)
		}
		if f := n.Finish; f != "" {
			switch {
			case len(validation.IsDNS1123Label(f)) > 0:
				add("%s.finish %q: want a lesson's name (lowercase letters, digits and '-')", at, f)
			case f == s.Metadata.Name:
				add("%s.finish %q is this lesson: name a lesson to finish before it", at, f)
			}
		}
		for j := range n.Make {
			m := &n.Make[j]
			name, count := m.Action()
			if count == 1 && !slices.Contains(makeActions, name) {
				add("%s.make[%d]: %s: a need is made by %s steps only", at, j, name, strings.Join(makeActions, ", "))
				continue
			}
			if m.ZH != nil {
				add("%s.make[%d].zh: a make step is not shown to the learner: the need's text says what it does", at, j)
			}
			for _, msg := range m.check(s.readFile, false) {
				add("%s.make[%d]: %s", at, j, msg)
			}
		}
	}
	if zh != nil && zh.Needs != nil && len(zh.Needs) != len(st.Needs) {
		out = append(out, Problem{Line: lineAt(root, "spec", "zh", "start"),
			Msg: fmt.Sprintf("spec.zh.start.needs: %d texts, want one for each of spec.start.needs (%d), in the same order", len(zh.Needs), len(st.Needs))})
	}
	return out
}

// startIn returns the start as a learner of the language l reads it: its
// texts, and its make steps described in l.
func startIn(st *Start, z *StartZH, l lang.Lang, pick func(*string, string)) *Start {
	if st == nil {
		return nil
	}
	if z == nil {
		z = &StartZH{}
	}
	out := *st
	pick(&out.Text, z.Text)
	out.Needs = append([]StartNeed(nil), st.Needs...)
	for i := range out.Needs {
		n := &out.Needs[i]
		if i < len(z.Needs) {
			pick(&n.Text, z.Needs[i])
		}
		n.Make = append([]Step(nil), n.Make...)
		for j := range n.Make {
			n.Make[j].lang = l
		}
	}
	return &out
}

// untranslatedStart lists the texts of the start that have no Chinese.
func untranslatedStart(st *Start, z *StartZH) []string {
	if st == nil {
		return nil
	}
	if z == nil {
		z = &StartZH{}
	}
	var out []string
	if strings.TrimSpace(st.Text) != "" && strings.TrimSpace(z.Text) == "" {
		out = append(out, "spec.zh.start.text")
	}
	for i, n := range st.Needs {
		if strings.TrimSpace(n.Text) != "" && (i >= len(z.Needs) || strings.TrimSpace(z.Needs[i]) == "") {
			out = append(out, fmt.Sprintf("spec.zh.start.needs[%d]", i))
		}
	}
	return out
}

// explainStart writes what a lesson starts from, and each need with what
// the lesson does when it does not hold.
func explainStart(w io.Writer, s *Scenario) {
	st := s.Spec.Start
	if st == nil {
		return
	}
	l := s.Lang()
	fmt.Fprintln(w, l.Msg("Starts from"))
	for _, line := range Wrap(st.Text, 76) {
		fmt.Fprintln(w, "  "+line)
	}
	for _, n := range st.Needs {
		text := l.Msgf("%s (made by the lesson when it does not hold)", n.Text)
		if len(n.Make) == 0 {
			text = l.Msgf("%s (when it does not hold: crdlab learn %s first)", n.Text, n.Finish)
		}
		for i, line := range Wrap(text, 72) {
			prefix := "    "
			if i == 0 {
				prefix = "  - "
			}
			fmt.Fprintln(w, prefix+line)
		}
	}
	fmt.Fprintln(w)
}
