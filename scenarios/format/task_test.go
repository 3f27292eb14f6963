package format

import (
	"os"
	"strings"
	"testing"

	"github.com/crdlab/crdlab/lab/lang"
)

// A lesson's task loads with its checks and hints, reads Chinese under
// --lang zh, and Untranslated names its text and each hint.
func TestTaskLoadsAndSpeaksChinese(t *testing.T) {
	s, err := LoadFile("../testdata/lesson/task.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !s.IsLesson() {
		t.Error("kind Lesson: not a lesson")
	}
	task := s.Spec.Steps[0].Task
	if task == nil || len(task.Check) != 2 || len(task.Hints) != 2 || task.HintAfter == nil || task.HintAfter.Duration != 0 {
		t.Fatalf("task: %+v", task)
	}
	zh := s.In(lang.ZH)
	if got := zh.Spec.Steps[0].Task.Text; !strings.HasPrefix(got, "用 kubectl") {
		t.Errorf("task text in Chinese: %q", got)
	}
	if got := zh.Spec.Steps[0].Task.Hints[1]; got != "kubectl create configmap color --from-literal=color=green" {
		t.Errorf("hint in Chinese: %q", got)
	}
	if s.Spec.Steps[0].Task.Text != "Create the ConfigMap color with data.color green, with kubectl." {
		t.Errorf("In changed the lesson it was called on: %q", s.Spec.Steps[0].Task.Text)
	}
	if zh.Lang() != lang.ZH || s.Lang() != lang.EN {
		t.Errorf("Lang: %s, %s", zh.Lang(), s.Lang())
	}
	if got := s.Untranslated(lang.ZH); got != nil {
		t.Errorf("untranslated: %q", got)
	}
	s.Spec.Steps[0].ZH.Task = &TaskZH{Hints: []string{"", "b"}}
	want := "spec.steps[0].zh.task.text spec.steps[0].zh.task.hints[0]"
	if got := strings.Join(s.Untranslated(lang.ZH), " "); got != want {
		t.Errorf("untranslated %q, want %q", got, want)
	}
}

