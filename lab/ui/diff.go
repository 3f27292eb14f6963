package ui

import (
	"fmt"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// diffContext is how many unchanged lines a hunk shows around a change.
const diffContext = 3

// unifiedDiff returns the line diff of a and b in unified form ("@@",
// then lines starting with ' ', '-' or '+'), or "" when they are equal.
func unifiedDiff(a, b string) string {
	if a == b {
		return ""
	}
	ops := diffLines(splitLines(a), splitLines(b))
	var out strings.Builder
	// Group the operations into hunks with diffContext lines around changes.
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(i-diffContext, 0)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*diffContext {
				end = min(end+diffContext, len(ops))
				break
			}
			end = run
		}
		fmt.Fprintf(&out, "@@ -%d +%d @@\n", ops[start].a+1, ops[start].b+1)
		for _, op := range ops[start:end] {
			out.WriteByte(op.kind)
			out.WriteString(op.line)
			out.WriteByte('\n')
		}
		i = end
	}
	return out.String()
}

type diffOp struct {
	kind byte // ' ', '-', '+'
	line string
	a, b int // line numbers (0-based) in a and b before this op
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// diffLines is the line diff of a and b, by diff-match-patch's Myers diff
// over lines (each distinct line one symbol). It has no size limit: past
// its deadline (a second) it returns a correct diff that may not be the
// shortest.
func diffLines(a, b []string) []diffOp {
	dmp := diffmatchpatch.New()
	ra, rb, lines := dmp.DiffLinesToRunes(joinLines(a), joinLines(b))
	var ops []diffOp
	ia, ib := 0, 0
	for _, d := range dmp.DiffCharsToLines(dmp.DiffMainRunes(ra, rb, false), lines) {
		if d.Text == "" {
			continue
		}
		// Every line of d.Text ends with "\n" (joinLines).
		for _, l := range strings.Split(d.Text[:len(d.Text)-1], "\n") {
			switch d.Type {
			case diffmatchpatch.DiffEqual:
				ops = append(ops, diffOp{' ', l, ia, ib})
				ia, ib = ia+1, ib+1
			case diffmatchpatch.DiffDelete:
				ops = append(ops, diffOp{'-', l, ia, ib})
				ia++
			case diffmatchpatch.DiffInsert:
				ops = append(ops, diffOp{'+', l, ia, ib})
				ib++
			}
		}
	}
	return ops
}

// joinLines is lines, each ended by "\n".
func joinLines(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}
