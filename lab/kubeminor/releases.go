package kubeminor

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
)

// minorsTxt is the one list of the Kubernetes minors crdlab serves; its
// comment says the format. The Makefile (make print-minors) and the
// components modules' generator (lab/internal/tools/minorgen) read the same file.
//
//go:embed minors.txt
var minorsTxt []byte

// File is minors.txt's path in crdlab's repository, for the tools that read
// it there.
const File = "lab/kubeminor/minors.txt"

// Release is one line of minors.txt: a minor crdlab serves and the
// releases that serve it.
type Release struct {
	Minor      string // "1.36"
	Kubernetes string // "v1.36.5": k8s.io/kubernetes
	Staging    string // "v0.36.5": k8s.io/api and the other staging modules
	// BuiltIn marks the minor linked into crdlab; each other one runs from
	// its components executable, crdlab-k8s-<minor>.
	BuiltIn bool
}

// Preview reports whether r serves a minor before its GA release: a beta or
// a release candidate ("v1.38.0-beta.0", "v1.38.0-rc.1"). crdlab says so
// wherever it names the minor (docs/kubernetes.md: the support policy).
func (r Release) Preview() bool { return strings.Contains(r.Kubernetes, "-") }

// ParseReleases reads minors.txt's format from data (name is the file's
// name in errors): one line per minor, oldest first, "minor kubernetes
// staging [built-in]", blank lines and # comments ignored. Exactly one
// minor is built in; each release must be of its line's minor, a GA
// release or a preview (a beta or an rc: Release.Preview).
func ParseReleases(name string, data []byte) ([]Release, error) {
	var out []Release
	builtIn := 0
	for i, line := range strings.Split(string(data), "\n") {
		if c := strings.IndexByte(line, '#'); c >= 0 {
			line = line[:c]
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		errorf := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s", name, i+1, fmt.Sprintf(format, args...))
		}
		if len(f) < 3 || len(f) > 4 || (len(f) == 4 && f[3] != "built-in") {
			return nil, errorf("want \"minor kubernetes staging [built-in]\", as \"1.36 v1.36.5 v0.36.5\", not %q", strings.TrimSpace(line))
		}
		r := Release{Minor: f[0], Kubernetes: f[1], Staging: f[2], BuiltIn: len(f) == 4}
		m, ok := ParseVersion(r.Minor)
		if !ok || m.V || m.Rest != "" {
			return nil, errorf("minor %q: want 1.<minor>, as 1.36", r.Minor)
		}
		k, ok := ParseVersion(r.Kubernetes)
		if !ok || !k.V || k.Minor != r.Minor || !isRelease(k.Rest) {
			return nil, errorf("kubernetes %q: want a release of Kubernetes %s, as v%s.0", r.Kubernetes, r.Minor, r.Minor)
		}
		// The staging modules are released as v0.<minor>.<patch> of each
		// Kubernetes release.
		if want := "v0." + strconv.Itoa(m.Number) + k.Rest; r.Staging != want {
			return nil, errorf("staging %q: want the staging modules' release of Kubernetes %s, %s", r.Staging, r.Kubernetes, want)
		}
		if len(out) > 0 && MinorNumber(out[len(out)-1].Minor) >= m.Number {
			return nil, errorf("minor %s after %s: list each minor once, oldest first", r.Minor, out[len(out)-1].Minor)
		}
		if r.BuiltIn {
			builtIn++
		}
		out = append(out, r)
	}
	if builtIn != 1 {
		return nil, fmt.Errorf("%s: %d minors marked built-in; want exactly one, the minor crdlab's go.mod requires", name, builtIn)
	}
	return out, nil
}

// MinorNumber returns a minor's number (36 for "1.36"), 0 when minor is
// not one.
func MinorNumber(minor string) int {
	v, _ := ParseVersion(minor)
	return v.Number
}

// releases are minors.txt's lines, read once.
var releases = func() []Release {
	r, err := ParseReleases(File, minorsTxt)
	if err != nil {
		panic(err) // TestReleases reads the same file: a bad list fails the tests, not a user
	}
	return r
}()

// BuiltIn is the minor built into crdlab (minors.txt's built-in line).
var BuiltIn = func() string {
	for _, r := range releases {
		if r.BuiltIn {
			return r.Minor
		}
	}
	return ""
}()

// Releases returns minors.txt's lines, oldest first.
func Releases() []Release {
	return append([]Release(nil), releases...)
}

// Supported returns the minors crdlab serves, oldest first.
func Supported() []string {
	out := make([]string, len(releases))
	for i, r := range releases {
		out[i] = r.Minor
	}
	return out
}

// ComponentsMinors returns the minors that run from a components executable
// (every one but BuiltIn), oldest first.
func ComponentsMinors() []string {
	var out []string
	for _, r := range releases {
		if !r.BuiltIn {
			out = append(out, r.Minor)
		}
	}
	return out
}

// Oldest returns the oldest minor crdlab serves.
func Oldest() string { return releases[0].Minor }

// Patch returns the release crdlab serves for minor ("v1.36.5" for "1.36"),
// or "" for a minor it does not serve.
func Patch(minor string) string {
	for _, r := range releases {
		if r.Minor == minor {
			return r.Kubernetes
		}
	}
	return ""
}

// Preview reports whether crdlab serves minor as a preview, a beta or a
// release candidate (Release.Preview).
func Preview(minor string) bool {
	for _, r := range releases {
		if r.Minor == minor {
			return r.Preview()
		}
	}
	return false
}

// List joins minors for a sentence: "1.35, 1.36 or 1.37" with conj "or".
func List(minors []string, conj string) string {
	if len(minors) < 2 {
		return strings.Join(minors, "")
	}
	return strings.Join(minors[:len(minors)-1], ", ") + " " + conj + " " + minors[len(minors)-1]
}
