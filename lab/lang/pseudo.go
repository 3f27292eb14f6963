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
	// inside a word, lab's, is not a quote), “…”.
	quoted = regexp.MustCompile("`[^`\n]*`|\"[^\"\n]*\"|“[^”\n]*”|(?:^|[^\\p{L}])'[^'\n]*'")
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
// in a row (englishWord) outside the markers, quotes and command lines.
// Single words and pairs (a kind and a name, "help for") are let through.
func Bare(out string) []string {
	var runs []string
	for _, line := range strings.Split(unmarked(out), "\n") {
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

// unmarked returns s without its marked parts (nested too), each replaced
// by a blank.
func unmarked(s string) string {
	var b strings.Builder
	depth := 0
	for len(s) > 0 {
		switch {
		case strings.HasPrefix(s, MarkOpen):
			depth++
			s = s[len(MarkOpen):]
			if depth == 1 {
				b.WriteByte(' ')
			}
			continue
		case strings.HasPrefix(s, MarkClose) && depth > 0:
			depth--
			s = s[len(MarkClose):]
			continue
		}
		_, n := utf8.DecodeRuneInString(s)
		if depth == 0 {
			b.WriteString(s[:n])
		}
		s = s[n:]
	}
	return b.String()
}
