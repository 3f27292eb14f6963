package kubeminor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/crdlab/crdlab/lab/labtest/install"
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
