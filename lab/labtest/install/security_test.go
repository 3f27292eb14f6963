package install_test

import (
	"context"
	"crypto/ed25519"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/crdlab/crdlab/lab/labtest/install"
	"github.com/crdlab/crdlab/lab/labtest/internal/releasetest"
	"github.com/crdlab/crdlab/lab/labtest/release"
)

// refused runs Download from url into an empty cache, and checks that it
// fails with want, in one line that says each of says, leaving nothing in
// the cache.
func refused(t *testing.T, opts install.Options, want error, says ...string) {
	t.Helper()
	opts.CacheDir = isolate(t)
	if opts.Version == "" {
		opts.Version = releasetest.Version
	}
	_, err := install.Download(context.Background(), opts)
	if !errors.Is(err, want) {
		t.Fatalf("Download: %v, want %v", err, want)
	}
	t.Log(err)
	if msg := err.Error(); strings.Contains(msg, "\n") {
		t.Errorf("error is not one line: %q", msg)
	}
	for _, s := range says {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not say %q", err, s)
		}
	}
	if got := cacheEntries(t, opts.CacheDir); len(got) != 0 {
		t.Errorf("the refused download left %v in the cache", got)
	}
}

// index.json is trusted only with a signature by a release key: an index
// without one, signed by another key, edited after signing, or signed by
// the test key without the test asking for it, is refused before any
// archive is fetched.
func TestDownloadRefusesAnUnsignedIndex(t *testing.T) {
	_, other, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		o     releasetest.Options
		trust string // $CRDLAB_ALLOW_TEST_KEY
		want  error
		says  []string
	}{
		"missing signature": {o: releasetest.Options{Unsigned: true}, trust: "1", want: install.ErrUnsigned, says: []string{"/index.json.sig", "404", "signed index"}},
		"another key":       {o: releasetest.Options{SignedBy: other}, trust: "1", want: install.ErrSignature, says: []string{"matches none of the trusted keys", "crdlab-release-2026", "test-only"}},
		"edited after":      {o: releasetest.Options{EditedAfterSigning: true}, trust: "1", want: install.ErrSignature, says: []string{"changed after it was signed"}},
		"test key, untold":  {trust: "", want: install.ErrSignature, says: []string{"test-only key", release.AllowTestKeyEnv}},
		"test key, told 0":  {trust: "0", want: install.ErrSignature, says: []string{"test-only key"}},
	} {
		t.Run(name, func(t *testing.T) {
			rel := releasetest.New(t, tc.o)
			t.Setenv(release.AllowTestKeyEnv, tc.trust)
			refused(t, install.Options{DownloadURL: rel.URL()}, tc.want, append(tc.says, rel.URL()+"/"+releasetest.Version+"/index.json")...)
			if n := rel.ArchiveCount(); n != 0 {
				t.Errorf("the archive was fetched %d times after the index was refused", n)
			}
		})
	}
}

// A redirect from https to plain http is refused, and so is a plain http
// base that is not this machine's.
func TestDownloadRefusesPlainHTTP(t *testing.T) {
	rel := releasetest.New(t, releasetest.Options{})
	tls := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, rel.URL()+r.URL.Path, http.StatusFound)
	}))
	t.Cleanup(tls.Close)
	refused(t, install.Options{DownloadURL: tls.URL, Client: tls.Client()}, install.ErrUnreachable,
		"refused the redirect", "from https to plain http", rel.URL()+"/"+releasetest.Version+"/index.json")
	if n := rel.Count("/" + releasetest.Version + "/index.json"); n != 0 {
		t.Errorf("the redirect to http was followed (%d requests)", n)
	}

	t.Setenv(install.InsecureEnv, "")
	refused(t, install.Options{DownloadURL: "http://crdlab.example.com/releases"}, install.ErrUnreachable,
		"http://crdlab.example.com/releases", "plain http", install.InsecureEnv)
}

// A download waiting for the lock that another holds, on a server that
// stalls mid-archive, returns when its context ends.
func TestDownloadWaitsWithinItsContext(t *testing.T) {
	cache := isolate(t)
	rel := releasetest.New(t, releasetest.Options{})
	stall := make(chan struct{})
	rel.Before(func(w http.ResponseWriter) bool {
		_, _ = w.Write([]byte("\x1f\x8b"))
		w.(http.Flusher).Flush()
		<-stall
		panic(http.ErrAbortHandler)
	})
	opts := install.Options{Version: releasetest.Version, DownloadURL: rel.URL(), CacheDir: cache}
	first := make(chan error, 1)
	go func() {
		_, err := install.Download(context.Background(), opts)
		first <- err
	}()
	for deadline := time.Now().Add(10 * time.Second); rel.ArchiveCount() == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the first download never asked for the archive")
		}
		time.Sleep(5 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	_, err := install.Download(ctx, opts)
	took := time.Since(start)
	close(stall)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "another download holds it") {
		t.Errorf("the second download: %v; want the context's deadline while the first holds the lock", err)
	}
	if took > 3*time.Second {
		t.Errorf("the second download, with a 1s context, returned after %s", took)
	}
	if err := <-first; !errors.Is(err, install.ErrUnreachable) {
		t.Errorf("the stalled download: %v; want %v", err, install.ErrUnreachable)
	}
	if got := cacheEntries(t, cache); len(got) != 0 {
		t.Errorf("the failed downloads left %v in the cache", got)
	}
}

