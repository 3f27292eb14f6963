package lang

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// Lang is a language crdlab speaks.
type Lang string

// The languages crdlab speaks.
const (
	// EN is English, the default.
	EN Lang = "en"
	// ZH is Chinese, simplified.
	ZH Lang = "zh"
)

// All lists the languages, English first.
var All = []Lang{EN, ZH}

// ErrUnknown is returned by Parse for a language crdlab does not speak.
var ErrUnknown = errors.New("unknown language")

// Parse reads a --lang value: en or zh ("" is English).
func Parse(s string) (Lang, error) {
	switch Lang(strings.ToLower(strings.TrimSpace(s))) {
	case "", EN:
		return EN, nil
	case ZH:
		return ZH, nil
	case Pseudo:
		return Pseudo, nil
	}
	return EN, fmt.Errorf("--lang %q: %w (want en or zh)", s, ErrUnknown)
}

// FromLocale chooses the language from the locale, as kubectl does: the
// first of LC_ALL, LC_MESSAGES and LANG that is set; zh, zh_CN, zh_TW (with
// any encoding) are Chinese, anything else is English.
func FromLocale(getenv func(string) string) Lang { return FromLocaleOr(getenv, EN) }

// FromLocaleOr is FromLocale, but returns fallback when the locale names
// no language: none of the variables is set, or the first set is C or
// POSIX (a container's or a CI machine's default). A scenario run against
// a lab started with --lang falls back to the lab's language so.
func FromLocaleOr(getenv func(string) string, fallback Lang) Lang {
	for _, v := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if loc := getenv(v); loc != "" {
			switch base, _, _ := strings.Cut(loc, "."); base {
			case "C", "POSIX":
				return fallback
			}
			return ofLocale(loc)
		}
	}
	return fallback
}

func ofLocale(loc string) Lang {
	loc, _, _ = strings.Cut(loc, ".")
	loc, _, _ = strings.Cut(loc, "@")
	switch strings.ReplaceAll(loc, "-", "_") {
	case "zh", "zh_CN", "zh_TW", "zh_SG", "zh_HK":
		return ZH
	case string(Pseudo):
		return Pseudo
	}
	return EN
}

// Default is the language of the process's locale.
func Default() Lang { return FromLocale(os.Getenv) }

// Msg returns msg in the language: its translation, or msg itself.
func (l Lang) Msg(msg string) string {
	if l == Pseudo {
		return pseudo(msg)
	}
	if l == ZH {
		if t, ok := zh[msg]; ok && t != "" {
			return t
		}
	}
	return msg
}

// Msgf formats a message in the language: the translation of format (which
// may reorder the arguments with %[n]v), or format itself.
func (l Lang) Msgf(format string, args ...any) string {
	return fmt.Sprintf(l.Msg(format), args...)
}

// Actor names a timeline actor: in Chinese, with a gloss of what it is
// where one helps (replicaset（副本集控制器）); in English, as it is.
func (l Lang) Actor(name string) string {
	if l == Pseudo && actorZH[name] != "" {
		return Mark(name)
	}
	if l == ZH {
		if t, ok := actorZH[name]; ok {
			return t
		}
	}
	return name
}

// Translated reports whether msg has a translation in the language (English
// has every message).
func (l Lang) Translated(msg string) bool {
	if l != ZH && l != Pseudo {
		return true
	}
	return zh[msg] != ""
}
