package kubeminor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/crdlab/crdlab/lab/labtest/install"
	"github.com/crdlab/crdlab/lab/labtest/release"
	"github.com/crdlab/crdlab/lab/lang"
)

// fromCache serves minor's components executable from the cache, at
// cache (step 3 of Find): <cache>/components/<version>/<os>-<arch>/crdlab-k8s-<minor>,
// once lab/labtest/install checked it (it and the cache's folders are
// yours or root's and not writable by group or others, its SHA-256 is the
// one recorded when it was downloaded). A release build that may download
// (w.Release, not w.NoDownload) downloads it there first when it is not
// there whole: install's DownloadComponents, the code that downloads
// crdlab for labtest, reading <$CRDLAB_DOWNLOAD_URL or GitHub's
// releases>/<version>/index.json, checking its signature, then the
// archive's size and SHA-256 before anything is unpacked, under a lock,
// leaving nothing in the cache when it fails; a line on stderr says a
// download starts. errNotCached: not there, and not downloaded.
func fromCache(ctx context.Context, minor string, w Where, cache string) error {
	platformDir := filepath.Dir(cache)
	versionDir := filepath.Dir(platformDir)
	version := cacheName(w.Crdlab)
	if filepath.Base(platformDir) != platform() || filepath.Base(versionDir) != version || filepath.Base(filepath.Dir(versionDir)) != "components" {
		return fmt.Errorf("%w: %s is not <cache>/components/%s/%s/%s", ErrNotFound, cache, version, platform(), Name(minor))
	}
	got, err := install.DownloadComponents(ctx, install.ComponentsOptions{Minor: minor, Version: version,
		CacheDir: filepath.Dir(filepath.Dir(versionDir)), Log: os.Stderr, NoDownload: !w.Release || w.NoDownload})
	if errors.Is(err, install.ErrNotFound) {
		return errNotCached
	}
	if err != nil {
		return err
	}
	if got != cache {
		return fmt.Errorf("%w: the download put %s in %s, not %s", ErrNotFound, Name(minor), got, cache)
	}
	return nil
}

// errNotCached: the cache has no components executable, and none was
// downloaded.
var errNotCached = errors.New("not in the cache")

// platform is the cache's folder of this OS and architecture.
func platform() string { return runtime.GOOS + "-" + runtime.GOARCH }

// downloadError says err, an error of the cache or the download of minor's
// components executable, in l: lab/labtest/install, standard library only
// and a module of its own, says its errors in English, so a line in l's
// words comes first for the ones a learner meets (a signature or a digest
// that does not hold, no network, an untrusted file in the cache), and
// install's account after it, as it is.
func downloadError(l lang.Lang, minor string, err error) error {
	var why string
	switch {
	case errors.Is(err, release.ErrSignature), errors.Is(err, release.ErrUnsigned):
		why = l.Msg("the release's signature does not hold, so nothing was unpacked")
	case errors.Is(err, install.ErrDigest):
		why = l.Msg("the downloaded archive is not the one the release lists (its SHA-256 differs), so nothing was unpacked")
	case errors.Is(err, install.ErrUnreachable):
		why = l.Msg("the crdlab releases cannot be reached")
	case errors.Is(err, install.ErrUntrusted):
		why = l.Msg("a file in crdlab's cache is not trusted")
	}
	if why == "" || (l != lang.ZH && l != lang.Pseudo) {
		return fmt.Errorf("%s: %w", Name(minor), err)
	}
	return errorSaid(l.Msgf("%s: %s: %v", Name(minor), why, err), err)
}
