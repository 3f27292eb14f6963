package guestbook

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// This project's suites, on a machine where crdlab was never built: no
// CRDLAB_BINARY, no crdlab on PATH, an empty cache. They download crdlab's
// release (make release's output, served on 127.0.0.1), check it, cache it
// and pass; four test binaries starting at once download it once; the
// kubebuilder-scaffolded envtest suite runs on the folder setup-crdlab
// prints; and nothing is downloaded again.
func TestSuitesDownloadCrdlab(t *testing.T) {
	release, version := os.Getenv("CRDLAB_RELEASE_DIR"), os.Getenv("CRDLAB_RELEASE_VERSION")
	if release == "" || version == "" || filepath.Base(release) != version {
		t.Fatal("CRDLAB_RELEASE_DIR must name make release's output folder dist/<version> and CRDLAB_RELEASE_VERSION its version: " +
			"run make release-check, then make test-modules (make test does both)")
	}
	var archives atomic.Int32
	files := http.FileServer(http.Dir(filepath.Dir(release)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".tar.gz") {
			archives.Add(1)
		}
		files.ServeHTTP(w, r)
	}))
	defer srv.Close()

	goCache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	env := withoutCrdlab(os.Environ())
	env = append(env,
		"XDG_CACHE_HOME="+cache, // os.UserCacheDir: where the download goes
		"GOCACHE="+strings.TrimSpace(string(goCache)),
		"CRDLAB_VERSION="+version,
		"CRDLAB_DOWNLOAD_URL="+srv.URL,
	)
	run := func(args ...string) (string, error) {
		cmd := exec.Command("go", args...)
		cmd.Env = env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}

	// Two 'go test' runs of the two labtest suites, at once: four test
	// binaries find no crdlab and download it; the lock lets one.
	var wg sync.WaitGroup
	outs, errs := make([]string, 2), make([]error, 2)
	for i := range outs {
		wg.Go(func() {
			outs[i], errs[i] = run("test", "-count=1", "-p", "2", "./internal/controller/", "./internal/webhook/v1/")
		})
	}
	wg.Wait()
	for i := range outs {
		if errs[i] != nil {
			t.Fatalf("go test of the suites (run %d) with crdlab to download: %v\n%s", i+1, errs[i], outs[i])
		}
	}
	if n := archives.Load(); n != 1 {
		t.Errorf("four test binaries on an empty cache downloaded the archive %d times, want once", n)
	}
	matches, err := filepath.Glob(filepath.Join(cache, "crdlab", version, "*", "crdlab"))
	if err != nil || len(matches) != 1 {
		t.Fatalf("the download is not in the cache (%s/crdlab/%s/<os>-<arch>/crdlab): %v %v", cache, version, matches, err)
	}

	// setup-crdlab prints a KUBEBUILDER_ASSETS folder from the cached
	// release, for the scaffolded envtest suite.
	out, err := run("run", "github.com/crdlab/crdlab/lab/labtest/cmd/setup-crdlab", "envtest")
	if err != nil {
		t.Fatalf("setup-crdlab envtest: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	assets := lines[len(lines)-1]
	for _, bin := range []string{"etcd", "kube-apiserver"} {
		if _, err := os.Stat(filepath.Join(assets, bin)); err != nil {
			t.Fatalf("setup-crdlab envtest printed %q, which has no %s: %v\n%s", assets, bin, err, out)
		}
	}
	env = append(env, "KUBEBUILDER_ASSETS="+assets)
	if out, err := run("test", "-count=1", "./test/envtest/"); err != nil {
		t.Fatalf("the envtest suite on KUBEBUILDER_ASSETS=%s: %v\n%s", assets, err, out)
	}
	if n := archives.Load(); n != 1 {
		t.Errorf("the archive was downloaded %d times in all, want once: the cache serves the later runs", n)
	}
}

// withoutCrdlab returns env without CRDLAB_* and KUBEBUILDER_ASSETS, and
// with a PATH that holds no crdlab executable.
func withoutCrdlab(env []string) []string {
	var out []string
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(name, "CRDLAB_"), name == "KUBEBUILDER_ASSETS", name == "XDG_CACHE_HOME":
			continue
		case name == "PATH":
			var dirs []string
			for _, d := range filepath.SplitList(value) {
				if _, err := os.Stat(filepath.Join(d, "crdlab")); err != nil {
					dirs = append(dirs, d)
				}
			}
			kv = "PATH=" + strings.Join(dirs, string(filepath.ListSeparator))
		}
		out = append(out, kv)
	}
	return out
}