func TestTaskProblems(t *testing.T) {
	head := "apiVersion: crdlab.dev/v1alpha1\nkind: Lesson\nmetadata: {name: x}\nspec:\n  title: t\n  steps:\n"
	expect := "{expect: {resource: {apiVersion: v1, kind: Pod}, cel: 'objects.size() == 1'}}"
	for _, tc := range []struct{ name, yaml, want string }{
		{"task in a scenario", strings.Replace(head, "kind: Lesson", "kind: Scenario", 1) + "  - task: {text: do, check: [" + expect + "]}\n",
			":7: spec.steps[0]: task: a task waits for a learner: it belongs in a lesson"},
		{"no text", head + "  - task: {check: [" + expect + "]}\n", ":7: spec.steps[0]: task.text is required"},
		{"no check", head + "  - task: {text: do}\n", ":7: spec.steps[0]: task.check is required"},
		{"empty check", head + "  - task: {text: do, check: [{}]}\n", "task.check[0]: give exactly one of expect, expectError, expectAccepted and expectRestored"},
		{"two kinds", head + "  - task: {text: do, check: [{expectAccepted: {apply: {object: {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}}}, " + strings.TrimPrefix(expect, "{")[:len(expect)-2] + "}]}\n", "task.check[0]: give exactly one of expect, expectError, expectAccepted and expectRestored"},
		{"restored with no name", head + "  - task: {text: do, check: [{expectRestored: {apiVersion: v1, kind: ConfigMap}}]}\n", "task.check[0].expectRestored: name is required"},
		{"accepted with no write", head + "  - task: {text: do, check: [{expectAccepted: {}}]}\n", "task.check[0].expectAccepted: apply is required"},
		{"a cause with no field", head + "  - task: {text: do, check: [{expectError: {apply: {object: {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}}, causes: [{reason: FieldValueRequired}]}}]}\n", "expectError.causes[0].field is required"},
		{"a cause's reason", head + "  - task: {text: do, check: [{expectError: {apply: {object: {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}}, causes: [{field: data, reason: Required}]}}]}\n", `expectError.causes[0].reason "Required": want one of FieldValueInvalid, FieldValueRequired`},
		{"bad CEL", head + "  - task: {text: do, check: [{expect: {resource: {apiVersion: v1, kind: Pod}, cel: 'a =='}}]}\n", "task.check[0]: expect.cel:"},
		{"delete probe", head + "  - task: {text: do, check: [{expectError: {delete: {apiVersion: v1, kind: Pod, name: a}}}]}\n", "a task tries its write as a dry run"},
		{"unknown check field", head + "  - task: {text: do, check: [{expct: {}}]}\n", `:7: unknown field "expct" in a task's check (fields: text, expect, expectError, expectAccepted, expectRestored, by, notBy, fields)`},
		{"an actor unknown", head + "  - task: {text: do, check: [{expect: {object: {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}}, by: operator}]}\n", `task.check[0]: by "operator": want one of learner, learner-controller, garbage-collector`},
		{"notBy unknown", head + "  - task: {text: do, check: [{expect: {object: {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}}, notBy: [lab]}]}\n", `task.check[0]: notBy[0] "lab": want one of`},
		{"by and notBy alike", head + "  - task: {text: do, check: [{expect: {object: {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}}, by: crdlab, notBy: [crdlab]}]}\n", `notBy[0] "crdlab": also by`},
		{"by on a dry run", head + "  - task: {text: do, check: [{expectAccepted: {apply: {object: {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}}}, by: learner}]}\n", "by, notBy: only an expect or an expectRestored reads who made what it sees"},
		{"by on cel without fields", head + "  - task: {text: do, check: [{expect: {resource: {apiVersion: v1, kind: Pod, name: a}, cel: 'true'}, by: learner-controller}]}\n", "an expect with cel needs fields"},
		{"fields without by", head + "  - task: {text: do, check: [{expect: {resource: {apiVersion: v1, kind: Pod, name: a}, cel: 'true'}, fields: [status]}]}\n", "fields: only with by or notBy"},
		{"fields on an object", head + "  - task: {text: do, check: [{expect: {object: {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}}, by: learner, fields: [data]}]}\n", "fields: only with an expect of a resource with cel"},
		{"a bad field", head + "  - task: {text: do, check: [{expect: {resource: {apiVersion: v1, kind: Pod, name: a}, cel: 'true'}, by: learner, fields: [status.]}]}\n", `fields[0] "status.": want a path`},
		{"absent by with no name", head + "  - task: {text: do, check: [{expect: {resource: {apiVersion: v1, kind: Pod}, absent: true}, by: garbage-collector}]}\n", "an expect of absent reads who deleted one object: give its name"},
		{"allowEmpty with a name", head + "  - task: {text: do, check: [{expect: {resource: {apiVersion: v1, kind: Pod, name: a}, cel: 'true', allowEmpty: true}}]}\n", "expect.allowEmpty: only with resource (no name) and cel"},
		{"zh hints", head + "  - task: {text: do, hints: [a], check: [" + expect + "]}\n    zh: {task: {text: 做, hints: [一, 二]}}\n", "zh.task.hints: 2 hints, want as many as task.hints (1)"},
		{"zh task elsewhere", head + "  - wait: 1s\n    zh: {task: {text: 做}}\n", "zh.task: only a task step has a task's text, not wait"},
		{"timeout", head + "  - task: {text: do, check: [" + expect + "]}\n    timeout: 1s\n", "timeout applies to expect"},
		{"wrong kind", strings.Replace(head, "kind: Lesson", "kind: Lessen", 1) + "  - wait: 1s\n", `:2: kind is "Lessen", want Scenario (or Lesson)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("f.yaml", []byte(tc.yaml), func(string) ([]byte, error) { return nil, os.ErrNotExist })
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
}
