package kubeminor

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/crdlab/crdlab/lab/lang"
)

// digests are the SHA-256 (hex) of the components executables of crdlab's
// release for the platform this crdlab was built for, by minor, set by the
// linker (.ci/make/release.sh builds the components first):
// -X github.com/crdlab/crdlab/lab/kubeminor.digests=1.35:<sha256>,1.36:<sha256>.
// Empty in any other build.
var digests string

// linkedDigests returns digests as a map of minor to SHA-256.
func linkedDigests() map[string]string {
	out := map[string]string{}
	for _, pair := range strings.Split(digests, ",") {
		if minor, sum, ok := strings.Cut(strings.TrimSpace(pair), ":"); ok && minor != "" && sum != "" {
			out[minor] = strings.ToLower(sum)
		}
	}
	return out
}

// trust checks, before anything runs it, the components executable of
// minor at abs (absolute, symbolic links resolved): a regular file that it
// and its folder belong to the current user or root and are not writable
// by group or others (anyone else could have put anything there); and, for
// a release build, that its SHA-256 is the one of crdlab's release.
func (w Where) trust(minor, abs string) error {
	l := w.Lang
	if err := owned(l, abs, false); err != nil {
		return untrusted(l, minor, "", err, l.Msg("or remove it"))
	}
	if err := owned(l, filepath.Dir(abs), true); err != nil {
		return untrusted(l, minor, l.Msgf("%s: its folder ", abs), err, l.Msgf("or move %s to a folder only you can write to", Name(minor)))
	}
	if !w.Release {
		return nil
	}
	want := w.Digests[minor]
	if want == "" {
		return errorSaid(l.Msgf("%s: components executable not trusted: %s: crdlab %s knows no SHA-256 of its release's %s, so it runs none; remove it (a release of crdlab downloads its own)",
			Name(minor), abs, w.Crdlab, Name(minor)), ErrUntrusted)
	}
	got, err := sha256File(abs)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", Name(minor), abs, err)
	}
	if got != want {
		return errorSaid(l.Msgf("%s: components executable not trusted: %s has SHA-256 %s, not the %s of crdlab %s's release; remove it (a release of crdlab downloads its own)",
			Name(minor), abs, got, want, w.Crdlab), ErrUntrusted)
	}
	return nil
}

// notOwned is why a file or folder is not trusted, and the command that
// mends it.
type notOwned struct {
	path, why, fix string
}

func (e *notOwned) Error() string { return e.path + " " + e.why }

// untrusted is the refusal of minor's executable for err (of owned), what
// to do about it (e.fix), or remove: "crdlab-k8s-1.36: components
// executable not trusted: <path> is writable by others (mode 0777), so
// crdlab does not run it: chmod go-w <path>, or remove it".
func untrusted(l lang.Lang, minor, prefix string, err error, remove string) error {
	var e *notOwned
	if !errors.As(err, &e) {
		return fmt.Errorf("%s: %s%w", Name(minor), prefix, err)
	}
	return errorSaid(l.Msgf("%s: components executable not trusted: %s%s %s, so crdlab does not run it: %s, %s", Name(minor), prefix, e.path, e.why, e.fix, remove), ErrUntrusted, err)
}

// owned checks that path is a regular file (a folder when dir) of the
// current user or root, not writable by group or others; it says why not
// in l.
func owned(l lang.Lang, path string, dir bool) error {
	st, err := os.Lstat(path)
	if err != nil {
		return err
	}
	switch {
	case dir && !st.IsDir():
		return &notOwned{path, l.Msg("is not a folder"), l.Msg("check the path")}
	case !dir && !st.Mode().IsRegular():
		return &notOwned{path, l.Msgf("is not a regular file (%s)", st.Mode().Type()), l.Msg("replace it with the executable")}
	}
	if uid, mine, ok := owner(st); ok && !mine {
		return &notOwned{path, l.Msgf("belongs to uid %d, neither you (uid %d) nor root", uid, os.Getuid()),
			l.Msgf("chown %d %s if you trust it", os.Getuid(), path)}
	}
	if perm := st.Mode().Perm(); perm&0o022 != 0 && ownerModes {
		why := l.Msgf("is writable by group and others (mode %#o)", perm)
		switch perm & 0o022 {
		case 0o020:
			why = l.Msgf("is writable by its group (mode %#o)", perm)
		case 0o002:
			why = l.Msgf("is writable by others (mode %#o)", perm)
		}
		return &notOwned{path, why, "chmod go-w " + path}
	}
	return nil
}

func sha256File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// sameBuild checks, for a build of crdlab from a checkout, that the
// components executable at abs, which printed v, was built from the same
// commit. A release build checked its digest before running it; a build
// that does not know its commit (a test binary, -buildvcs=false, a git
// worktree, where Go stamps none) cannot compare it.
func (w Where) sameBuild(minor, abs string, v Versions) error {
	want := commit(w.Crdlab)
	if w.Release || want == "" {
		return nil
	}
	if got := commit(v.Crdlab); got != want {
		return errorSaid(w.Lang.Msgf("%s: components executable of another version: %s was built as crdlab %q, not from crdlab's commit %s; build it again with 'make components K8S=%s' in the same checkout",
			Name(minor), abs, v.Crdlab, want, minor), ErrWrongVersion)
	}
	return nil
}

var (
	revisionRE = regexp.MustCompile(`(?:^|\s)([0-9a-f]{12})$`)
	pseudoRE   = regexp.MustCompile(`-\d{14}-([0-9a-f]{12})(?:\+dirty)?(?:\s|$)`)
)

// commit returns the commit (12 hex digits) a crdlab version as
// 'crdlab version' prints it names: "(devel) 0123456789ab", a
// pseudo-version "v0.0.0-20261204210220-e2e3471f1080[+dirty]" with or
// without the commit after it; "" when it names none.
func commit(version string) string {
	version = strings.TrimSpace(version)
	if m := revisionRE.FindStringSubmatch(version); m != nil {
		return m[1]
	}
	if m := pseudoRE.FindStringSubmatch(version); m != nil {
		return m[1]
	}
	return ""
}
