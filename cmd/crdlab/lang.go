package main

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/lab/server"
	"github.com/crdlab/crdlab/scenarios"
)

// langFlag is --lang: en or zh, checked as it is parsed.
type langFlag struct{ l lang.Lang }

func (f *langFlag) String() string { return string(f.l) }
func (f *langFlag) Type() string   { return "en|zh" }
func (f *langFlag) Set(s string) error {
	l, err := lang.Parse(s)
	if err != nil {
		return errors.Unwrap(err) // pflag names the flag and the value
	}
	f.l = l
	return nil
}

// addLangFlag gives cmd (and, persistent, its subcommands) --lang.
func (g *globalFlags) addLangFlag(cmd *cobra.Command, persistent bool) {
	fs := cmd.Flags()
	if persistent {
		fs = cmd.PersistentFlags()
	}
	fs.Var(&g.lang, "lang", "the language crdlab speaks to you: en or zh (default: from LC_ALL, LC_MESSAGES or LANG, as kubectl's; zh_CN, zh_TW, zh: Chinese)")
}

// language is the language of this command: --lang, else the locale's.
func (g *globalFlags) language() lang.Lang {
	if g.lang.l != "" {
		return g.lang.l
	}
	return lang.Default()
}

// languageOr is language, but with fallback where neither --lang nor the
// locale names a language: a scenario run against 'crdlab up --lang zh'
// speaks Chinese.
func (g *globalFlags) languageOr(fallback lang.Lang) lang.Lang {
	if g.lang.l != "" {
		return g.lang.l
	}
	return lang.FromLocaleOr(os.Getenv, fallback)
}

// errorText says err in l: the most common errors (no lab running, no
// lesson running, an unknown scenario, a bad scenario file) in l's words,
// any other as it is.
func errorText(l lang.Lang, g *globalFlags, err error) string {
	if l == lang.EN {
		return err.Error()
	}
	var lerr *scenarios.LoadError
	var nf *scenarios.NotFoundError
	switch {
	case errors.Is(err, control.ErrNotRunning):
		return l.Msgf("no lab is running on state dir %s: start one with 'crdlab up -d'", g.stateDir)
	case errors.Is(err, server.ErrNoLesson):
		return l.Msgf("no lesson is running on %s: start one with 'crdlab learn LESSON'", g.stateDir)
	case errors.As(err, &nf):
		return l.Msgf("no scenario %q: built-in scenarios are %s; or give a file", nf.Name, strings.Join(scenarios.Names(), ", "))
	case errors.As(err, &lerr):
		return l.Msgf("the scenario file %s has %d problem(s):\n%s", lerr.File, len(lerr.Problems), lerr.Error())
	}
	return commandLineError(l, err.Error())
}

// pflag's and cobra's errors about the command line, by their words.
var commandLineErrors = []struct {
	re  *regexp.Regexp
	msg string
}{
	{regexp.MustCompile(`^unknown flag: (.+)$`), "unknown flag: %s"},
	{regexp.MustCompile(`^unknown shorthand flag: (.+)$`), "unknown shorthand flag: %s"},
	{regexp.MustCompile(`^flag needs an argument: (.+)$`), "flag needs an argument: %s"},
	{regexp.MustCompile(`^invalid argument (".*") for (".*") flag: (.*)$`), "invalid argument %s for %s flag: %s"},
	{regexp.MustCompile(`^unknown command (".*") for (".*")$`), "unknown command %s for %s"},
}

// commandLineError says msg, an error of pflag or cobra, in l; any other
// as it is.
func commandLineError(l lang.Lang, msg string) string {
	first, rest, _ := strings.Cut(msg, "\n")
	for _, e := range commandLineErrors {
		if m := e.re.FindStringSubmatch(first); m != nil {
			args := make([]any, len(m)-1)
			for i, a := range m[1:] {
				args[i] = a
			}
			first = l.Msgf(e.msg, args...)
			if rest != "" {
				rest = strings.Replace(rest, "Did you mean this?", l.Msg("Did you mean this?"), 1)
				return first + "\n" + rest
			}
			return first
		}
	}
	return msg
}

// printError says err on the command's error output, in the command's
// language.
func printError(cmd *cobra.Command, g *globalFlags, err error) {
	l := g.language()
	fmt.Fprintln(cmd.ErrOrStderr(), l.Msgf("Error: %s", errorText(l, g, err)))
}
