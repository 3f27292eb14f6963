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

// errUnknownLang is --lang's refusal of a value, said after pflag's
// "invalid argument" (a message of the catalog: valueError).
var errUnknownLang = fmt.Errorf("%w (want en or zh)", lang.ErrUnknown)

// langFlag is --lang: en or zh, checked as it is parsed.
type langFlag struct{ l lang.Lang }

func (f *langFlag) String() string { return string(f.l) }
func (f *langFlag) Type() string   { return "en|zh" }
func (f *langFlag) Set(s string) error {
	l, err := lang.Parse(s)
	if err != nil {
		return errUnknownLang // pflag names the flag and the value
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
	return commandLineError(l, lang.ErrorIn(l, err))
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
	{regexp.MustCompile(`^bad flag syntax: (.*)$`), "bad flag syntax: %s"},
	{regexp.MustCompile(`^required flag\(s\) (.*) not set$`), "required flag(s) %s not set"},
	// cobra's checks of the arguments (cobra.ExactArgs and the others).
	{regexp.MustCompile(`^accepts ([0-9]+) arg\(s\), received ([0-9]+)$`), "accepts %s arg(s), received %s"},
	{regexp.MustCompile(`^accepts at most ([0-9]+) arg\(s\), received ([0-9]+)$`), "accepts at most %s arg(s), received %s"},
	{regexp.MustCompile(`^requires at least ([0-9]+) arg\(s\), only received ([0-9]+)$`), "requires at least %s arg(s), only received %s"},
	{regexp.MustCompile(`^accepts between ([0-9]+) and ([0-9]+) arg\(s\), received ([0-9]+)$`), "accepts between %s and %s arg(s), received %s"},
	{regexp.MustCompile(`^invalid argument (".*") for (".*")$`), "invalid argument %s for %s"},
}

// Why a flag's value was refused, in the words of pflag and of Go's
// parsers (the last part of pflag's "invalid argument"), by their words.
var valueErrors = []struct {
	re  *regexp.Regexp
	msg string
}{
	{regexp.MustCompile(`^strconv\.ParseBool: parsing ".*": invalid syntax$`), "want true or false"},
	{regexp.MustCompile(`^strconv\.Parse(?:Int|Uint|Float): parsing ".*": invalid syntax$`), "not a number"},
	{regexp.MustCompile(`^strconv\.Parse(?:Int|Uint|Float): parsing ".*": value out of range$`), "out of range"},
	{regexp.MustCompile(`^time: (?:invalid duration|missing unit in duration|unknown unit .* in duration) .*$`), "not a duration (like 90s, 5m, 1h)"},
	{regexp.MustCompile(`^.* must be formatted as key=value$`), "want key=value pairs, separated by commas"},
}

// valueError says why a flag's value was refused in l: pflag's and Go's
// reasons by their words, a catalogued reason (--lang's) translated, any
// other as it is.
func valueError(l lang.Lang, reason string) string {
	for _, e := range valueErrors {
		if e.re.MatchString(reason) {
			return l.Msg(e.msg)
		}
	}
	return l.Msg(reason)
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
			if e.msg == "invalid argument %s for %s flag: %s" {
				args[2] = valueError(l, m[3])
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
