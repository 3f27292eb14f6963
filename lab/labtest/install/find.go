package install

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/crdlab/crdlab/lab/labtest/release"
)

// Environment variables, read when the matching Options field is empty.
const (
	// BinaryEnv names the crdlab executable.
	BinaryEnv = "CRDLAB_BINARY"
	// VersionEnv is the release to download.
	VersionEnv = "CRDLAB_VERSION"
	// DownloadURLEnv is the base URL of the releases.
	DownloadURLEnv = "CRDLAB_DOWNLOAD_URL"
)

// DefaultDownloadURL is where releases are downloaded from: GitHub's
// release assets, <base>/<version>/<file>.
const DefaultDownloadURL = "https://github.com/crdlab/crdlab/releases/download"

// Errors of Find and Download.
var (
	// ErrNotFound: no crdlab executable was found nor downloaded.
	ErrNotFound = errors.New("crdlab binary not found")
	// ErrNoVersion: no release version to download (a development build
	// of this module, and no $CRDLAB_VERSION).
	ErrNoVersion = errors.New("no crdlab version to download")
	// ErrUnreachable: the release server did not answer.
	ErrUnreachable = errors.New("unable to reach the crdlab releases")
	// ErrUnknownVersion: the release server has no such version.
	ErrUnknownVersion = release.ErrUnknownVersion
	// ErrNoPlatform: the release has no archive for this OS and
	// architecture.
	ErrNoPlatform = release.ErrNoPlatform
	// ErrDigest: the archive's SHA-256 is not the index's.
	ErrDigest = errors.New("crdlab archive digest mismatch")
	// ErrBadRelease: the index or the archive is malformed.
	ErrBadRelease = errors.New("malformed crdlab release")
	// ErrUnsigned: the release's index.json has no signature beside it.
	ErrUnsigned = release.ErrUnsigned
	// ErrSignature: index.json's signature is not one of crdlab's
	// release keys' (release.Keys) signature of it.
	ErrSignature = release.ErrSignature
	// ErrUntrusted: a cached executable, or a folder of the cache above
	// it, belongs to another user or may be changed by group or others.
	ErrUntrusted = errors.New("untrusted file in crdlab's cache")
	// ErrOtherVersion: the crdlab on $PATH is not the release this
	// labtest module pins (or $CRDLAB_VERSION, or Options.Version).
	ErrOtherVersion = errors.New("crdlab on $PATH is another version")
)

// Options says where to find crdlab and where to download it from. The
// zero value works.
type Options struct {
	// Binary is the crdlab executable. Empty: $CRDLAB_BINARY, then crdlab
	// on $PATH, then a download.
	Binary string

	// Version is the release to download (v0.3.0). Empty: $CRDLAB_VERSION,
	// then this module's version (ModuleVersion).
	Version string

	// DownloadURL is the base URL of the releases. Empty:
	// $CRDLAB_DOWNLOAD_URL, then DefaultDownloadURL.
	DownloadURL string

	// CacheDir holds the downloaded releases, <CacheDir>/<version>/<os>-<arch>/.
	// Empty: os.UserCacheDir()/crdlab.
	CacheDir string

	// Client makes the requests (nil: a client with timeouts on each
	// step of a request). A redirect from https to http, or to an address
	// a download may not use, is refused with any client.
	Client *http.Client

	// Log, if set, is told of a download as it starts.
	Log io.Writer
}

// Find returns the path of the crdlab executable: Binary, $CRDLAB_BINARY,
// crdlab on $PATH, or a release downloaded into the cache (Download). A
// crdlab on $PATH is taken only if it is the release pinned (Version,
// $CRDLAB_VERSION, else this module's version; 'crdlab version' says),
// else refused with ErrOtherVersion; when nothing is pinned (a development
// build of this module) it is taken as it is.
func Find(ctx context.Context, opts Options) (string, error) {
	if opts.Binary != "" {
		if _, err := os.Stat(opts.Binary); err != nil {
			return "", fmt.Errorf("%w: Binary %s: %w", ErrNotFound, opts.Binary, err)
		}
		return opts.Binary, nil
	}
	if b := os.Getenv(BinaryEnv); b != "" {
		if _, err := os.Stat(b); err != nil {
			return "", fmt.Errorf("%w: $%s=%s: %w", ErrNotFound, BinaryEnv, b, err)
		}
		return b, nil
	}
	if b, err := exec.LookPath("crdlab"); err == nil {
		if b, err = filepath.Abs(b); err != nil {
			return "", err
		}
		return b, checkPinned(ctx, b, opts.pinned())
	}
	b, err := Download(ctx, opts)
	if err != nil {
		return "", fmt.Errorf("%w on $PATH nor in $%s, and %w", ErrNotFound, BinaryEnv, err)
	}
	return b, nil
}

// pinned is the release Find wants: Version, $CRDLAB_VERSION, else this
// module's version; "" for a development build.
func (o Options) pinned() string {
	return cmp.Or(o.Version, os.Getenv(VersionEnv), ModuleVersion())
}

// settings are Options with the variables and defaults applied.
type settings struct {
	version, base, cache string
	client               *http.Client
	log                  io.Writer
	// hint, if set, says how to do without the download (avoid); empty:
	// crdlab's own, $CRDLAB_BINARY or $CRDLAB_DOWNLOAD_URL.
	hint string
	// insecure: plain http from any address ($CRDLAB_INSECURE_DOWNLOAD).
	insecure bool
	// keys are the keys whose signature of index.json is trusted: the
	// release keys, and the test key for a loopback base with
	// $CRDLAB_ALLOW_TEST_KEY=1.
	keys []release.Key
	// idle is how long a body may send nothing (idleReadTimeout).
	idle time.Duration
}

func (o Options) settings() (settings, error) {
	s := settings{version: o.Version, base: o.DownloadURL, cache: o.CacheDir, client: o.Client, log: o.Log}
	if s.version == "" {
		s.version = os.Getenv(VersionEnv)
	}
	if s.version == "" {
		s.version = ModuleVersion()
	}
	if s.version == "" {
		return s, fmt.Errorf("%w: this labtest module is a development build, not a release; build crdlab with 'go build -o bin/crdlab ./cmd/crdlab' in crdlab's repository and set %s=<that path>, put it on $PATH, or set %s to a release (v0.3.0)",
			ErrNoVersion, BinaryEnv, VersionEnv)
	}
	if s.version == "." || s.version == ".." || strings.ContainsAny(s.version, `/\ `) {
		return s, fmt.Errorf("%w %q: not a release name (v0.3.0); check %s or --version", ErrUnknownVersion, s.version, VersionEnv)
	}
	if s.base == "" {
		s.base = os.Getenv(DownloadURLEnv)
	}
	if s.base == "" {
		s.base = DefaultDownloadURL
	}
	s.insecure = insecure()
	base, err := url.Parse(s.base)
	if err == nil {
		err = s.allowed(base)
	}
	if err != nil {
		return s, fmt.Errorf("%w: %s=%s: %w", ErrUnreachable, DownloadURLEnv, s.base, err)
	}
	s.keys = release.Trusted(os.Getenv(release.AllowTestKeyEnv) == "1" && loopback(base))
	s.idle = idleReadTimeout
	if s.cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return s, fmt.Errorf("unable to find the user cache dir for crdlab's releases: %w", err)
		}
		s.cache = filepath.Join(dir, "crdlab")
	}
	if s.client == nil {
		s.client = s.newClient()
	} else {
		s.client = s.withRedirects(s.client)
	}
	if s.log == nil {
		s.log = io.Discard
	}
	return s, nil
}
