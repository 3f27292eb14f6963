package lang

import (
	"errors"
	"testing"
)

// The locale chooses as kubectl's does: the first of LC_ALL, LC_MESSAGES,
// LANG that is set; any zh locale is Chinese.
func TestFromLocale(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want Lang
	}{
		{map[string]string{}, EN},
		{map[string]string{"LANG": "zh_CN.UTF-8"}, ZH},
		{map[string]string{"LANG": "zh_TW.UTF-8"}, ZH},
		{map[string]string{"LANG": "zh"}, ZH},
		{map[string]string{"LANG": "en_US.UTF-8"}, EN},
		{map[string]string{"LANG": "C"}, EN},
		{map[string]string{"LANG": "fr_FR.UTF-8"}, EN},
		{map[string]string{"LANG": "zh_CN.UTF-8", "LC_ALL": "C"}, EN},
		{map[string]string{"LANG": "en_US.UTF-8", "LC_MESSAGES": "zh_CN.GB2312"}, ZH},
		{map[string]string{"LC_ALL": "zh_CN.UTF-8", "LC_MESSAGES": "en_US"}, ZH},
	} {
		if got := FromLocale(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("%v: %s, want %s", tc.env, got, tc.want)
		}
	}
}

// With no language in the locale, the fallback (the lab's language) holds.
func TestFromLocaleOr(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want Lang
	}{
		{map[string]string{}, ZH},
		{map[string]string{"LANG": "C.UTF-8"}, ZH},
		{map[string]string{"LC_ALL": "POSIX", "LANG": "en_US.UTF-8"}, ZH},
		{map[string]string{"LANG": "en_US.UTF-8"}, EN},
	} {
		if got := FromLocaleOr(func(k string) string { return tc.env[k] }, ZH); got != tc.want {
			t.Errorf("%v: %s, want %s", tc.env, got, tc.want)
		}
	}
}

func TestParse(t *testing.T) {
	for in, want := range map[string]Lang{"": EN, "en": EN, "zh": ZH, "ZH": ZH} {
		if got, err := Parse(in); err != nil || got != want {
			t.Errorf("Parse(%q) = %s, %v; want %s", in, got, err, want)
		}
	}
	if _, err := Parse("fr"); !errors.Is(err, ErrUnknown) {
		t.Errorf("Parse(fr): %v, want ErrUnknown", err)
	}
}

// A message with no translation is its English text, never empty.
func TestMsgFallsBackToEnglish(t *testing.T) {
	if got := ZH.Msgf("apply %s", "deployment/web"); got != "应用 deployment/web" {
		t.Errorf("translated: %q", got)
	}
	if got := ZH.Msgf("no such message %d", 3); got != "no such message 3" {
		t.Errorf("untranslated: %q", got)
	}
	if got := EN.Msgf("apply %s", "deployment/web"); got != "apply deployment/web" {
		t.Errorf("English: %q", got)
	}
	if got := ZH.Actor("replicaset"); got != "replicaset（副本集控制器）" {
		t.Errorf("actor: %q", got)
	}
	if got := EN.Actor("replicaset"); got != "replicaset" {
		t.Errorf("English actor: %q", got)
	}
	if got := ZH.Actor("someone-else"); got != "someone-else" {
		t.Errorf("unknown actor: %q", got)
	}
}

// Every translation keeps its message's verbs: the same number of
// arguments, so that a Chinese line never prints %!v(MISSING).
func TestTranslationsKeepTheirVerbs(t *testing.T) {
	for en, zh := range zh {
		if zh == "" {
			t.Errorf("%q: empty translation", en)
		}
		if a, b := verbs(en), verbs(zh); a != b {
			t.Errorf("%q has %d verbs, its translation %q %d", en, a, zh, b)
		}
	}
}

// verbs counts the arguments a format string uses.
func verbs(format string) int {
	n, maxIndex := 0, 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		if i < len(format) && format[i] == '%' {
			continue
		}
		if i+2 < len(format) && format[i] == '[' && format[i+2] == ']' {
			if idx := int(format[i+1] - '0'); idx > maxIndex {
				maxIndex = idx
			}
			continue
		}
		n++
	}
	if maxIndex > n {
		return maxIndex
	}
	return n
}
