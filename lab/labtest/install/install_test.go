package install_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/crdlab/crdlab/lab/labtest/install"
	"github.com/crdlab/crdlab/lab/labtest/internal/releasetest"
)

// isolate clears the variables Find reads and gives it an empty cache and
// a PATH without crdlab.
func isolate(t *testing.T) string {
	t.Helper()
	t.Setenv(install.BinaryEnv, "")
	t.Setenv(install.VersionEnv, "")
	t.Setenv(install.DownloadURLEnv, "")
	t.Setenv("PATH", t.TempDir())
	return filepath.Join(t.TempDir(), "cache")
}

// cacheEntries lists what is in the cache, below its root.
func cacheEntries(t *testing.T, cache string) []string {
	t.Helper()
	var entries []string
	err := filepath.WalkDir(cache, func(p string, _ os.DirEntry, err error) error {
		if errors.Is(err, os.ErrNotExist) && p == cache {
			return nil
		}
		if err != nil {
			return err
		}
		if p != cache {
			rel, _ := filepath.Rel(cache, p)
			entries = append(entries, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(entries)
	return entries
}

func fakeBinary(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "crdlab")
	if err := os.WriteFile(p, []byte(releasetest.FakeCrdlab), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// Find looks at Binary, then $CRDLAB_BINARY, then PATH, and downloads
// only when all three have nothing.
func TestFindOrder(t *testing.T) {
	cache := isolate(t)
	rel := releasetest.New(t, releasetest.Options{})
	opts := install.Options{Version: releasetest.Version, DownloadURL: rel.URL(), CacheDir: cache}
	explicit := fakeBinary(t, t.TempDir())
	fromEnv := fakeBinary(t, t.TempDir())
	pathDir := t.TempDir()
	onPath := fakeBinary(t, pathDir)
	ctx := context.Background()

	t.Setenv("PATH", pathDir)
	t.Setenv(install.BinaryEnv, fromEnv)
	withBinary := opts
	withBinary.Binary = explicit
	for _, step := range []struct {
		name string
		opts install.Options
		want string
		set  func()
	}{
		{name: "Binary", opts: withBinary, want: explicit},
		{name: "$CRDLAB_BINARY", opts: opts, want: fromEnv},
		{name: "PATH", opts: opts, want: onPath, set: func() { t.Setenv(install.BinaryEnv, "") }},
		{name: "download", opts: opts, want: filepath.Join(cache, releasetest.Version, runtime.GOOS+"-"+runtime.GOARCH, "crdlab"),
			set: func() { t.Setenv("PATH", t.TempDir()) }},
	} {
		if step.set != nil {
			step.set()
		}
		got, err := install.Find(ctx, step.opts)
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if got != step.want {
			t.Errorf("%s: Find = %s, want %s", step.name, got, step.want)
		}
		if downloads, want := rel.ArchiveCount(), map[bool]int{true: 1, false: 0}[step.name == "download"]; downloads != want {
			t.Errorf("%s: %d downloads, want %d", step.name, downloads, want)
		}
	}
}

// A download is checked, unpacked into <cache>/<version>/<os>-<arch>, and
// used again without a request.
func TestDownloadIsCached(t *testing.T) {
	cache := isolate(t)
	rel := releasetest.New(t, releasetest.Options{})
	t.Setenv(install.VersionEnv, releasetest.Version)
	t.Setenv(install.DownloadURLEnv, rel.URL())
	ctx := context.Background()

	bin, err := install.Find(ctx, install.Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	platform := runtime.GOOS + "-" + runtime.GOARCH
	want := []string{releasetest.Version, filepath.Join(releasetest.Version, platform), filepath.Join(releasetest.Version, platform, "LICENSE"),
		filepath.Join(releasetest.Version, platform, "README.md"), filepath.Join(releasetest.Version, platform, "crdlab"),
		filepath.Join(releasetest.Version, platform, "crdlab.sha256")}
	if got := cacheEntries(t, cache); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("cache holds %v, want %v (no lock file, no temporary file)", got, want)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil || strings.TrimSpace(string(out)) != "crdlab "+releasetest.Version {
		t.Errorf("%s version: %q, %v", bin, out, err)
	}

	again, err := install.Find(ctx, install.Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	if again != bin {
		t.Errorf("second Find = %s, want %s", again, bin)
	}
	if n, idx := rel.ArchiveCount(), rel.Count("/"+releasetest.Version+"/index.json"); n != 1 || idx != 1 {
		t.Errorf("two Finds made %d archive and %d index requests, want 1 and 1", n, idx)
	}
}

// Each failure is one line that says what happened and what to do, wraps
// its sentinel, and leaves nothing in the cache.
func TestDownloadErrors(t *testing.T) {
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	unreachable := "http://" + closed.Addr().String()
	closed.Close()

	thisPlatform := runtime.GOOS + "/" + runtime.GOARCH
	var others []string
	for _, p := range releasetest.Platforms {
		if p[0]+"/"+p[1] != thisPlatform {
			others = append(others, p[0]+"/"+p[1])
		}
	}
	sort.Strings(others)

	tampered := releasetest.New(t, releasetest.Options{Tamper: true})
	cut := releasetest.New(t, releasetest.Options{})
	cut.Before(func(w http.ResponseWriter) bool {
		w.Header().Set("Content-Length", "100000")
		_, _ = w.Write([]byte("\x1f\x8b partial"))
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // the connection drops mid-body
	})
	for name, tc := range map[string]struct {
		url, version string
		want         error
		says         []string
	}{
		"unreachable": {
			url: unreachable, version: releasetest.Version, want: install.ErrUnreachable,
			says: []string{unreachable + "/" + releasetest.Version + "/index.json", "CRDLAB_BINARY", "CRDLAB_DOWNLOAD_URL"},
		},
		"tampered": {
			url: tampered.URL(), version: releasetest.Version, want: install.ErrDigest,
			says: []string{tampered.Digest, tampered.Archive, "SHA-256"},
		},
		"platform missing": {
			url: releasetest.New(t, releasetest.Options{WithoutThisPlatform: true}).URL(), version: releasetest.Version, want: install.ErrNoPlatform,
			says: []string{"no " + thisPlatform + " archive", "only " + strings.Join(others, ", ")},
		},
		"unknown version": {
			url: releasetest.New(t, releasetest.Options{}).URL(), version: "v0.0.1", want: install.ErrUnknownVersion,
			says: []string{"/v0.0.1/index.json", "404", "CRDLAB_VERSION"},
		},
		"version outside the cache": {
			url: unreachable, version: "../../etc", want: install.ErrUnknownVersion,
			says: []string{`"../../etc"`, "not a release name"},
		},
		"cut download": {
			url: cut.URL(), version: releasetest.Version, want: install.ErrUnreachable,
			says: []string{cut.Archive, "cut"},
		},
		"no version": {
			version: "", want: install.ErrNoVersion,
			says: []string{"CRDLAB_VERSION", "CRDLAB_BINARY", "development build"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			cache := isolate(t)
			_, err := install.Find(context.Background(), install.Options{Version: tc.version, DownloadURL: tc.url, CacheDir: cache})
			if !errors.Is(err, tc.want) || !errors.Is(err, install.ErrNotFound) {
				t.Fatalf("Find: %v, want %v and %v", err, tc.want, install.ErrNotFound)
			}
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
	t.Run("tampered names the digest it got", func(t *testing.T) {
		_, err := install.Download(context.Background(), install.Options{Version: releasetest.Version, DownloadURL: tampered.URL(), CacheDir: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), "has SHA-256 ") {
			t.Fatalf("Download: %v", err)
		}
		got := strings.TrimSuffix(strings.Fields(strings.SplitN(err.Error(), "has SHA-256 ", 2)[1])[0], ",")
		if len(got) != 64 || got == tampered.Digest {
			t.Errorf("error %q: want the archive's own digest, not the index's", err)
		}
	})
}

// Issue 37: a crdlab on $PATH that is not the release pinned (Version,
// $CRDLAB_VERSION, the module's version) is refused, naming it, both
// versions and what to do; nothing is downloaded. Nothing pinned (a
// development build of labtest): it is taken without being run.
func TestFindRefusesAnotherVersionOnPath(t *testing.T) {
	cache := isolate(t)
	rel := releasetest.New(t, releasetest.Options{})
	pathDir := t.TempDir()
	t.Setenv("PATH", pathDir)
	onPath := filepath.Join(pathDir, "crdlab")
	marker := filepath.Join(t.TempDir(), "ran")
	script := "#!/bin/sh\n: >'" + marker + "' # no touch: $PATH is the test's\n[ \"$1\" = version ] && printf 'crdlab:             v0.1.0\\nkubernetes:         v1.37.2\\n'\n"
	if err := os.WriteFile(onPath, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	for name, set := range map[string]func(*install.Options){
		"Version":         func(o *install.Options) { o.Version = releasetest.Version },
		"$CRDLAB_VERSION": func(*install.Options) { t.Setenv(install.VersionEnv, releasetest.Version) },
	} {
		t.Setenv(install.VersionEnv, "")
		opts := install.Options{DownloadURL: rel.URL(), CacheDir: cache}
		set(&opts)
		got, err := install.Find(ctx, opts)
		if !errors.Is(err, install.ErrOtherVersion) {
			t.Fatalf("%s %s: Find = %s, %v; want ErrOtherVersion", name, releasetest.Version, got, err)
		}
		for _, want := range []string{onPath, "v0.1.0", "not " + releasetest.Version, install.BinaryEnv + "=" + onPath} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: the refusal %q does not say %q", name, err, want)
			}
		}
		if n := rel.ArchiveCount(); n != 0 {
			t.Errorf("%s: %d downloads, want none", name, n)
		}
	}

	// The pinned release on $PATH is taken.
	script = strings.ReplaceAll(script, "v0.1.0", releasetest.Version)
	if err := os.WriteFile(onPath, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := install.Find(ctx, install.Options{Version: releasetest.Version, DownloadURL: rel.URL(), CacheDir: cache}); err != nil || got != onPath {
		t.Errorf("Find with the pinned release on $PATH = %s, %v; want %s", got, err, onPath)
	}

	// Nothing pinned: taken as it is, not run.
	t.Setenv(install.VersionEnv, "")
	if err := os.Remove(marker); err != nil {
		t.Fatal(err)
	}
	if install.ModuleVersion() != "" {
		t.Skipf("this labtest is the release %s: something is pinned", install.ModuleVersion())
	}
	if got, err := install.Find(ctx, install.Options{}); err != nil || got != onPath {
		t.Errorf("Find with nothing pinned = %s, %v; want %s", got, err, onPath)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("Find with nothing pinned ran %s", onPath)
	}
}
