package kubeminor

import (
	"strconv"
	"strings"
)

// Version is a Kubernetes version as ParseVersion reads it.
type Version struct {
	Minor  string // "1.36"
	Number int    // 36: the minor's place in Kubernetes' order of minors
	// Rest is what follows the minor: "" for "1.36", ".5" for "v1.36.5",
	// ".5+abc" for "v1.36.5+abc".
	Rest string
	// V reports whether the version began with "v".
	V bool
}

// ParseVersion is the one reader of a Kubernetes version in crdlab: a
// minor as minors.txt and users write it ("1.36", "v1.36"), a release
// ("v1.36.5") or a version as a server reports it ("v1.36.5+abc",
// "v1.36.0-beta.0"). It reads "v" (optional), "1.", the minor's digits
// and keeps the rest as it is; ok is false for anything else (another
// major, no minor). Callers that accept less check Rest and V.
func ParseVersion(version string) (v Version, ok bool) {
	s, hasV := strings.CutPrefix(version, "v")
	s, found := strings.CutPrefix(s, "1.")
	if !found {
		return Version{}, false
	}
	end := 0
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	n, err := strconv.Atoi(s[:end])
	if end == 0 || err != nil || (end > 1 && s[0] == '0') {
		return Version{}, false
	}
	return Version{Minor: "1." + s[:end], Number: n, Rest: s[end:], V: hasV}, true
}

// Release returns the release a version names without what follows its
// patch: "v1.36.5" of "v1.36.5+abc", "1.36.5-rc.1" or "v1.36.5"; "" when
// it names no patch ("1.36").
func (v Version) Release() string {
	p, found := strings.CutPrefix(v.Rest, ".")
	if !found {
		return ""
	}
	end := 0
	for end < len(p) && p[end] >= '0' && p[end] <= '9' {
		end++
	}
	if end == 0 {
		return ""
	}
	return "v" + v.Minor + "." + p[:end]
}

// Tag returns the release a version names with its preview, a beta or a
// release candidate, and without what follows: "v1.38.0-beta.0" of
// "v1.38.0-beta.0" or "v1.38.0-beta.0+abc", "v1.36.5" of "v1.36.5+abc"
// (as Release); "" when it names no patch ("1.36") or a preview of
// another kind.
func (v Version) Tag() string {
	r := v.Release()
	if r == "" {
		return ""
	}
	rest, _, _ := strings.Cut(v.Rest, "+")
	if !isRelease(rest) {
		return ""
	}
	return "v" + v.Minor + rest
}

// isPatch reports whether rest is a release's patch and nothing more:
// ".5", not ".05", ".5+abc" or "".
func isPatch(rest string) bool {
	p, found := strings.CutPrefix(rest, ".")
	if !found || p == "" || (len(p) > 1 && p[0] == '0') {
		return false
	}
	for _, c := range p {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// isRelease reports whether rest is a release's patch, GA (".5") or a
// preview of it, a beta or a release candidate (".0-beta.0", ".0-rc.1"),
// and nothing more.
func isRelease(rest string) bool {
	patch, pre, found := strings.Cut(rest, "-")
	if !found {
		return isPatch(rest)
	}
	for _, kind := range []string{"beta.", "rc."} {
		if n, ok := strings.CutPrefix(pre, kind); ok {
			return isPatch(patch) && isPatch("."+n)
		}
	}
	return false
}

// Of returns the minor ("1.36") of a Kubernetes version as the apiserver
// reports it ("v1.36.5", "v1.36.5+abc"), or "" when it is not one.
func Of(version string) string {
	v, ok := ParseVersion(version)
	if !ok {
		return ""
	}
	return v.Minor
}

// Older reports whether version's minor ("v1.35.8": 1.35) is older than
// minor ("1.36"); false when either is not a Kubernetes version.
func Older(version, minor string) bool {
	a, okA := ParseVersion(version)
	b, okB := ParseVersion(minor)
	return okA && okB && a.Number < b.Number
}
