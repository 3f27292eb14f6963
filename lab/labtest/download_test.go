package labtest_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/crdlab/crdlab/lab/labtest"
	"github.com/crdlab/crdlab/lab/labtest/internal/releasetest"
)

// With no crdlab on this machine, Start downloads the release into the
// user cache and runs it (here a fake crdlab, which refuses 'up').
func TestStartDownloadsCrdlab(t *testing.T) {
	rel := releasetest.New(t, releasetest.Options{})
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache) // os.UserCacheDir on Linux
	t.Setenv("HOME", cache)           // on macOS: ~/Library/Caches
	t.Setenv("PATH", t.TempDir())
	t.Setenv(labtest.BinaryEnv, "")
	t.Setenv(labtest.VersionEnv, releasetest.Version)
	t.Setenv(labtest.DownloadURLEnv, rel.URL())

	_, err := (&labtest.Environment{}).Start()
	if err == nil || !strings.Contains(err.Error(), "unexpected arguments: up") {
		t.Fatalf("Start: %v, want the downloaded fake crdlab's refusal of 'up'", err)
	}
	if n := rel.ArchiveCount(); n != 1 {
		t.Errorf("Start downloaded the archive %d times, want once", n)
	}
	userCache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(userCache, "crdlab", releasetest.Version, runtime.GOOS+"-"+runtime.GOARCH, "crdlab")
	if _, err := os.Stat(bin); err != nil || !strings.HasPrefix(bin, cache) {
		t.Errorf("crdlab is not in the user cache %s: %v", cache, err)
	}
}
