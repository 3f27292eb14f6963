package i18n

import (
	"os"
	"strings"

	"k8s.io/kubectl/pkg/util/i18n"
)

func init() {
	_ = i18n.SetLoadTranslationsFunc(func() error {
		if !needsTranslation() {
			return nil
		}
		return i18n.LoadTranslations("kubectl", nil)
	})
}

// needsTranslation reports whether the locale asks for a language other
// than English, by the variables kubectl reads, in its order.
func needsTranslation() bool {
	lang := ""
	for _, v := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if lang = os.Getenv(v); lang != "" {
			break
		}
	}
	lang, _, _ = strings.Cut(lang, ".")
	switch lang {
	case "", "C", "POSIX", "en_US", "en":
		return false
	}
	return true
}
