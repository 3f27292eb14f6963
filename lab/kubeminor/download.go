package kubeminor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/crdlab/crdlab/lab/labtest/install"
)

// download fetches minor's components executable of crdlab release version
// into dest (step 3 of Find), the cache's
// <cache>/components/<version>/crdlab-k8s-<minor>: lab/labtest/install's
// DownloadComponents, the code that downloads crdlab for labtest, reading
// <$CRDLAB_DOWNLOAD_URL or GitHub's releases>/<version>/index.json and
// checking the archive's SHA-256 before anything is unpacked, under a lock,
// leaving nothing in the cache when it fails. Find calls it only for a
// release build, when no executable was found elsewhere. A line on stderr
// says a download starts.
func download(ctx context.Context, minor, version, dest string) error {
	versionDir := filepath.Dir(dest)
	cache := filepath.Dir(filepath.Dir(versionDir))
	if filepath.Base(versionDir) != cacheName(version) || filepath.Base(filepath.Dir(versionDir)) != "components" {
		return fmt.Errorf("%w: %s is not <cache>/components/%s/%s", ErrNotFound, dest, cacheName(version), Name(minor))
	}
	got, err := install.DownloadComponents(ctx, install.ComponentsOptions{Minor: minor, Version: version, CacheDir: cache, Log: os.Stderr})
	if err != nil {
		return err
	}
	if got != dest {
		return fmt.Errorf("%w: the download put %s in %s, not %s", ErrNotFound, Name(minor), got, dest)
	}
	return nil
}
