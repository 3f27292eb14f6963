package lang

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Pseudo is a pseudo-language for tests, not a language a learner reads:
// every message the catalog translates is shown in English between ⟦ and
// ⟧ (Mark), every other as it is, so that a test can find the words that
// bypass the catalog. It is chosen by --lang xx or the locale xx; All does
// not list it.
const Pseudo Lang = "xx"

// The markers around a catalogued message in Pseudo.
const (
	MarkOpen  = "⟦"
	MarkClose = "⟧"
)

// Mark returns msg as Pseudo shows a catalogued message: each run of text
// between its format verbs (%s, %[2]d, %-24s) marked, its leading and
// trailing spaces and newlines outside the markers, and the verbs left
// bare, so that what is formatted into it shows whether it was translated.
func Mark(msg string) string {
	var b strings.Builder
	text := func(s string) {
		core := strings.TrimLeftFunc(s, unicode.IsSpace)
		b.WriteString(s[:len(s)-len(core)])
		trimmed := strings.TrimRightFunc(core, unicode.IsSpace)
		if trimmed != "" {
			b.WriteString(MarkOpen + trimmed + MarkClose)
		}
		b.WriteString(core[len(trimmed):])
	}
	start := 0
	for i := 0; i < len(msg); i++ {
		if msg[i] != '%' {
			continue
		}
		if i+1 < len(msg) && msg[i+1] == '%' {
			i++
			continue
		}
		j := i + 1
		for j < len(msg) && strings.IndexByte("+-# 0123456789.[]*", msg[j]) >= 0 {
			j++
		}
		if j < len(msg) {
			j++ // the verb
		}
		text(msg[start:i])
		b.WriteString(msg[i:j])
		start, i = j, j-1
	}
	text(msg[start:])
	return b.String()
}

// pseudo returns msg as Pseudo shows it: marked where the catalog has its
// Chinese version.
func pseudo(msg string) string {
	if zh[msg] == "" {
		return msg
	}
	return Mark(msg)
}

var (
	// What is quoted is a command or a name: `…`, "…", '…' (an apostrophe
	// inside a word, lab's, is not a quote), “…”; and a value in braces,
	// an object as YAML or JSON writes it on one line ({kind: User, name: alice}).
	quoted = regexp.MustCompile("`[^`\n]*`|\"[^\"\n]*\"|“[^”\n]*”|(?:^|[^\\p{L}])'[^'\n]*'|\\{[^{}\n]*\\}")
	// A line of an object in YAML, indented: a key and its value (data).
	yamlLine = regexp.MustCompile(`^\s+(?:- )*[A-Za-z0-9_./-]+:(?:\s.*)?$`)
	// A command line: from crdlab or kubectl to the end of the line.
	commandLine = regexp.MustCompile(`(?:^|\s)(?:crdlab|kubectl)\s.*$`)
	// An English word: letters, all lower case or capitalised, with an
	// apostrophe (lab's, don't). Anything else — an identifier (with . / -
	// _ or digits), a kind or a field (ReplicaSet, spec), a flag, a URL, a
	// path, an acronym (API, PASS) — is not a word of a sentence.
	englishWord = regexp.MustCompile(`^[A-Za-z][a-z]*(?:'[a-z]+)?$`)
)

// Bare returns the runs of English a learner would read in out, the
// output of crdlab in Pseudo, that are not marked: 3 or more English words
// in a row (englishWord) outside the markers, quotes and command lines; and
// the cells of a table's header in capitals (NAME, TASKS DONE), 2 or more
// of them on a line, that are not marked. Single words and pairs (a kind
// and a name, "help for") are let through, and so is what kubectl printed:
// the lines after a kubectl command line (kubectl ..., crdlab kubectl ...,
// at the start of a line), up to a line of crdlab's own (marked) or the next
// command. A session's transcript, each command line followed by what it
// printed, gives kubectl's output so.
func Bare(out string) []string {
	var runs []string
	kubectlSays := false // the lines are a kubectl command's output
	for _, line := range unmarkedLines(out) {
		switch {
		case kubectlCommand.MatchString(line):
			kubectlSays = true
			continue
		case commandStart.MatchString(line), strings.Contains(line, markedText):
			kubectlSays = false
		}
		if cells := header(line); len(cells) > 0 && !kubectlSays {
			runs = append(runs, strings.Join(cells, " "))
		}
		if yamlLine.MatchString(line) {
			continue
		}
		line = strings.ReplaceAll(line, markedText, " ")
		line = quoted.ReplaceAllString(line, " \x00 ")
		line = commandLine.ReplaceAllString(line, " ")
		var run []string
		flush := func() {
			if len(run) >= 3 {
				runs = append(runs, strings.Join(run, " "))
			}
			run = nil
		}
		for _, tok := range strings.Fields(line) {
			w := strings.TrimLeft(tok, "([{<")
			w = strings.TrimRight(w, ")]}>,.;:!?…")
			if !englishWord.MatchString(w) {
				flush()
				continue
			}
			run = append(run, w)
		}
		flush()
	}
	return runs
}

var (
	// A command line at the start of a line (after a prompt): crdlab's or
	// kubectl's, and kubectl's own (kubectl ..., crdlab [flags] kubectl ...).
	commandStart   = regexp.MustCompile(`^\s*(?:\$\s+)?(?:crdlab|kubectl)(?:\s|$)`)
	kubectlCommand = regexp.MustCompile(`^\s*(?:\$\s+)?(?:crdlab\s+(?:-\S+\s+)*(?:-\S+\s+\S+\s+)*)?kubectl(?:\s|$)`)
	// A table's cells: separated by a tab or 2 spaces or more.
	cellSep = regexp.MustCompile(`\t+|  +`)
	// A cell of a header: words in capitals (NAME, TASKS DONE).
	capsCell = regexp.MustCompile(`^[A-Z][A-Z]+(?: [A-Z][A-Z]+)*$`)
)

// header returns the bare cells of line if it is a table's header: 2 cells
// or more, each in capitals or marked (a header half translated), one bare
// at least.
func header(line string) []string {
	line = strings.TrimSpace(line)
	if line == "" {
		return nil
	}
	cells := cellSep.Split(line, -1)
	if len(cells) < 2 {
		return nil
	}
	var bare []string
	for _, c := range cells {
		c = strings.TrimSpace(c)
		switch {
		case c == markedText:
		case capsCell.MatchString(c):
			bare = append(bare, c)
		default:
			return nil
		}
	}
	return bare
}

// markedText stands for a marked part of a line (unmarkedLines).
const markedText = "\x01"

// unmarkedLines returns the lines of s with their marked parts (nested
// too) each replaced by markedText, the line breaks inside a marked part
// kept, so that a line is the line it was.
func unmarkedLines(s string) []string {
	var b strings.Builder
	depth := 0
	for len(s) > 0 {
		switch {
		case strings.HasPrefix(s, MarkOpen):
			depth++
			s = s[len(MarkOpen):]
			if depth == 1 {
				b.WriteString(markedText)
			}
			continue
		case strings.HasPrefix(s, MarkClose) && depth > 0:
			depth--
			s = s[len(MarkClose):]
			continue
		}
		_, n := utf8.DecodeRuneInString(s)
		switch {
		case depth == 0:
			b.WriteString(s[:n])
		case s[0] == '\n':
			b.WriteString("\n" + markedText)
		}
		s = s[n:]
	}
	return strings.Split(b.String(), "\n")
}
