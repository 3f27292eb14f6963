// Package i18n keeps kubectl's translations from being loaded by processes
// that do not need them.
//
// Every package of kubectl calls i18n.T in its package variables, and the
// first call loads and unzips the translation catalogue: about 250 ms and
// 4 MB at the start of every process of this multi-call binary, etcd and
// kube-apiserver included. This package, initialized before any kubectl
// package (package initialization goes by import path among the packages
// whose dependencies are ready, and github.com sorts before k8s.io), swaps
// in a loader that does nothing for English or an unset locale, for which
// kubectl's strings are already right, and loads the catalogue as before for
// any other language.
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
