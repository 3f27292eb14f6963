package scenarios

import (
	"testing"

	"github.com/crdlab/crdlab/lab/lang"
)

// Every built-in scenario is written in Chinese too: each text a learner
// reads (title, concept, explanation, step names, narration) has its zh
// version, so that --lang zh shows no English but Kubernetes' own words.
func TestBuiltinScenariosHaveChinese(t *testing.T) {
	all, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range all {
		for _, path := range s.Untranslated(lang.ZH) {
			t.Errorf("%s: %s is missing: the text has no Chinese version", s.Source(), path)
		}
	}
}
