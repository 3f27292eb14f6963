package kubedefaults

import (
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docs/kubernetes.md's tables name what a lab runs and leaves out, as the
// lists here have them: the controllers run, the controllers excluded and
// the admission plugins turned off, each table exactly its list.
func TestDocsStateTheLists(t *testing.T) {
	const doc = "../../../docs/kubernetes.md"
	data, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	section := func(from, to string) string {
		i, j := strings.Index(text, from), strings.Index(text, to)
		if i < 0 || j < i {
			t.Fatalf("%s: no section from %q to %q", doc, from, to)
		}
		return text[i:j]
	}
	// The first cell of each table row: the names in backticks.
	names := func(s string) []string {
		var out []string
		for _, line := range strings.Split(s, "\n") {
			cells := strings.Split(line, "|")
			if len(cells) < 3 || !strings.HasPrefix(line, "| `") {
				continue
			}
			for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(cells[1], -1) {
				out = append(out, m[1])
			}
		}
		slices.Sort(out)
		return out
	}
	for _, c := range []struct {
		what, from, to string
		want           []string
	}{
		{"controllers run", "kube-controller-manager's controllers (`--controllers`)", "Default-on controllers a lab leaves out", slices.Sorted(slices.Values(Controllers))},
		{"controllers excluded", "Default-on controllers a lab leaves out", "kube-apiserver's admission plugins", slices.Sorted(maps.Keys(ExcludedControllers))},
		{"admission plugins off", "kube-apiserver's admission plugins", "## What differs between minors", DisabledAdmissionPlugins()},
	} {
		if got := names(section(c.from, c.to)); !slices.Equal(got, c.want) {
			t.Errorf("%s: the %s are\n\t%q\nthe lists (lab/internal/kubedefaults) say\n\t%q", doc, c.what, got, c.want)
		}
	}
}
