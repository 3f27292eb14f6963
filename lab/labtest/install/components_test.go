package install_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/crdlab/crdlab/lab/labtest/install"
	"github.com/crdlab/crdlab/lab/labtest/internal/releasetest"
)

// A components executable is checked, put in
// <cache>/components/<version>/<os>-<arch>/crdlab-k8s-<minor> alone with
// its digest, and used again without a request.
func TestDownloadComponentsIsCached(t *testing.T) {
	cache := isolate(t)
	rel := releasetest.New(t, releasetest.Options{Components: []string{"1.35", "1.36"}})
	t.Setenv(install.DownloadURLEnv, rel.URL()) // as crdlab is given it
	ctx := context.Background()
	opts := install.ComponentsOptions{Minor: "1.35", Version: releasetest.Version, CacheDir: cache}

	bin, err := install.DownloadComponents(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	platform := filepath.Join("components", releasetest.Version, runtime.GOOS+"-"+runtime.GOARCH)
	if want := filepath.Join(cache, platform, "crdlab-k8s-1.35"); bin != want {
		t.Errorf("DownloadComponents = %s, want %s", bin, want)
	}
	want := []string{"components", filepath.Join("components", releasetest.Version), platform,
		filepath.Join(platform, "crdlab-k8s-1.35"), filepath.Join(platform, "crdlab-k8s-1.35.sha256")}
	if got := cacheEntries(t, cache); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("cache holds %v, want %v (no lock file, no temporary file)", got, want)
	}
	if st, err := os.Stat(bin); err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("%s: %v, %v; want mode 0755", bin, st, err)
	}
	out, err := exec.Command(bin, "version").Output()
	var v struct{ Crdlab, Kubernetes string }
	if err != nil || json.Unmarshal(out, &v) != nil || v.Kubernetes != "v1.35.0" || v.Crdlab != releasetest.Version {
		t.Errorf("%s version: %q, %v; want the 1.35 components of %s", bin, out, err, releasetest.Version)
	}

	again, err := install.DownloadComponents(ctx, opts)
	if err != nil || again != bin {
		t.Errorf("second DownloadComponents = %s, %v; want %s", again, err, bin)
	}
	if n, idx := rel.ComponentsCount("1.35"), rel.Count("/"+releasetest.Version+"/index.json"); n != 1 || idx != 1 {
		t.Errorf("two downloads made %d archive and %d index requests, want 1 and 1", n, idx)
	}
	if n := rel.ComponentsCount("1.36") + rel.ArchiveCount(); n != 0 {
		t.Errorf("%d requests for other archives, want none", n)
	}
}

// crdlab's own download reads the index's "releases" alone: with
// components in the index, it still gets crdlab.
func TestDownloadIgnoresComponents(t *testing.T) {
	cache := isolate(t)
	rel := releasetest.New(t, releasetest.Options{Components: []string{"1.35", "1.36"}})
	bin, err := install.Download(context.Background(), install.Options{Version: releasetest.Version, DownloadURL: rel.URL(), CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil || strings.TrimSpace(string(out)) != "crdlab "+releasetest.Version {
		t.Errorf("%s version: %q, %v; want crdlab's", bin, out, err)
	}
	if n := rel.ComponentsCount("1.35") + rel.ComponentsCount("1.36"); n != 0 {
		t.Errorf("crdlab's download asked for %d components archives, want none", n)
	}
}

// Four crdlabs starting at once on an empty cache download the components
// once.
func TestDownloadComponentsConcurrently(t *testing.T) {
	cache := isolate(t)
	rel := releasetest.New(t, releasetest.Options{Components: []string{"1.35"}})
	gateArchive(rel)
	var wg sync.WaitGroup
	bins := make([]string, downloaders)
	errs := make([]error, downloaders)
	for i := range downloaders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if errs[i] = started(rel.URL()); errs[i] != nil {
				return
			}
			bins[i], errs[i] = install.DownloadComponents(context.Background(),
				install.ComponentsOptions{Minor: "1.35", Version: releasetest.Version, DownloadURL: rel.URL(), CacheDir: cache})
		}()
	}
	wg.Wait()
	for i := range downloaders {
		if errs[i] != nil || bins[i] != bins[0] {
			t.Errorf("downloader %d: %s, %v (the first got %s)", i, bins[i], errs[i], bins[0])
		}
	}
	if n := rel.ComponentsCount("1.35"); n != 1 {
		t.Errorf("%d goroutines downloaded the components %d times, want once", downloaders, n)
	}
}

