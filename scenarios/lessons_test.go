package scenarios

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/crdlab/crdlab/lab/lang"
)

// Every built-in lesson loads strictly (its files exist and decode, its
// CEL compiles), is a lesson with at least one task, and is written in
// Chinese too: its title, concept, explanation, narration, step names,
// every task's text and every hint.
func TestBuiltinLessonsLoadInBothLanguages(t *testing.T) {
	all, err := Lessons()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(LessonNames(), ","); len(all) != len(lessonFileNames()) || len(all) < 5 || !strings.HasPrefix(got, "crd-basics,crd-validation,") {
		t.Errorf("lessons %s, of the files %v", got, lessonFileNames())
	}
	for _, s := range all {
		if !strings.HasSuffix(s.Source(), "/"+s.Metadata.Name+".yaml") {
			t.Errorf("%s is in %s: name and file differ", s.Metadata.Name, s.Source())
		}
		if s.Spec.Explanation == "" || s.Spec.Concept == "" {
			t.Errorf("%s: a lesson needs a concept and an explanation", s.Metadata.Name)
		}
		tasks := 0
		for i := range s.Spec.Steps {
			if s.Spec.Steps[i].Task != nil {
				tasks++
				if len(s.Spec.Steps[i].Task.Hints) == 0 {
					t.Errorf("%s: step %d: a task without hints", s.Metadata.Name, i+1)
				}
			}
		}
		if tasks == 0 {
			t.Errorf("%s: no task", s.Metadata.Name)
		}
		for _, path := range s.Untranslated(lang.ZH) {
			t.Errorf("%s: %s is missing: the text has no Chinese version", s.Source(), path)
		}
	}
}

// A lesson that is no lesson, a lesson file with a problem and an unknown
// name are refused, with the file and line.
func TestLoadLessonRefuses(t *testing.T) {
	if _, err := LoadLesson("no-such-lesson"); err == nil || !strings.Contains(err.Error(), "crd-basics") {
		t.Errorf("unknown lesson: %v", err)
	}
	if _, err := LoadLesson("builtin/delete-pod.yaml"); err == nil {
		t.Error("a scenario file loaded as a lesson")
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("apiVersion: crdlab.dev/v1alpha1\nkind: Lesson\nmetadata: {name: bad}\nspec:\n  title: t\n  steps:\n  - task: {text: do, check: [{expect: {}}], hint: [x]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadLesson(bad)
	if err == nil || !strings.Contains(err.Error(), bad+`:7: unknown field "hint" in task`) {
		t.Errorf("got %v", err)
	}
	if _, err := LoadLesson("testdata/lesson/task.yaml"); err != nil {
		t.Errorf("a lesson file: %v", err)
	}
}

// The lesson's files are written for the learner, go.mod.txt as go.mod;
// a file the learner changed is kept.
func TestWriteLessonFilesKeepsTheLearners(t *testing.T) {
	s, err := LoadLesson("crd-validation")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	written, err := WriteLessonFiles(s, dir)
	if err != nil || len(written) == 0 {
		t.Fatalf("written %v, %v", written, err)
	}
	mine := filepath.Join(dir, "users-crd.v1.yaml")
	if err := os.WriteFile(mine, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	again, err := WriteLessonFiles(s, dir)
	if err != nil || len(again) != 0 {
		t.Errorf("written again %v, %v", again, err)
	}
	if data, _ := os.ReadFile(mine); string(data) != "mine\n" {
		t.Errorf("the learner's file was replaced: %q", data)
	}
}

// The built-in lessons load as files too (crdlab scenario lint, crdlab
// learn FILE): their files are found in _files/NAME beside them, and
// fixtures/ in the repository's samples.
func TestBuiltinLessonFilesLoad(t *testing.T) {
	files, _ := filepath.Glob("lessons/*.yaml")
	if len(files) != len(LessonNames()) {
		t.Errorf("lesson files %v, lessons %v", files, LessonNames())
	}
	for _, f := range files {
		s, err := Load(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if !s.IsLesson() || LessonFiles(s) == nil {
			t.Errorf("%s: a lesson %v, with files %v", f, s.IsLesson(), LessonFiles(s) != nil)
		}
	}
}

// Each lesson ends by naming the course's next lesson (crdlab learn NEXT),
// in English and in Chinese, so that a lesson added to the course, or moved
// in it, cannot leave a closing text that points the learner elsewhere.
func TestLessonsNameTheNextOfTheCourse(t *testing.T) {
	all, err := Lessons()
	if err != nil {
		t.Fatal(err)
	}
	space := regexp.MustCompile(`\s+`)
	for i, s := range all[:len(all)-1] {
		next := "crdlab learn " + all[i+1].Metadata.Name
		var en, zh string
		for _, st := range s.Spec.Steps {
			if st.Narrate != "" {
				en, zh = st.Narrate, ""
				if st.ZH != nil {
					zh = st.ZH.Narrate
				}
			}
		}
		if !strings.Contains(space.ReplaceAllString(en, " "), next) {
			t.Errorf("%s: its last narration does not name the course's next lesson (%s):\n%s", s.Metadata.Name, next, en)
		}
		if !strings.Contains(space.ReplaceAllString(zh, " "), next) {
			t.Errorf("%s: its last narration in Chinese does not name the course's next lesson (%s):\n%s", s.Metadata.Name, next, zh)
		}
	}
}

// Every lesson of the course declares the state it starts from
// (spec.start), in both languages: a learner comes by any path the course
// map allows, or from a fresh lab (the course-paths test plays each).
func TestEveryLessonDeclaresItsStart(t *testing.T) {
	all, err := Lessons()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range all {
		if s.Spec.Start == nil {
			t.Errorf("%s: spec.start: the lesson does not say what it starts from", s.Source())
		}
	}
}