// The archive and its files may be no larger than the signed index says.
func TestDownloadSizeCaps(t *testing.T) {
	for name, tc := range map[string]struct {
		sizes func(size, unpacked int64) (int64, int64)
		says  []string
	}{
		"archive": {sizes: func(size, unpacked int64) (int64, int64) { return size - 1, unpacked }, says: []string{"bytes its index allows", "nothing was unpacked"}},
		"files":   {sizes: func(size, unpacked int64) (int64, int64) { return size, unpacked - 1 }, says: []string{"its files are more than the"}},
	} {
		t.Run(name, func(t *testing.T) {
			rel := releasetest.New(t, releasetest.Options{Sizes: tc.sizes})
			refused(t, install.Options{DownloadURL: rel.URL()}, install.ErrBadRelease, append(tc.says, rel.Archive)...)
		})
	}
}

// A cached executable is served only when it and the cache's folders are
// its user's and not writable by others, and its content is the one
// recorded when it was downloaded; else it is refused, naming it, or
// downloaded again.
func TestCacheIsChecked(t *testing.T) {
	ctx := context.Background()
	platform := runtime.GOOS + "-" + runtime.GOARCH
	plant := func(t *testing.T, cache string, mode os.FileMode) string {
		t.Helper()
		bin := filepath.Join(cache, releasetest.Version, platform, "crdlab")
		if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin, []byte("#!/bin/sh\necho planted\n"), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(bin, mode); err != nil {
			t.Fatal(err)
		}
		return bin
	}

	t.Run("0777", func(t *testing.T) {
		cache := isolate(t)
		rel := releasetest.New(t, releasetest.Options{})
		bin := plant(t, cache, 0o777)
		_, err := install.Download(ctx, install.Options{Version: releasetest.Version, DownloadURL: rel.URL(), CacheDir: cache})
		if !errors.Is(err, install.ErrUntrusted) || !strings.Contains(err.Error(), bin) || !strings.Contains(err.Error(), "0777") {
			t.Errorf("Download with a 0777 executable planted in the cache: %v; want %v naming it and its mode", err, install.ErrUntrusted)
		}
	})
	t.Run("another user's", func(t *testing.T) {
		if os.Getuid() != 0 {
			t.Skip("only root can give a file to another user")
		}
		cache := isolate(t)
		rel := releasetest.New(t, releasetest.Options{})
		bin := plant(t, cache, 0o755)
		if err := os.Chown(bin, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		_, err := install.Download(ctx, install.Options{Version: releasetest.Version, DownloadURL: rel.URL(), CacheDir: cache})
		if !errors.Is(err, install.ErrUntrusted) || !strings.Contains(err.Error(), bin) || !strings.Contains(err.Error(), "user 65534") {
			t.Errorf("Download with another user's executable in the cache: %v; want %v naming it and its owner", err, install.ErrUntrusted)
		}
	})
	t.Run("a group-writable folder", func(t *testing.T) {
		cache := isolate(t)
		rel := releasetest.New(t, releasetest.Options{})
		bin := plant(t, cache, 0o755)
		if err := os.Chmod(filepath.Dir(bin), 0o775); err != nil {
			t.Fatal(err)
		}
		_, err := install.Download(ctx, install.Options{Version: releasetest.Version, DownloadURL: rel.URL(), CacheDir: cache})
		if !errors.Is(err, install.ErrUntrusted) || !strings.Contains(err.Error(), filepath.Dir(bin)+" has mode 0775") {
			t.Errorf("Download with a group-writable cache folder: %v; want %v naming it", err, install.ErrUntrusted)
		}
	})
	t.Run("changed since", func(t *testing.T) {
		cache := isolate(t)
		rel := releasetest.New(t, releasetest.Options{})
		opts := install.Options{Version: releasetest.Version, DownloadURL: rel.URL(), CacheDir: cache}
		bin, err := install.Download(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin, []byte("#!/bin/sh\necho changed\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if again, err := install.Download(ctx, opts); err != nil || again != bin {
			t.Fatalf("Download after the executable changed: %s, %v", again, err)
		}
		if got, err := os.ReadFile(bin); err != nil || string(got) != releasetest.FakeCrdlab || rel.ArchiveCount() != 2 {
			t.Errorf("the changed executable was served (%d downloads): %q, %v", rel.ArchiveCount(), got, err)
		}
	})
	t.Run("leftovers", func(t *testing.T) {
		cache := isolate(t)
		rel := releasetest.New(t, releasetest.Options{})
		version := filepath.Join(cache, releasetest.Version)
		other := filepath.Join(version, ".download-plan9-mips-1") // another platform's, maybe under way
		for _, dir := range []string{filepath.Join(version, platform), filepath.Join(version, ".unpack-"+platform+"-2")} {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for _, f := range []string{filepath.Join(version, platform, "LICENSE"), filepath.Join(version, ".download-"+platform+"-1"), other} {
			if err := os.WriteFile(f, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		bin, err := install.Download(ctx, install.Options{Version: releasetest.Version, DownloadURL: rel.URL(), CacheDir: cache})
		if err != nil {
			t.Fatalf("Download over a killed download's leftovers: %v", err)
		}
		want := []string{releasetest.Version, filepath.Join(releasetest.Version, ".download-plan9-mips-1"), filepath.Join(releasetest.Version, platform),
			filepath.Join(releasetest.Version, platform, "LICENSE"), filepath.Join(releasetest.Version, platform, "README.md"),
			filepath.Join(releasetest.Version, platform, "crdlab"), filepath.Join(releasetest.Version, platform, "crdlab.sha256")}
		if got := cacheEntries(t, cache); strings.Join(got, " ") != strings.Join(want, " ") || bin != filepath.Join(version, platform, "crdlab") {
			t.Errorf("cache holds %v, want %v", got, want)
		}
	})
}
