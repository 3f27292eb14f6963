package ui

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/crdlab/crdlab/lab/timeline"
)

// applyDiff applies a diff made by unifiedDiff to old, checking every
// context and removed line against old and every hunk's line numbers.
func applyDiff(old, diff string) (string, error) {
	ol := splitLines(old)
	var out []string
	next := 0 // the next line of old to copy
	for i, l := range splitLines(diff) {
		if strings.HasPrefix(l, "@@") {
			var a, b int
			if _, err := fmt.Sscanf(l, "@@ -%d +%d @@", &a, &b); err != nil {
				return "", fmt.Errorf("diff line %d: %q: %w", i+1, l, err)
			}
			if a-1 < next || a-1 > len(ol) {
				return "", fmt.Errorf("diff line %d: hunk at old line %d, after line %d", i+1, a, next)
			}
			out = append(out, ol[next:a-1]...)
			next = a - 1
			if len(out) != b-1 {
				return "", fmt.Errorf("diff line %d: hunk at new line %d, but it follows line %d", i+1, b, len(out))
			}
			continue
		}
		switch l[0] {
		case ' ', '-':
			if next >= len(ol) || ol[next] != l[1:] {
				return "", fmt.Errorf("diff line %d: %q does not match old line %d", i+1, l, next+1)
			}
			if l[0] == ' ' {
				out = append(out, l[1:])
			}
			next++
		case '+':
			out = append(out, l[1:])
		default:
			return "", fmt.Errorf("diff line %d: %q", i+1, l)
		}
	}
	return joinLines(append(out, ol[next:]...)), nil
}

// changedLines counts the removed and added lines of a diff.
func changedLines(diff string) (removed, added int) {
	for _, l := range splitLines(diff) {
		switch {
		case strings.HasPrefix(l, "@@"):
		case l[0] == '-':
			removed++
		case l[0] == '+':
			added++
		}
	}
	return removed, added
}

// The diff used to give up past 2,000 lines between the first and the last
// change, showing the whole middle removed and added.
func TestABigObjectsHistoryHasItsDiff(t *testing.T) {
	const n = 3000
	status := func(changed ...int) map[string]any {
		s := map[string]any{}
		for i := range n {
			s[fmt.Sprintf("c%04d", i)] = "value"
		}
		for _, i := range changed {
			s[fmt.Sprintf("c%04d", i)] = "changed"
		}
		return s
	}
	st := newStore()
	v1 := pod("big", "big", "1", status())
	st.observe(timeline.Change{Resource: podsGVR, Kind: "Pod", New: v1, Initial: true})
	v2 := pod("big", "big", "2", status(10, 1500, 2990))
	st.observe(timeline.Change{Resource: podsGVR, Kind: "Pod", Old: v1, New: v2,
		Event: &timeline.Event{Actor: "x", Verb: timeline.Status, Kind: "Pod", Name: "big"}})
	p, ok := st.page("big")
	if !ok || len(p.History) != 2 {
		t.Fatalf("page %v, history %+v", ok, p.History)
	}
	diff := p.History[0].Diff
	if r, a := changedLines(diff); r != 3 || a != 3 || strings.Count(diff, "@@ -") != 3 {
		t.Errorf("%d lines removed, %d added, %d hunks: want 3, 3 and 3:\n%.2000s", r, a, strings.Count(diff, "@@ -"), diff)
	}
	for _, want := range []string{"-  c0010: value\n+  c0010: changed\n", "-  c1500: value\n+  c1500: changed\n", "-  c2990: value\n+  c2990: changed\n"} {
		if !strings.Contains(diff, want) {
			t.Errorf("the diff has no %q", want)
		}
	}
	old, cur := toYAML(v1, true), toYAML(v2, true)
	if got, err := applyDiff(old, diff); err != nil || got != cur {
		t.Errorf("applying the diff to the old version: %v; got the new version: %v", err, got == cur)
	}
}

func TestUnifiedDiffAppliesBack(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	// distinct: how many different lines the texts have (past 55,296 the
	// library's line symbols pass the UTF-16 surrogates).
	for _, tc := range []struct{ lines, distinct, edits int }{
		{10, 3, 4}, {3000, 50, 300}, {3000, 3000, 3000}, {70000, 70000, 40},
	} {
		t.Run(fmt.Sprint(tc), func(t *testing.T) {
			var a []string
			for range tc.lines {
				a = append(a, fmt.Sprintf("line %d", r.IntN(tc.distinct)))
			}
			a[0] = "" // an empty line
			b := append([]string(nil), a...)
			for range tc.edits {
				i := r.IntN(len(b))
				switch r.IntN(3) {
				case 0:
					b = append(b[:i], b[i+1:]...)
				case 1:
					b = append(b[:i], append([]string{"new"}, b[i:]...)...)
				default:
					b[i] = fmt.Sprintf("line %d", r.IntN(tc.distinct))
				}
			}
			old, cur := joinLines(a), joinLines(b)
			diff := unifiedDiff(old, cur)
			if got, err := applyDiff(old, diff); err != nil || got != cur {
				t.Fatalf("applying the diff to the old text: %v; got the new text: %v", err, got == cur)
			}
			if r, a := changedLines(diff); r+a > 2*tc.edits {
				t.Errorf("%d lines removed and %d added for %d edits", r, a, tc.edits)
			}
		})
	}
}
