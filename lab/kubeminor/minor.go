package kubeminor

import (
	"errors"
	"os"
	"strings"

	"github.com/crdlab/crdlab/lab/lang"
)

// Env names the variable that chooses the minor when no --kubernetes is
// given.
const Env = "CRDLAB_KUBERNETES_VERSION"

// Errors of Parse and Find.
var (
	// ErrUnsupported: a version crdlab does not serve.
	ErrUnsupported = errors.New("not supported")
	// ErrNotFound: no components executable for the minor was found.
	ErrNotFound = errors.New("components executable not found")
	// ErrWrongVersion: a components executable serves another minor, or
	// does not say which.
	ErrWrongVersion = errors.New("components executable of another version")
	// ErrUntrusted: a components executable crdlab does not run: anyone
	// but the current user or root could have written it, or it is not
	// the one of crdlab's release (trust.go).
	ErrUntrusted = errors.New("components executable not trusted")
)

// Parse returns the minor ("1.36") of a version as a user gives it: 1.36,
// v1.36 or the exact patch crdlab serves (1.36.5). source names where the
// version came from in the error ("--kubernetes", or Env). An unsupported
// version's error is one line listing the supported minors.
func Parse(source, version string) (string, error) { return parseIn(lang.EN, source, version) }

// parseIn is Parse, its errors in l.
func parseIn(l lang.Lang, source, version string) (string, error) {
	v, ok := ParseVersion(strings.TrimSpace(version))
	if !ok || (v.Rest != "" && !isRelease(v.Rest)) {
		return "", unsupported(l, source, version)
	}
	minor := v.Minor
	patch := Patch(minor)
	if patch == "" {
		return "", unsupported(l, source, version)
	}
	if v.Rest != "" && "v"+minor+v.Rest != patch {
		return "", errorSaid(l.Msgf("%s %s: not supported; crdlab serves Kubernetes %s as %s: give %s", source, version, minor, patch, minor), ErrUnsupported)
	}
	return minor, nil
}

func unsupported(l lang.Lang, source, version string) error {
	return errorSaid(l.Msgf("%s %s: not supported; crdlab serves Kubernetes %s", source, version, listIn(l, Supported(), l.Msg("and"))), ErrUnsupported)
}

// listIn is List in l: in Chinese, "1.35、1.36 和 1.37".
func listIn(l lang.Lang, minors []string, conj string) string {
	if l == lang.ZH && len(minors) > 1 {
		return strings.Join(minors[:len(minors)-1], "、") + " " + conj + " " + minors[len(minors)-1]
	}
	return List(minors, conj)
}

// Choose returns the minor of flag (the value of --kubernetes) when given,
// else of $CRDLAB_KUBERNETES_VERSION when set, else BuiltIn.
func Choose(flag string) (string, error) {
	minor, _, err := choose(lang.EN, "--kubernetes", flag)
	return minor, err
}

// choose returns the minor of version (source names where it came from)
// when given, else of Env when set, else BuiltIn; and the source it took.
func choose(l lang.Lang, source, version string) (minor, from string, err error) {
	if version != "" {
		minor, err = parseIn(l, source, version)
		return minor, source, err
	}
	if v := os.Getenv(Env); v != "" {
		minor, err = parseIn(l, Env, v)
		return minor, Env, err
	}
	return BuiltIn, "", nil
}

// WithinSkew reports whether kubectl of minor b may talk to a server of
// minor a: kubectl supports one minor older or newer.
func WithinSkew(a, b string) bool {
	va, okA := ParseVersion(a)
	vb, okB := ParseVersion(b)
	return okA && okB && va.Number-vb.Number <= 1 && vb.Number-va.Number <= 1
}
