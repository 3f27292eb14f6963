package install

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/crdlab/crdlab/lab/labtest/release"
)

// ComponentsDirEnv names a folder that holds crdlab-k8s-<minor>
// executables: where crdlab looks first for the components of a
// Kubernetes minor it does not link.
const ComponentsDirEnv = "CRDLAB_COMPONENTS_DIR"

// ErrNoComponents: the release has no components archive for this
// Kubernetes minor and platform (or none at all: a release made before
// them).
var ErrNoComponents = release.ErrNoComponents

// ComponentsBinary is the executable of minor's components: crdlab-k8s-1.36.
func ComponentsBinary(minor string) string { return release.ComponentsBinary(minor) }

// ComponentsOptions say which components executable DownloadComponents
// gets and from where.
type ComponentsOptions struct {
	// Minor is the Kubernetes minor, as "1.36". Required.
	Minor string

	// Version is the crdlab release whose components these are: crdlab's
	// own version (v0.3.0). Required: components match one crdlab.
	Version string

	// DownloadURL is the base URL of the releases. Empty:
	// $CRDLAB_DOWNLOAD_URL, then DefaultDownloadURL.
	DownloadURL string

	// CacheDir is the folder of crdlab's downloads, the components in
	// <CacheDir>/components/<version>/<os>-<arch>/crdlab-k8s-<minor>.
	// Empty: os.UserCacheDir()/crdlab.
	CacheDir string

	// NoDownload serves the cache alone: ErrNotFound when the executable
	// is not there whole.
	NoDownload bool

	// Client makes the requests (nil: as Options.Client).
	Client *http.Client

	// Log, if set, is told of a download as it starts.
	Log io.Writer
}

// DownloadComponents returns the path of the components executable
// crdlab-k8s-<Minor> of crdlab's release Version for this OS and
// architecture, from the cache (checked: owner, mode, recorded SHA-256),
// downloading it there first if it is not yet: the archive the signed
// index.json's "components" names, checked by its size and SHA-256 before
// anything is unpacked, under a lock so that crdlabs starting at once
// download it once. A failure leaves nothing in the cache.
func DownloadComponents(ctx context.Context, opts ComponentsOptions) (string, error) {
	if !isMinor(opts.Minor) {
		return "", fmt.Errorf("%w: Kubernetes minor %q: want <major>.<minor>, as 1.36", ErrNoComponents, opts.Minor)
	}
	if opts.Version == "" {
		return "", fmt.Errorf("%w for %s: only a release build of crdlab downloads its components; build them with 'make components K8S=%s' and set %s to their folder",
			ErrNoVersion, ComponentsBinary(opts.Minor), opts.Minor, ComponentsDirEnv)
	}
	if opts.NoDownload {
		opts.DownloadURL = DefaultDownloadURL // not read: no download URL of the environment fails a look at the cache
	}
	s, err := Options{Version: opts.Version, DownloadURL: opts.DownloadURL, CacheDir: opts.CacheDir, Client: opts.Client, Log: opts.Log}.settings()
	if err != nil {
		return "", err
	}
	s.hint = fmt.Sprintf("set %s to a folder that holds %s (make components K8S=%s builds one), or %s to a reachable copy of the releases",
		ComponentsDirEnv, ComponentsBinary(opts.Minor), opts.Minor, DownloadURLEnv)
	return s.downloadComponents(ctx, opts.Minor, runtime.GOOS, runtime.GOARCH, opts.NoDownload)
}

func (s settings) downloadComponents(ctx context.Context, minor, goos, goarch string, noDownload bool) (string, error) {
	componentsDir := filepath.Join(s.cache, "components")
	versionDir := filepath.Join(componentsDir, s.version)
	platformDir := filepath.Join(versionDir, goos+"-"+goarch)
	bin := filepath.Join(platformDir, ComponentsBinary(minor))
	// The executable is renamed into place complete, after its digest: if
	// both are there and agree, it is whole.
	if ok, err := s.cached(bin); err != nil || ok {
		return served(bin, ok, err)
	}
	if noDownload {
		return "", fmt.Errorf("%w: %s is not in the cache whole", ErrNotFound, bin)
	}
	unlock, err := lock(ctx, bin+".lock")
	if err != nil {
		return "", err
	}
	err = s.fetchComponentsLocked(ctx, platformDir, bin, minor, goos, goarch)
	unlock()
	if err != nil {
		// Only if empty: other minors, platforms, versions or processes
		// may use them.
		_ = os.Remove(platformDir)
		_ = os.Remove(versionDir)
		_ = os.Remove(componentsDir)
		return "", err
	}
	return bin, nil
}

// fetchComponentsLocked, under the lock of bin, checks again whether the
// cache has bin whole (another process downloaded it while this one
// waited), else removes what a killed or failed download left and fetches
// it.
func (s settings) fetchComponentsLocked(ctx context.Context, platformDir, bin, minor, goos, goarch string) error {
	if ok, err := s.cached(bin); err != nil || ok {
		return err
	}
	if err := clean(platformDir, ComponentsBinary(minor), bin, bin+digestSuffix); err != nil {
		return err
	}
	return s.fetchComponents(ctx, platformDir, bin, minor, goos, goarch)
}

// fetchComponents downloads, checks and unpacks minor's components
// archive, then renames its executable to bin, after its digest, leaving
// nothing else behind.
func (s settings) fetchComponents(ctx context.Context, platformDir, bin, minor, goos, goarch string) error {
	pick := func(idx release.Index) (string, release.Asset, error) {
		name, a, err := idx.ComponentsArchive(s.version, minor, goos, goarch)
		if err != nil {
			return "", a, fmt.Errorf("%w; %s", err, s.hint)
		}
		return name, a, nil
	}
	what := fmt.Sprintf("%s of crdlab %s for %s/%s", ComponentsBinary(minor), s.version, goos, goarch)
	tmp, digest, err := s.fetchArchive(ctx, platformDir, ComponentsBinary(minor), what, ComponentsBinary(minor), pick)
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // LICENSE and README.md: crdlab's own archive has them
	unpacked := filepath.Join(tmp, ComponentsBinary(minor))
	if err := writeDigest(unpacked, digest); err != nil {
		return err
	}
	if err := place(unpacked+digestSuffix, bin+digestSuffix, ComponentsBinary(minor)+digestSuffix); err != nil {
		return err
	}
	if err := place(unpacked, bin, ComponentsBinary(minor)); err != nil {
		_ = os.Remove(bin + digestSuffix)
		return err
	}
	return nil
}

// isMinor: "1.36", digits on both sides of one dot.
func isMinor(s string) bool {
	major, minor, ok := strings.Cut(s, ".")
	return ok && isDigits(major) && isDigits(minor)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
