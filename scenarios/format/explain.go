package format

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/crdlab/crdlab/lab/kubeminor"
	"github.com/crdlab/crdlab/lab/lang"
)

// Explain writes what a scenario shows: its title, concept, what it needs,
// its steps with their narration, and its explanation.
// In the language of the scenario (Scenario.In).
func Explain(w io.Writer, s *Scenario) {
	l := s.Lang()
	fmt.Fprint(w, l.Msgf("%s: %s\n", s.Metadata.Name, s.Spec.Title))
	if s.Spec.Concept != "" {
		fmt.Fprint(w, l.Msgf("concept: %s\n", s.Spec.Concept))
	}
	if len(s.Spec.Requires) > 0 {
		fmt.Fprint(w, l.Msgf("needs:   %s\n", strings.Join(s.Spec.Requires, ", ")))
	}
	fmt.Fprint(w, l.Msgf("source:  %s\n", s.source))
	fmt.Fprintln(w)
	explainStart(w, s)
	fmt.Fprintln(w, l.Msg("Steps"))
	if s.HasMinorSteps() {
		for _, line := range Wrap(minorsLegend(s), 76) {
			fmt.Fprintln(w, "  "+line)
		}
	}
	n := 0
	for i := range s.Spec.Steps {
		st := &s.Spec.Steps[i]
		minors := "" // a step of some minors says which, as the scenario's page does
		if st.Kubernetes != "" {
			minors = l.Msgf("(Kubernetes %s) ", st.Kubernetes)
		}
		if st.Narrate != "" {
			for _, line := range Wrap(minors+st.Narrate, 72) {
				fmt.Fprintln(w, "      "+line)
			}
			continue
		}
		n++
		fmt.Fprintf(w, "  %2d. %s%s\n", n, minors, st.Describe())
		if st.Task != nil {
			for _, line := range Wrap(st.Task.Text, 70) {
				fmt.Fprintln(w, "        "+line)
			}
			if len(st.Task.Hints) > 0 {
				fmt.Fprintln(w, "        "+l.Msgf("(%d hints)", len(st.Task.Hints)))
			}
		}
	}
	if s.Spec.Explanation != "" {
		fmt.Fprintln(w)
		fmt.Fprintln(w, l.Msg("What it shows"))
		for _, line := range Wrap(s.Spec.Explanation, 76) {
			fmt.Fprintln(w, "  "+line)
		}
	}
}

// minorsLegend says what a step's "(Kubernetes >=1.37)" means to a reader
// who may have no lab yet: explain reads no cluster, and the minor is the
// lab's, chosen when it starts (crdlab up --kubernetes). So every step is
// listed, each of some minors marked, with the minors crdlab serves and the
// one crdlab up starts.
func minorsLegend(s *Scenario) string {
	l := s.Lang()
	served := kubeminor.Supported()
	and := l.Msg("and")
	list := kubeminor.List(served, and)
	if l == lang.ZH && len(served) > 1 {
		list = strings.Join(served[:len(served)-1], "、") + " " + and + " " + served[len(served)-1]
	}
	return l.Msgf("A step marked (Kubernetes …) runs only on a lab of those minors, and is left out on the others: "+
		"a lab runs one, crdlab up starts %s (--kubernetes chooses among %s).", kubeminor.BuiltIn, list)
}

// Wrap folds text into lines of at most width columns, keeping paragraphs
// (blank lines) and lines that start with spaces or "-" (lists, commands).
// Chinese text, which has no spaces, folds between its characters (each
// two columns wide), and its lines join with no space between them.
func Wrap(text string, width int) []string {
	var out []string
	var cur strings.Builder
	curLen := 0
	var last rune // the last rune of the paragraph so far
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
			curLen = 0
		}
	}
	const (
		noSpace = iota
		space
		newline
	)
	gap := noSpace
	add := func(tok string) {
		first, _ := utf8.DecodeRuneInString(tok)
		n := Columns(tok)
		// A line break is a space, but between two Chinese characters, or
		// beside Chinese punctuation.
		sp := gap == space || gap == newline && !(wide(last) && wide(first)) && !cjkPunct(last) && !cjkPunct(first)
		if sp && curLen > 0 {
			n++
		}
		if curLen > 0 && curLen+n > width && !closing(first) {
			flush()
			sp, n = false, Columns(tok)
		}
		if sp && curLen > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(tok)
		curLen += n
		last, _ = utf8.DecodeLastRuneInString(tok)
		gap = noSpace
	}
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		switch {
		case strings.TrimSpace(line) == "":
			flush()
			out = append(out, "")
			gap, last = noSpace, 0
			continue
		case strings.HasPrefix(line, " "), strings.HasPrefix(line, "-"), strings.HasPrefix(line, "$"):
			flush()
			out = append(out, line)
			gap, last = noSpace, 0
			continue
		}
		if cur.Len() > 0 {
			gap = newline
		}
		word := []rune{}
		endWord := func() {
			if len(word) > 0 {
				add(string(word))
				word = word[:0]
			}
		}
		for _, r := range line {
			switch {
			case unicode.IsSpace(r):
				endWord()
				if cur.Len() > 0 {
					gap = space
				}
			case wide(r):
				endWord()
				add(string(r))
			default:
				word = append(word, r)
			}
		}
		endWord()
	}
	flush()
	return out
}

// wide reports whether r takes two columns: Chinese (and Japanese, Korean)
// characters and their punctuation.
func wide(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) ||
		unicode.Is(unicode.Hangul, r) || r >= 0x3000 && r <= 0x303f || r >= 0xff00 && r <= 0xff60 || r >= 0xffe0 && r <= 0xffe6
}

// cjkPunct reports whether r is Chinese punctuation, which needs no
// space beside it.
func cjkPunct(r rune) bool { return r >= 0x3000 && r <= 0x303f || r >= 0xff00 && r <= 0xff60 }

// closing reports whether r is punctuation that must not begin a line.
func closing(r rune) bool {
	return strings.ContainsRune("，。、；：？！）》」』】,.;:?!)", r)
}

// Columns is how many columns s takes on a terminal: two for each Chinese
// character.
func Columns(s string) int {
	n := 0
	for _, r := range s {
		n++
		if wide(r) {
			n++
		}
	}
	return n
}
