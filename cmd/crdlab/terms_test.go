package main

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/crdlab/crdlab/scenarios"
)

// glossed is a term's gloss as the glossary asks for it: in full-width
// brackets, after 常译, 写作 and the like, the other word in “”.
func glossed(alt string) *regexp.Regexp {
	return regexp.MustCompile(`（[^（）]*(?:常译|也译|又译|又称|也称|常称|也写作|写作|常说|常作)“` + regexp.QuoteMeta(alt) + `”[^（）]*）`)
}

// zhTexts returns the Chinese texts of a lesson file, in the order a
// learner reads them: every string under a zh: key, in file order.
func zhTexts(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	var out []string
	var walk func(n *yaml.Node, inZH bool)
	walk = func(n *yaml.Node, inZH bool) {
		switch n.Kind {
		case yaml.ScalarNode:
			if inZH {
				out = append(out, strings.ReplaceAll(n.Value, "\n", ""))
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				walk(n.Content[i+1], inZH || n.Content[i].Value == "zh")
			}
		default:
			for _, c := range n.Content {
				walk(c, inZH)
			}
		}
	}
	walk(&doc, false)
	return out
}

// Each glossary term that has other names (lab/lang/glossary.txt: the
// seed's, kubernetes.io/zh-cn's, the community's) is glossed with one of
// them where a learner first meets it in the course, in 'crdlab learn',
// not only in docs/zh: 名称空间（…写作“名字空间”）.
func TestCourseGlossesEachTermWhereALearnerMeetsIt(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "lab", "lang", "glossary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var course []string // the lessons' Chinese, in the course's order
	var where []string
	for _, name := range scenarios.LessonNames() {
		for _, s := range zhTexts(t, filepath.Join("..", "..", "scenarios", "lessons", name+".yaml")) {
			course = append(course, s)
			where = append(where, name)
		}
	}
	sc := bufio.NewScanner(f)
	entries := 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.SplitN(line, "|", 4)
		if len(fields) != 4 {
			continue
		}
		concept, term := strings.TrimSpace(fields[0]), strings.TrimSpace(fields[1])
		var alts []string
		for _, a := range strings.Split(fields[2], ", ") {
			if a = strings.TrimSpace(a); a != "" {
				alts = append(alts, a)
			}
		}
		if len(alts) == 0 {
			continue
		}
		entries++
		first := -1
		for i, s := range course {
			if strings.Contains(s, term) {
				first = i
				break
			}
		}
		if first < 0 {
			continue // the course never says it
		}
		ok := false
		for _, a := range alts {
			ok = ok || glossed(a).MatchString(course[first])
		}
		if !ok {
			t.Errorf("%s (%s): the course first says %s in lesson %s without a gloss of %q:\n%s", concept, term, term, where[first], alts, course[first])
		}
	}
	if entries < 10 {
		t.Errorf("only %d glossary entries with other names", entries)
	}
}
