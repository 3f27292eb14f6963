package format

import (
	"fmt"
	"strings"

	"github.com/crdlab/crdlab/lab/lang"
)

// In returns the scenario as a learner of the language reads it: a copy
// whose title, concept, explanation, step names, narration, tasks and hints are those of
// the language where the scenario has them, and English where it does not
// (never empty). Its steps describe themselves in the language. In(EN)
// returns the scenario as written.
func (s *Scenario) In(l lang.Lang) *Scenario {
	if l != lang.ZH && l != lang.Pseudo {
		return s
	}
	pick := pick
	if l == lang.Pseudo { // the English text, marked where it has Chinese
		pick = func(en *string, other string) {
			if strings.TrimSpace(other) != "" {
				*en = lang.Mark(*en)
			}
		}
	}
	out := *s
	out.lang = l
	out.Spec.Steps = make([]Step, len(s.Spec.Steps))
	copy(out.Spec.Steps, s.Spec.Steps)
	if z := s.Spec.ZH; z != nil {
		pick(&out.Spec.Title, z.Title)
		pick(&out.Spec.Concept, z.Concept)
		pick(&out.Spec.Explanation, z.Explanation)
	}
	var startZH *StartZH
	if s.Spec.ZH != nil {
		startZH = s.Spec.ZH.Start
	}
	out.Spec.Start = startIn(s.Spec.Start, startZH, l, pick)
	for i := range out.Spec.Steps {
		st := &out.Spec.Steps[i]
		st.lang = l
		if z := st.ZH; z != nil {
			pick(&st.Name, z.Name)
			pick(&st.Narrate, z.Narrate)
			if st.Task != nil && z.Task != nil {
				t := *st.Task
				pick(&t.Text, z.Task.Text)
				t.Hints = append([]string(nil), t.Hints...)
				for j := range t.Hints {
					if j < len(z.Task.Hints) {
						pick(&t.Hints[j], z.Task.Hints[j])
					}
				}
				if z.Task.Check != nil {
					t.Check = append([]Check(nil), t.Check...)
					for j := range t.Check {
						if j < len(z.Task.Check) {
							pick(&t.Check[j].Text, z.Task.Check[j])
						}
					}
				}
				st.Task = &t
			}
		}
	}
	return &out
}

func pick(en *string, other string) {
	if strings.TrimSpace(other) != "" {
		*en = other
	}
}

// Lang is the language the scenario's text is in: English, unless In
// returned it.
func (s *Scenario) Lang() lang.Lang {
	if s.lang == "" {
		return lang.EN
	}
	return s.lang
}

// Untranslated lists the learner-facing texts of the scenario that have no
// version in the language, by their path (spec.zh.title,
// spec.steps[3].zh.narrate); nil when every one has.
func (s *Scenario) Untranslated(l lang.Lang) []string {
	if l != lang.ZH && l != lang.Pseudo {
		return nil
	}
	var out []string
	z := s.Spec.ZH
	if z == nil {
		z = &SpecZH{}
	}
	for _, f := range []struct{ name, en, zh string }{
		{"title", s.Spec.Title, z.Title}, {"concept", s.Spec.Concept, z.Concept}, {"explanation", s.Spec.Explanation, z.Explanation},
	} {
		if strings.TrimSpace(f.en) != "" && strings.TrimSpace(f.zh) == "" {
			out = append(out, "spec.zh."+f.name)
		}
	}
	out = append(out, untranslatedStart(s.Spec.Start, z.Start)...)
	for i := range s.Spec.Steps {
		st := &s.Spec.Steps[i]
		sz := st.ZH
		if sz == nil {
			sz = &StepZH{}
		}
		if st.Name != "" && strings.TrimSpace(sz.Name) == "" {
			out = append(out, fmt.Sprintf("spec.steps[%d].zh.name", i))
		}
		if st.Narrate != "" && strings.TrimSpace(sz.Narrate) == "" {
			out = append(out, fmt.Sprintf("spec.steps[%d].zh.narrate", i))
		}
		if st.Task != nil {
			tz := sz.Task
			if tz == nil {
				tz = &TaskZH{}
			}
			if strings.TrimSpace(tz.Text) == "" {
				out = append(out, fmt.Sprintf("spec.steps[%d].zh.task.text", i))
			}
			for j := range st.Task.Hints {
				if j >= len(tz.Hints) || strings.TrimSpace(tz.Hints[j]) == "" {
					out = append(out, fmt.Sprintf("spec.steps[%d].zh.task.hints[%d]", i, j))
				}
			}
			for j, c := range st.Task.Check {
				if strings.TrimSpace(c.Text) != "" && (j >= len(tz.Check) || strings.TrimSpace(tz.Check[j]) == "") {
					out = append(out, fmt.Sprintf("spec.steps[%d].zh.task.check[%d]", i, j))
				}
			}
		}
	}
	return out
}
