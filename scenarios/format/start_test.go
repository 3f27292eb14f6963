package format

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/crdlab/crdlab/lab/lang"
)

const startLesson = `apiVersion: crdlab.dev/v1alpha1
kind: Lesson
metadata: {name: start}
spec:
  title: a lesson with a start
  start:
    text: The ConfigMap color, yours or the lesson's.
    needs:
    - text: the ConfigMap color exists
      expect:
        resource: {apiVersion: v1, kind: ConfigMap, name: color}
        cel: has(object.data)
      make:
      - apply: {object: {apiVersion: v1, kind: ConfigMap, metadata: {name: color}, data: {color: blue}}}
    - text: the ConfigMap size exists
      expect:
        object: {apiVersion: v1, kind: ConfigMap, metadata: {name: size}}
      finish: other
  zh:
    title: 有起点的一课
    start:
      text: ConfigMap color，你的或者这一课的。
      needs: [ConfigMap color 已经存在, ConfigMap size 已经存在]
  steps:
  - task:
      text: do it
      check: [{expect: {object: {apiVersion: v1, kind: ConfigMap, metadata: {name: color}}}}]
      hints: [kubectl get cm color]
    zh: {task: {text: 做吧, hints: [kubectl get cm color]}}
`

// A lesson's start loads, typed, reads Chinese under --lang zh, and
// Untranslated names its texts when they have no Chinese.
func TestStartLoadsAndSpeaksChinese(t *testing.T) {
	s, err := Parse("start.yaml", []byte(startLesson), nil)
	if err != nil {
		t.Fatal(err)
	}
	st := s.Spec.Start
	if st == nil || len(st.Needs) != 2 || len(st.Needs[0].Make) != 1 || st.Needs[0].Make[0].Apply == nil || st.Needs[1].Finish != "other" {
		t.Fatalf("start: %+v", st)
	}
	zh := s.In(lang.ZH).Spec.Start
	if zh.Text != "ConfigMap color，你的或者这一课的。" || zh.Needs[1].Text != "ConfigMap size 已经存在" {
		t.Errorf("start in Chinese: %+v", zh)
	}
	if en, cn := st.Needs[0].Make[0].Describe(), zh.Needs[0].Make[0].Describe(); en == cn {
		t.Errorf("a make step in Chinese describes itself as in English: %q", cn)
	}
	if s.Spec.Start.Needs[1].Text != "the ConfigMap size exists" {
		t.Errorf("In changed the lesson it was called on: %q", s.Spec.Start.Needs[1].Text)
	}
	if got := s.Untranslated(lang.ZH); got != nil {
		t.Errorf("untranslated: %q", got)
	}
	bare, err := Parse("start.yaml", []byte(strings.Replace(startLesson, "needs: [ConfigMap color 已经存在, ConfigMap size 已经存在]", "needs: [ConfigMap color 已经存在, '']", 1)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := bare.Untranslated(lang.ZH); !slices.Equal(got, []string{"spec.zh.start.needs[1]"}) {
		t.Errorf("untranslated: %q", got)
	}
}

// A start that is wrong is refused, each problem named with its field.
func TestStartRefuses(t *testing.T) {
	for _, c := range []struct{ name, from, to, want string }{
		{"unknown field", "    needs:\n", "    need:\n", `unknown field "need" in start (fields: text, needs)`},
		{"in a scenario", "kind: Lesson", "kind: Scenario", "spec.start: the state a lesson starts from: it belongs in a lesson"},
		{"no text", "    text: The ConfigMap color, yours or the lesson's.\n", "", "spec.start.text is required"},
		{"no expect", "      expect:\n        object: {apiVersion: v1, kind: ConfigMap, metadata: {name: size}}\n", "", "spec.start.needs[1].expect is required"},
		{"neither make nor finish", "      finish: other\n", "", "spec.start.needs[1]: give make (the steps that make it) or finish"},
		{"a bad CEL", "cel: has(object.data)", "cel: has(object.data", "spec.start.needs[0]: expect.cel:"},
		{"a step the learner reads", "      - apply: {object: {apiVersion: v1, kind: ConfigMap, metadata: {name: color}, data: {color: blue}}}\n", "      - narrate: hello\n", "spec.start.needs[0].make[0]: narrate: a need is made by apply, delete, patch, expect steps only"},
		{"finish itself", "finish: other", "finish: start", `spec.start.needs[1].finish "start" is this lesson`},
		{"Chinese needs", "needs: [ConfigMap color 已经存在, ConfigMap size 已经存在]", "needs: [ConfigMap color 已经存在]", "spec.zh.start.needs: 1 texts, want one for each of spec.start.needs (2)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := strings.Replace(startLesson, c.from, c.to, 1)
			if data == startLesson {
				t.Fatalf("%q is not in the lesson", c.from)
			}
			_, err := Parse("start.yaml", []byte(data), nil)
			var le *LoadError
			if !errors.As(err, &le) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want %q", err, c.want)
			}
		})
	}
}

// crdlab scenario explain shows what a lesson starts from, and what it
// does for each need that does not hold.
func TestExplainShowsTheStart(t *testing.T) {
	s, err := Parse("start.yaml", []byte(startLesson), nil)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	Explain(&b, s)
	for _, want := range []string{
		"Starts from\n  The ConfigMap color, yours or the lesson's.\n",
		"  - the ConfigMap color exists (made by the lesson when it does not hold)\n",
		"  - the ConfigMap size exists (when it does not hold: crdlab learn other\n    first)\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("explain lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	Explain(&b, s.In(lang.ZH))
	if !strings.Contains(b.String(), "起点\n  ConfigMap color，你的或者这一课的。\n") || !strings.Contains(b.String(), "ConfigMap size 已经存在（不满足时：先运行 crdlab learn other）") {
		t.Errorf("explain in Chinese:\n%s", b.String())
	}
}