// Each failure is one line that says what happened and what to do, wraps
// its sentinel, and leaves nothing in the cache.
func TestDownloadComponentsErrors(t *testing.T) {
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	unreachable := "http://" + closed.Addr().String()
	closed.Close()
	platform := runtime.GOOS + "/" + runtime.GOARCH
	with135 := releasetest.Options{Components: []string{"1.35"}}

	tampered := releasetest.New(t, releasetest.Options{Components: []string{"1.35"}, Tamper: true})
	cut := releasetest.New(t, with135)
	cut.Before(func(w http.ResponseWriter) bool {
		w.Header().Set("Content-Length", "100000")
		_, _ = w.Write([]byte("\x1f\x8b partial"))
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // the connection drops mid-body
	})
	for name, tc := range map[string]struct {
		url, version, minor string
		want                error
		says                []string
	}{
		"unreachable": {
			url: unreachable, version: releasetest.Version, minor: "1.35", want: install.ErrUnreachable,
			says: []string{unreachable + "/" + releasetest.Version + "/index.json", "CRDLAB_COMPONENTS_DIR", "crdlab-k8s-1.35", "make components K8S=1.35", "CRDLAB_DOWNLOAD_URL"},
		},
		"tampered": {
			url: tampered.URL(), version: releasetest.Version, minor: "1.35", want: install.ErrDigest,
			says: []string{releasetest.ComponentsArchive("1.35", runtime.GOOS, runtime.GOARCH), tampered.ComponentsDigest["1.35"], "SHA-256", "nothing was unpacked"},
		},
		"minor missing": {
			url: releasetest.New(t, with135).URL(), version: releasetest.Version, minor: "1.36", want: install.ErrNoComponents,
			says: []string{"index.json", "no crdlab-k8s-1.36 archive for " + platform, "only crdlab-k8s-1.35 for ", "CRDLAB_COMPONENTS_DIR", "make components K8S=1.36"},
		},
		"platform missing": {
			url: releasetest.New(t, releasetest.Options{Components: []string{"1.35"}, WithoutThisPlatform: true}).URL(), version: releasetest.Version, minor: "1.35",
			want: install.ErrNoComponents, says: []string{"no crdlab-k8s-1.35 archive for " + platform},
		},
		"a release without components": {
			url: releasetest.New(t, releasetest.Options{}).URL(), version: releasetest.Version, minor: "1.35", want: install.ErrNoComponents,
			says: []string{"no crdlab-k8s-1.35 archive for " + platform + ", no components at all"},
		},
		"unknown version": {
			url: releasetest.New(t, with135).URL(), version: "v0.0.1", minor: "1.35", want: install.ErrUnknownVersion,
			says: []string{"/v0.0.1/index.json", "404", "CRDLAB_COMPONENTS_DIR"},
		},
		"cut download": {
			url: cut.URL(), version: releasetest.Version, minor: "1.35", want: install.ErrUnreachable,
			says: []string{releasetest.ComponentsArchive("1.35", runtime.GOOS, runtime.GOARCH), "cut", "CRDLAB_COMPONENTS_DIR"},
		},
		"not a release build": {
			url: unreachable, version: "", minor: "1.35", want: install.ErrNoVersion,
			says: []string{"release build", "make components K8S=1.35", "CRDLAB_COMPONENTS_DIR"},
		},
		"not a minor": {
			url: unreachable, version: releasetest.Version, minor: "../1.35", want: install.ErrNoComponents,
			says: []string{`"../1.35"`},
		},
	} {
		t.Run(name, func(t *testing.T) {
			cache := isolate(t)
			_, err := install.DownloadComponents(context.Background(), install.ComponentsOptions{Minor: tc.minor, Version: tc.version, DownloadURL: tc.url, CacheDir: cache})
			if !errors.Is(err, tc.want) {
				t.Fatalf("DownloadComponents: %v, want %v", err, tc.want)
			}
			t.Log(err)
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("error is not one line: %q", msg)
			}
			for _, s := range tc.says {
				if !strings.Contains(msg, s) {
					t.Errorf("error %q does not say %q", msg, s)
				}
			}
			if got := cacheEntries(t, cache); len(got) != 0 {
				t.Errorf("the failed download left %v in the cache", got)
			}
		})
	}
}
