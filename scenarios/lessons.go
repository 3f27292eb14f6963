package scenarios

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/crdlab/crdlab/fixtures"
	"github.com/crdlab/crdlab/scenarios/format"
)

// lessonsFS holds the built-in lessons (lessons/NAME.yaml) and their
// files (lessons/_files/NAME/: what the learner starts from, and what the
// lesson applies). The folder's leading _ keeps the Go files of a lesson
// (a controller's skeleton, a module of its own) out of this module's
// packages; a go.mod or go.sum is kept as go.mod.txt, go.sum.txt, which
// the learner's copy names go.mod, go.sum.
//
//go:embed lessons/*.yaml all:lessons/_files
var lessonsFS embed.FS

// lessonOrder is the order of the built-in lessons: the seed's chapter's.
var lessonOrder = []string{"crd-basics", "crd-validation", "no-controller", "aggregator", "reconcile-loop", "operator"}

// ErrNoLesson is returned by LoadLesson for a name that is no lesson.
var ErrNoLesson = errors.New("no such lesson")

// Lessons returns the built-in lessons, in order.
func Lessons() ([]*Scenario, error) {
	var out []*Scenario
	for _, name := range lessonOrder {
		s, err := loadBuiltinLesson(name)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// LessonNames lists the built-in lessons, in order.
func LessonNames() []string { return append([]string(nil), lessonOrder...) }

func loadBuiltinLesson(name string) (*Scenario, error) {
	file := "lessons/" + name + ".yaml"
	data, err := lessonsFS.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("%w %q: lessons are %s", ErrNoLesson, name, strings.Join(lessonOrder, ", "))
	}
	s, err := format.Parse(file, data, func(f string) ([]byte, error) {
		if rest, ok := strings.CutPrefix(f, "fixtures/"); ok {
			return fixtures.FS.ReadFile(rest)
		}
		return lessonsFS.ReadFile(path.Join("lessons/_files", name, f))
	})
	if err != nil {
		return nil, err
	}
	return s, checkLesson(s)
}

func checkLesson(s *Scenario) error {
	if !s.IsLesson() {
		return fmt.Errorf("%s: kind %s, want %s: run a scenario with crdlab scenario run", s.Source(), s.Kind, format.KindLesson)
	}
	return nil
}

// LoadLesson returns the built-in lesson of that name, or, when arg is a
// file (it has a / or ends in .yaml or .yml), the lesson in that file.
// A lesson's apply steps read their files in the lesson's files: a
// built-in one's embedded, a file's in the folder NAME beside it (a path
// fixtures/... names the repository's sample manifests, as in scenarios).
func LoadLesson(arg string) (*Scenario, error) {
	if !strings.ContainsRune(arg, '/') && !strings.HasSuffix(arg, ".yaml") && !strings.HasSuffix(arg, ".yml") {
		return loadBuiltinLesson(arg)
	}
	data, err := os.ReadFile(arg)
	if err != nil {
		return nil, fmt.Errorf("unable to read lesson: %w", err)
	}
	// Its files' folder is named after it: read the name first.
	var head struct {
		Metadata struct {
			Name string `yaml:"name"`
		} `yaml:"metadata"`
	}
	_ = yaml.Unmarshal(data, &head)
	files := fileLessonFiles(arg, head.Metadata.Name)
	s, err := format.Parse(arg, data, func(f string) ([]byte, error) {
		if filepath.IsAbs(f) {
			return os.ReadFile(f)
		}
		data, err := os.ReadFile(filepath.Join(files, f))
		if rest, ok := strings.CutPrefix(f, "fixtures/"); ok && errors.Is(err, os.ErrNotExist) {
			return fixtures.FS.ReadFile(rest) // the repository's samples, as in scenarios
		}
		return data, err
	})
	if err != nil {
		return nil, err
	}
	return s, checkLesson(s)
}

// LessonFiles returns the files of a lesson: of a built-in one, embedded;
// of a file, the folder NAME beside it (nil: it has none).
func LessonFiles(s *Scenario) fs.FS {
	if strings.HasPrefix(s.Source(), "lessons/") {
		sub, err := fs.Sub(lessonsFS, "lessons/_files/"+s.Metadata.Name)
		if err != nil {
			return nil
		}
		return sub
	}
	dir := fileLessonFiles(s.Source(), s.Metadata.Name)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil
	}
	return os.DirFS(dir)
}

// fileLessonFiles is the folder of the files of the lesson in file: NAME
// beside it, or _files/NAME as the built-in lessons have them
// (scenarios/lessons in the repository).
func fileLessonFiles(file, name string) string {
	dir := filepath.Join(filepath.Dir(file), name)
	if _, err := os.Stat(dir); err != nil {
		if builtin := filepath.Join(filepath.Dir(file), "_files", name); isDir(builtin) {
			return builtin
		}
	}
	return dir
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// WriteLessonFiles copies the lesson's files into dir, for the learner to
// read, edit and run. A file there already is kept as it is: it is the
// learner's work. A go.mod.txt or go.sum.txt is written as go.mod, go.sum.
// It returns the files written.
func WriteLessonFiles(s *Scenario, dir string) ([]string, error) {
	files := LessonFiles(s)
	if files == nil {
		return nil, nil
	}
	var written []string
	err := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		switch path.Base(p) {
		case "go.mod.txt", "go.sum.txt":
			target = strings.TrimSuffix(target, ".txt")
		}
		if _, err := os.Stat(target); err == nil {
			return nil // the learner's
		}
		data, err := fs.ReadFile(files, p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(target, data, 0o644); err != nil {
			return err
		}
		written = append(written, target)
		return nil
	})
	if err != nil {
		return written, fmt.Errorf("unable to write the files of lesson %s to %s: %w", s.Metadata.Name, dir, err)
	}
	return written, nil
}

// isLessonFile reports whether the YAML file says kind: Lesson.
func isLessonFile(path string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var head struct {
		Kind string `yaml:"kind"`
	}
	_ = yaml.Unmarshal(data, &head)
	return head.Kind == format.KindLesson
}
