package format

import (
	"strings"
	"testing"

	"github.com/crdlab/crdlab/lab/lang"
)

// In Chinese, a scenario reads its zh texts; in English, its own; a text
// with no Chinese version is shown in English, never empty.
func TestInChineseFallsBackToEnglish(t *testing.T) {
	s, err := LoadFile("../testdata/zh/incomplete.yaml")
	if err != nil {
		t.Fatal(err)
	}
	zh := s.In(lang.ZH)
	for _, c := range []struct{ what, got, want string }{
		{"title", zh.Spec.Title, "创建一个 ConfigMap"},
		{"concept", zh.Spec.Concept, "declarative API"},
		{"explanation", zh.Spec.Explanation, "The apiserver stored what you declared.\n"},
		{"narrate", zh.Spec.Steps[0].Narrate, "Apply a ConfigMap."},
		{"unnamed step", zh.Spec.Steps[1].Describe(), "应用 configmap/a"},
		{"name", zh.Spec.Steps[2].Describe(), "the ConfigMap is there"},
		{"English title", s.In(lang.EN).Spec.Title, "A ConfigMap is made"},
		{"English step", s.In(lang.EN).Spec.Steps[1].Describe(), "apply configmap/a"},
	} {
		if c.got != c.want {
			t.Errorf("%s: %q, want %q", c.what, c.got, c.want)
		}
	}
	if s.Spec.Title != "A ConfigMap is made" || s.Spec.Steps[1].Describe() != "apply configmap/a" {
		t.Errorf("In changed the scenario it was called on: %q, %q", s.Spec.Title, s.Spec.Steps[1].Describe())
	}

	full, err := LoadFile("../testdata/zh/complete.yaml")
	if err != nil {
		t.Fatal(err)
	}
	zh = full.In(lang.ZH)
	if zh.Spec.Concept != "声明式 API" || zh.Spec.Steps[0].Narrate != "用 server-side apply 创建一个 ConfigMap。" || zh.Spec.Steps[2].Describe() != "ConfigMap 已存在" {
		t.Errorf("complete scenario in Chinese: %q, %q, %q", zh.Spec.Concept, zh.Spec.Steps[0].Narrate, zh.Spec.Steps[2].Describe())
	}
}

// Untranslated finds every learner-facing text with no Chinese version.
func TestUntranslated(t *testing.T) {
	full, err := LoadFile("../testdata/zh/complete.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := full.Untranslated(lang.ZH); got != nil {
		t.Errorf("complete scenario: untranslated %q", got)
	}
	part, err := LoadFile("../testdata/zh/incomplete.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := "spec.zh.concept spec.zh.explanation spec.steps[0].zh.narrate spec.steps[2].zh.name"
	if got := strings.Join(part.Untranslated(lang.ZH), " "); got != want {
		t.Errorf("incomplete scenario: untranslated %q, want %q", got, want)
	}
	if got := part.Untranslated(lang.EN); got != nil {
		t.Errorf("in English: untranslated %q", got)
	}
}

// Unknown keys inside zh are errors with their lines, as elsewhere; so is
// the Chinese of a text the scenario does not have.
func TestLoadRejectsUnknownChineseFields(t *testing.T) {
	_, err := LoadFile("../testdata/invalid/zh-unknown-field.yaml")
	if err == nil {
		t.Fatal("loaded")
	}
	want := []string{
		`../testdata/invalid/zh-unknown-field.yaml:8: unknown field "titel" in spec.zh (fields: title, concept, explanation, start)`,
		`../testdata/invalid/zh-unknown-field.yaml:12: unknown field "narate" in a step's zh (fields: name, narrate, task)`,
		`../testdata/invalid/zh-unknown-field.yaml:13: spec.steps[1]: zh.narrate: only a narrate step has narration, not wait`,
	}
	if got := err.Error(); got != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
	head := "apiVersion: crdlab.dev/v1alpha1\nkind: Scenario\nmetadata: {name: x}\nspec:\n  title: t\n"
	for _, tc := range []struct{ name, yaml, want string }{
		{"zh.concept alone", head + "  zh: {concept: c}\n  steps:\n  - wait: 1s\n", `f.yaml:6: spec.zh.concept: the Chinese of a text the scenario does not have`},
		{"zh.name alone", head + "  steps:\n  - wait: 1s\n    zh: {name: n}\n", `f.yaml:7: spec.steps[0]: zh.name: the Chinese of a name the step does not have`},
		{"zh a string", head + "  zh: 标题\n  steps:\n  - wait: 1s\n", `f.yaml:6: spec.zh: wrong type: "标题" is a string, want a mapping`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("f.yaml", []byte(tc.yaml), nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
}
