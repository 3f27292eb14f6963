package ui

import (
	"fmt"
	"strings"
)

// maxDiffLines bounds the work of a diff: past it, the whole old text is
// shown removed and the whole new text added.
const maxDiffLines = 2000

// context is how many unchanged lines a hunk shows around a change.
const diffContext = 3

// unifiedDiff returns the line diff of a and b in unified form ("@@",
// then lines starting with ' ', '-' or '+'), or "" when they are equal.
func unifiedDiff(a, b string) string {
	if a == b {
		return ""
	}
	al, bl := splitLines(a), splitLines(b)
	ops := diffLines(al, bl)
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

// diffLines is a longest-common-subsequence line diff, after trimming the
// common prefix and suffix (most changes of an object touch a few lines).
func diffLines(a, b []string) []diffOp {
	var ops []diffOp
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		ops = append(ops, diffOp{' ', a[pre], pre, pre})
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	am, bm := a[pre:len(a)-suf], b[pre:len(b)-suf]
	ia, ib := pre, pre
	if len(am) > maxDiffLines || len(bm) > maxDiffLines {
		for _, l := range am {
			ops = append(ops, diffOp{'-', l, ia, ib})
			ia++
		}
		for _, l := range bm {
			ops = append(ops, diffOp{'+', l, ia, ib})
			ib++
		}
	} else {
		// lcs[i][j]: length of the LCS of am[i:] and bm[j:].
		n, m := len(am), len(bm)
		lcs := make([][]int32, n+1)
		for i := range lcs {
			lcs[i] = make([]int32, m+1)
		}
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				if am[i] == bm[j] {
					lcs[i][j] = lcs[i+1][j+1] + 1
				} else {
					lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
				}
			}
		}
		i, j := 0, 0
		for i < n || j < m {
			switch {
			case i < n && j < m && am[i] == bm[j]:
				ops = append(ops, diffOp{' ', am[i], ia, ib})
				i, j, ia, ib = i+1, j+1, ia+1, ib+1
			case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
				ops = append(ops, diffOp{'-', am[i], ia, ib})
				i, ia = i+1, ia+1
			default:
				ops = append(ops, diffOp{'+', bm[j], ia, ib})
				j, ib = j+1, ib+1
			}
		}
	}
	for k := len(a) - suf; k < len(a); k++ {
		ops = append(ops, diffOp{' ', a[k], ia, ib})
		ia, ib = ia+1, ib+1
	}
	return ops
}
