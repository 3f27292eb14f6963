package install

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crdlab/crdlab/lab/labtest/internal/releasetest"
	"github.com/crdlab/crdlab/lab/labtest/release"
)

// The test key is trusted only when asked for and for a download from
// this machine; plain http only from this machine or when asked for.
func TestSettingsTrust(t *testing.T) {
	for _, tc := range []struct {
		base, allowTestKey, insecure string
		testKey                      bool
		err                          string
	}{
		{base: "https://github.com/crdlab/crdlab/releases/download", allowTestKey: "1"},
		{base: "https://mirror.example.com", allowTestKey: "1"},
		{base: "http://127.0.0.1:8080", allowTestKey: "1", testKey: true},
		{base: "http://[::1]:8080", allowTestKey: "1", testKey: true},
		{base: "https://localhost:8443", allowTestKey: "1", testKey: true},
		{base: "http://127.0.0.1:8080"},
		{base: "http://mirror.example.com", err: "plain http"},
		{base: "http://mirror.example.com", insecure: "1", allowTestKey: "1"},
		{base: "ftp://mirror.example.com", insecure: "1", err: "not https"},
		{base: "file:///srv/crdlab", err: "has no host"},
	} {
		t.Setenv(release.AllowTestKeyEnv, tc.allowTestKey)
		t.Setenv(InsecureEnv, tc.insecure)
		s, err := Options{Version: "v1.0.0", DownloadURL: tc.base, CacheDir: t.TempDir()}.settings()
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%+v: settings: %v, want %q", tc, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%+v: settings: %v", tc, err)
			continue
		}
		if got := slices.Contains(s.keys, release.TestKey); got != tc.testKey || !slices.Contains(s.keys, release.Keys[0]) {
			t.Errorf("%+v: trusted keys %v; want the test key: %v", tc, s.keys, tc.testKey)
		}
	}
}

// Each platform's components have their own place in the cache: an arm64
// download is never served to amd64.
func TestComponentsCachePerPlatform(t *testing.T) {
	rel := releasetest.New(t, releasetest.Options{Components: []string{"1.35"}})
	s, err := Options{Version: releasetest.Version, DownloadURL: rel.URL(), CacheDir: t.TempDir()}.settings()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	arm, err := s.downloadComponents(ctx, "1.35", "linux", "arm64", false)
	if err != nil {
		t.Fatal(err)
	}
	amd, err := s.downloadComponents(ctx, "1.35", "linux", "amd64", false)
	if err != nil {
		t.Fatal(err)
	}
	if arm == amd || filepath.Base(filepath.Dir(arm)) != "linux-arm64" || filepath.Base(filepath.Dir(amd)) != "linux-amd64" {
		t.Errorf("the components of linux/arm64 and linux/amd64 are at %s and %s: want one folder each", arm, amd)
	}
	for _, p := range []string{"arm64", "amd64"} {
		if n := rel.Count("/" + releasetest.Version + "/" + releasetest.ComponentsArchive("1.35", "linux", p)); n != 1 {
			t.Errorf("the linux/%s archive was fetched %d times, want once", p, n)
		}
	}
	if _, err := s.downloadComponents(ctx, "1.35", "darwin", "arm64", true); !errors.Is(err, ErrNotFound) {
		t.Errorf("NoDownload of components not in the cache: %v, want %v", err, ErrNotFound)
	}
}

// A body that sends nothing for the idle timeout fails the download.
func TestDownloadIdleTimeout(t *testing.T) {
	rel := releasetest.New(t, releasetest.Options{})
	stall := make(chan struct{})
	t.Cleanup(func() { close(stall) })
	rel.Before(func(w http.ResponseWriter) bool {
		_, _ = w.Write([]byte("\x1f\x8b"))
		w.(http.Flusher).Flush()
		<-stall
		return false
	})
	s, err := Options{Version: releasetest.Version, DownloadURL: rel.URL(), CacheDir: t.TempDir()}.settings()
	if err != nil {
		t.Fatal(err)
	}
	s.idle = 200 * time.Millisecond
	start := time.Now()
	_, err = s.download(context.Background(), runtime.GOOS, runtime.GOARCH)
	if !errors.Is(err, errStalled) || !errors.Is(err, ErrUnreachable) {
		t.Errorf("download from a server that stalls: %v; want %v", err, errStalled)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("download from a server that stalls returned after %s, with a 200ms idle timeout", took)
	}
}
