package guestbook

import (
	"bytes"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
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

	cache := t.TempDir()
	run := suiteRunner(t, srv.URL, version, cache)

	// Two 'go test' runs of the two labtest suites, at once: four test
	// binaries find no crdlab and download it; the lock lets one.
	var wg sync.WaitGroup
	outs, errs := make([]string, 2), make([]error, 2)
	for i := range outs {
		wg.Go(func() {
			outs[i], errs[i] = run("test", "-vet=off", "-count=1", "-p", "2", "./internal/controller/", "./internal/webhook/v1/")
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
	if out, err := run("test", "-vet=off", "-count=1", "./test/envtest/", "KUBEBUILDER_ASSETS="+assets); err != nil {
		t.Fatalf("the envtest suite on KUBEBUILDER_ASSETS=%s: %v\n%s", assets, err, out)
	}
	if n := archives.Load(); n != 1 {
		t.Errorf("the archive was downloaded %d times in all, want once: the cache serves the later runs", n)
	}
}

// A download that cannot be trusted or made fails the suite with one clear
// error, naming what went wrong and how to avoid the download, and leaves
// nothing in the cache: an archive that does not match the index's digest,
// an index without this machine's platform (signed again, as a release
// without it would be), a server that does not answer, an index edited
// after it was signed, an index without its signature.
func TestSuitesRefuseABadDownload(t *testing.T) {
	release, version := os.Getenv("CRDLAB_RELEASE_DIR"), os.Getenv("CRDLAB_RELEASE_VERSION")
	if release == "" || version == "" || filepath.Base(release) != version {
		t.Fatal("CRDLAB_RELEASE_DIR must name make release's output folder dist/<version> and CRDLAB_RELEASE_VERSION its version: " +
			"run make release-check, then make test-modules (make test does both)")
	}
	platform := runtime.GOOS + "/" + runtime.GOARCH
	archive := "crdlab-" + version + "-" + runtime.GOOS + "-" + runtime.GOARCH + ".tar.gz"

	// serve serves the release folder, the archive and index.json changed by
	// edit when it is given.
	serve := func(edit func(name string, data []byte) []byte) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			name := filepath.Base(r.URL.Path)
			data, err := os.ReadFile(filepath.Join(release, name))
			if err == nil {
				data = edit(name, data)
			}
			if err != nil || data == nil || path.Dir(r.URL.Path) != "/"+version {
				http.NotFound(w, r)
				return
			}
			_, _ = w.Write(data)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	unreachable := "http://" + closed.Addr().String()
	closed.Close()

	for _, tc := range []struct {
		name string
		url  string
		says []string
	}{{
		name: "tampered archive",
		url: serve(func(name string, data []byte) []byte {
			if name == archive {
				data = append(bytes.Clone(data[:len(data)-1]), data[len(data)-1]^0xff)
			}
			return data
		}),
		says: []string{archive, "SHA-256"},
	}, {
		name: "platform missing",
		url: serve(signedAgain(t, release, func(name string, data []byte) []byte {
			if name != "index.json" {
				return data
			}
			var idx map[string]map[string]map[string]json.RawMessage
			if err := json.Unmarshal(data, &idx); err != nil {
				t.Fatalf("index.json of %s: %v", release, err)
			}
			delete(idx["releases"][version], archive)
			out, err := json.Marshal(idx)
			if err != nil {
				t.Fatal(err)
			}
			return out
		})),
		says: []string{"no " + platform + " archive"},
	}, {
		name: "unreachable server",
		url:  unreachable,
		says: []string{unreachable + "/" + version + "/index.json", "CRDLAB_BINARY", "CRDLAB_DOWNLOAD_URL"},
	}, {
		name: "index edited after signing",
		url: serve(func(name string, data []byte) []byte {
			if name == "index.json" {
				data = bytes.Replace(data, []byte(`"sha256": "`), []byte(`"sha256": "0`), 1)
			}
			return data
		}),
		says: []string{"/" + version + "/index.json", "changed after it was signed"},
	}, {
		name: "unsigned index",
		url: serve(func(name string, data []byte) []byte {
			if name == "index.json.sig" {
				return nil
			}
			return data
		}),
		says: []string{"/" + version + "/index.json.sig", "signed index"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			cache := t.TempDir()
			out, err := suiteRunner(t, tc.url, version, cache)("test", "-vet=off", "-count=1", "./internal/controller/")
			if err == nil {
				t.Fatalf("the suite passed with a download that should have been refused:\n%s", out)
			}
			for _, s := range tc.says {
				if !strings.Contains(out, s) {
					t.Errorf("the failed suite does not say %q:\n%s", s, out)
				}
			}
			if entries, _ := os.ReadDir(filepath.Join(cache, "crdlab")); len(entries) != 0 {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("the refused download left %v in the cache %s/crdlab", names, cache)
			}
		})
	}
}

// suiteRunner returns a function that runs the go command on this project
// as a machine with no crdlab would: no CRDLAB_BINARY, none on PATH, the
// user cache in cache, crdlab version to download from url. Arguments of
// the form NAME=value are added to the environment instead.
func suiteRunner(t *testing.T, url, version, cache string) func(args ...string) (string, error) {
	t.Helper()
	goCache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	env := withoutCrdlab(os.Environ())
	env = append(env,
		"XDG_CACHE_HOME="+cache, // os.UserCacheDir: where the download goes
		"GOCACHE="+strings.TrimSpace(string(goCache)),
		"CRDLAB_VERSION="+version,
		"CRDLAB_DOWNLOAD_URL="+url,
		// make release signs with the labtest module's test-only key
		// outside the release workflow: trusted for a server on
		// 127.0.0.1 when asked for, never otherwise.
		"CRDLAB_ALLOW_TEST_KEY=1",
	)
	return func(args ...string) (string, error) {
		cmd := exec.Command("go")
		cmd.Env = env
		for _, a := range args {
			if strings.Contains(a, "=") && !strings.HasPrefix(a, "-") {
				cmd.Env = append(cmd.Env, a)
				continue
			}
			cmd.Args = append(cmd.Args, a)
		}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
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

// signedAgain is edit, with index.json's signature made again, of the
// edited index, by the test-only key make release signs with outside the
// release workflow: a release made that way, not one changed after.
func signedAgain(t *testing.T, release string, edit func(name string, data []byte) []byte) func(name string, data []byte) []byte {
	t.Helper()
	pemData, err := os.ReadFile(filepath.Join("..", "..", "..", "lab", "labtest", "internal", "releasetest", "testdata", "test-only-release-signing-key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(pemData)
	if block == nil {
		t.Fatal("the test-only signing key is not PEM")
	}
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	index, err := os.ReadFile(filepath.Join(release, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	sig := ed25519.Sign(key.(ed25519.PrivateKey), edit("index.json", index))
	return func(name string, data []byte) []byte {
		if name == "index.json.sig" {
			return sig
		}
		return edit(name, data)
	}
}
