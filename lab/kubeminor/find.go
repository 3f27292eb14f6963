package kubeminor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/crdlab/crdlab/lab/labtest/release"
	"github.com/crdlab/crdlab/lab/lang"
)

// DirEnv names the variable that gives a folder to look for components
// executables in first.
const DirEnv = "CRDLAB_COMPONENTS_DIR"

// Name returns the file name of minor's components executable.
func Name(minor string) string {
	return release.ComponentsBinary(minor)
}

// Components is a components executable found for a minor.
type Components struct {
	Minor string
	Path  string // absolute, symbolic links resolved
	// Versions are what it printed when asked its version.
	Versions Versions
}

// Versions is what a components executable prints, as one JSON object, when
// started under its own name with the argument version.
type Versions struct {
	Crdlab     string `json:"crdlab"`
	Kubernetes string `json:"kubernetes"`
	Go         string `json:"go"`
}

// Where says where Find looks: crdlab's own executable and version.
type Where struct {
	// Self is crdlab's executable (step 2 looks next to it). Empty:
	// os.Executable.
	Self string
	// Crdlab is crdlab's version, as 'crdlab version' prints it: the
	// cache's folder is named by it (step 3).
	Crdlab string
	// Release says crdlab is a release build, whose components can be
	// downloaded from its release (step 3).
	Release bool
	// NoDownload looks in the cache without downloading ('crdlab
	// version' lists what is there).
	NoDownload bool
	// Lang is the language of the errors that say why an executable is
	// not found, not trusted or of another version (zero: English).
	Lang lang.Lang
	// Digests are the SHA-256 (hex) of the components executables of
	// crdlab's release for this platform, by minor: a release build runs
	// only these (trust.go). Here fills them in from what make release
	// linked into crdlab.
	Digests map[string]string
}

// Here is where a crdlab of version crdlab (as 'crdlab version' prints it)
// looks: next to its own executable, and in the cache, downloading when
// release says it is a release build. A build from a checkout is not one,
// whatever version the Go toolchain stamped on it ("(devel)", or a
// pseudo-version of the commit).
func Here(crdlab string, release bool) Where {
	w := Where{Crdlab: crdlab, Release: release && crdlab != ""}
	if w.Release {
		w.Digests = linkedDigests()
	}
	return w
}

// Candidates returns the paths Find tries for minor, in order, and the
// user cache's path (the last one, where a download goes; empty without a
// user cache dir).
func (w Where) Candidates(minor string) (paths []string, cache string) {
	name := Name(minor)
	if dir := os.Getenv(DirEnv); dir != "" {
		paths = append(paths, filepath.Join(dir, name))
	}
	if self, err := w.self(); err == nil {
		paths = append(paths, filepath.Join(filepath.Dir(self), name))
	}
	if c, err := os.UserCacheDir(); err == nil {
		cache = filepath.Join(c, "crdlab", "components", cacheName(w.Crdlab), platform(), name)
		paths = append(paths, cache)
	}
	return paths, cache
}

func (w Where) self() (string, error) {
	self := w.Self
	if self == "" {
		var err error
		if self, err = os.Executable(); err != nil {
			return "", err
		}
	}
	return filepath.EvalSymlinks(self)
}

// cacheName is a crdlab version made a folder name ("(devel) 1234" →
// "devel-1234").
func cacheName(version string) string {
	v := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_', r == '+':
			return r
		case r == ' ':
			return '-'
		}
		return -1
	}, version)
	if v == "" {
		return "unknown"
	}
	return v
}

// Find returns minor's components executable, looking where the package
// doc says and checking the one found with its version. It is not for
// BuiltIn, which crdlab runs itself.
func Find(ctx context.Context, minor string, w Where) (*Components, error) {
	if Patch(minor) == "" || minor == BuiltIn {
		return nil, errorSaid(w.Lang.Msgf("%s: not supported: Kubernetes %s has no components executable", Name(minor), minor), ErrUnsupported)
	}
	paths, cache := w.Candidates(minor)
	for _, p := range paths {
		if p == cache {
			break // checked by install first: fromCache
		}
		if _, err := os.Stat(p); err != nil {
			continue
		}
		return w.Check(ctx, minor, p)
	}
	if cache != "" {
		err := fromCache(ctx, minor, w, cache)
		if err == nil {
			return w.Check(ctx, minor, cache)
		}
		if !errors.Is(err, errNotCached) {
			return nil, downloadError(w.Lang, minor, err)
		}
	}
	return nil, notFound(w.Lang, minor, paths)
}

func notFound(l lang.Lang, minor string, paths []string) error {
	return errorSaid(l.Msgf("%s: components executable not found in %s; build it with 'make components K8S=%s' in crdlab's repository (it lands next to bin/crdlab), or set %s to the folder holding it",
		Name(minor), strings.Join(dirs(paths), ", "), minor, DirEnv), ErrNotFound)
}

func dirs(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Dir(p)
	}
	return out
}

// checkTimeout bounds how long a components executable may take to say its
// version.
const checkTimeout = 30 * time.Second

// Check asks the executable at path its version and returns it if it
// serves minor. Before it runs anything, it refuses (ErrUntrusted) an
// executable that anyone but the current user or root could have written,
// or, for a release build, one whose SHA-256 is not its release's; after,
// for a build from a checkout, one built from another commit
// (ErrWrongVersion).
func (w Where) Check(ctx context.Context, minor, path string) (*Components, error) {
	abs, err := filepath.Abs(path)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", Name(minor), path, err)
	}
	if err := w.trust(minor, abs); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, abs, "version")
	cmd.Args[0] = Name(minor) // dispatched by the name it runs under
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if errors.Is(err, fs.ErrPermission) || errors.Is(err, exec.ErrNotFound) {
			return nil, fmt.Errorf("%s: %s: %w", Name(minor), abs, err)
		}
		return nil, errorSaid(w.Lang.Msgf("%s: components executable of another version: %s version: %v: %s", Name(minor), abs, err, strings.TrimSpace(stderr.String())), ErrWrongVersion, err)
	}
	var v Versions
	if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &v); err != nil {
		return nil, errorSaid(w.Lang.Msgf("%s: components executable of another version: %s version printed %q, not its versions: %v", Name(minor), abs, firstLine(stdout.String()), err), ErrWrongVersion, err)
	}
	if Of(v.Kubernetes) != minor {
		return nil, errorSaid(w.Lang.Msgf("%s: components executable of another version: %s serves Kubernetes %s", Name(minor), abs, v.Kubernetes), ErrWrongVersion)
	}
	if err := w.sameBuild(minor, abs, v); err != nil {
		return nil, err
	}
	return &Components{Minor: minor, Path: abs, Versions: v}, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
