package guestbook

import (
	"bytes"
	"encoding/json"
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
	"testing"
)

// oldestMinor is the Kubernetes minor whose components make release-check
// packages for this machine.
const oldestMinor = "1.35"

// releaseServer serves make release's output folder on 127.0.0.1, each
// file through edit (nil: as it is), and counts the requests of each file.
type releaseServer struct {
	URL    string
	mu     sync.Mutex
	counts map[string]int
}

func serveRelease(t *testing.T, release, version string, edit func(name string, data []byte) []byte) *releaseServer {
	t.Helper()
	s := &releaseServer{counts: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := path.Base(r.URL.Path)
		s.mu.Lock()
		s.counts[name]++
		s.mu.Unlock()
		data, err := os.ReadFile(filepath.Join(release, name))
		if err != nil || path.Dir(r.URL.Path) != "/"+version {
			http.NotFound(w, r)
			return
		}
		if edit != nil {
			data = edit(name, data)
		}
		_, _ = w.Write(data)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

func (s *releaseServer) count(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[name]
}

// releaseUnderTest is make release's output folder and version, with this
// machine's components of oldestMinor in it.
func releaseUnderTest(t *testing.T) (release, version, components string) {
	t.Helper()
	release, version = os.Getenv("CRDLAB_RELEASE_DIR"), os.Getenv("CRDLAB_RELEASE_VERSION")
	if release == "" || version == "" || filepath.Base(release) != version {
		t.Fatal("CRDLAB_RELEASE_DIR must name make release's output folder dist/<version> and CRDLAB_RELEASE_VERSION its version: " +
			"run make release-check, then make test-modules (make test does both)")
	}
	components = "crdlab-k8s-" + oldestMinor + "-" + version + "-" + runtime.GOOS + "-" + runtime.GOARCH + ".tar.gz"
	if _, err := os.Stat(filepath.Join(release, components)); err != nil {
		t.Fatalf("%s has no %s: make release-check packages it (make release COMPONENTS=%s): %v", release, components, oldestMinor, err)
	}
	return release, version, components
}

// crdlabRunner returns a function that runs the release build of crdlab
// bin as a machine where crdlab never ran would: no CRDLAB_* but the
// download URL, the user cache in cache, no components next to bin.
func crdlabRunner(bin, url, cache string) func(args ...string) (string, error) {
	env := append(withoutCrdlab(os.Environ()), "XDG_CACHE_HOME="+cache, "HOME="+cache, "CRDLAB_DOWNLOAD_URL="+url,
		"CRDLAB_ALLOW_TEST_KEY=1") // make release signs with the test-only key: suiteRunner says why

	return func(args ...string) (string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}
}

// downloadedCrdlab is the release's crdlab as labtest's setup-crdlab
// downloads it from url into cache.
func downloadedCrdlab(t *testing.T, url, version, cache string) string {
	t.Helper()
	out, err := suiteRunner(t, url, version, cache)("run", "github.com/crdlab/crdlab/lab/labtest/cmd/setup-crdlab", "path")
	if err != nil {
		t.Fatalf("setup-crdlab path: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[len(lines)-1]
}

// A release build of crdlab, with no crdlab-k8s-1.35 beside it nor in
// CRDLAB_COMPONENTS_DIR, downloads the release's components of 1.35 (make
// release's output, served on 127.0.0.1), checks them, caches them and
// boots a lab on them: kubectl version says v1.35. A suite of this
// project asking for 1.35 (CRDLAB_KUBERNETES_VERSION) with crdlab
// downloaded by labtest gets them the same way, and passes.
func TestReleaseFetchesComponents(t *testing.T) {
	release, version, components := releaseUnderTest(t)
	srv := serveRelease(t, release, version, nil)
	cache := t.TempDir()
	bin := downloadedCrdlab(t, srv.URL, version, cache)
	crdlab := crdlabRunner(bin, srv.URL, cache)

	state := filepath.Join(t.TempDir(), "state")
	if out, err := crdlab("up", "-d", "--kubernetes", oldestMinor, "--state-dir", state); err != nil {
		t.Fatalf("crdlab up -d --kubernetes %s: %v\n%s", oldestMinor, err, out)
	}
	t.Cleanup(func() {
		if out, err := crdlab("down", "--state-dir", state); err != nil {
			t.Errorf("crdlab down: %v\n%s", err, out)
		}
	})
	cached := filepath.Join(cache, "crdlab", "components", version, runtime.GOOS+"-"+runtime.GOARCH, "crdlab-k8s-"+oldestMinor)
	if st, err := os.Stat(cached); err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("the components are not in the cache as %s (0755): %v, %v", cached, st, err)
	}
	if n := srv.count(components); n != 1 {
		t.Errorf("crdlab up downloaded %s %d times, want once", components, n)
	}
	kubectl, args := "kubectl", []string{"--kubeconfig", filepath.Join(state, "kubeconfig"), "version", "-o", "json"}
	if _, err := exec.LookPath(kubectl); err != nil {
		kubectl, args = bin, append([]string{"kubectl"}, args...)
	}
	out, err := exec.Command(kubectl, args...).Output()
	if err != nil {
		t.Fatalf("kubectl version: %v\n%s", err, out)
	}
	var v struct {
		ServerVersion struct {
			GitVersion string `json:"gitVersion"`
		} `json:"serverVersion"`
	}
	if err := json.Unmarshal(out, &v); err != nil || !strings.HasPrefix(v.ServerVersion.GitVersion, "v"+oldestMinor+".") {
		t.Errorf("kubectl version on crdlab up --kubernetes %s says the server is %q (%v), want v%s.x:\n%s", oldestMinor, v.ServerVersion.GitVersion, err, oldestMinor, out)
	}
	t.Logf("crdlab up -d --kubernetes %s with the components downloaded into %s: kubectl version says the server is %s", oldestMinor, cached, v.ServerVersion.GitVersion)

	// labtest, on an empty cache, downloads crdlab; that crdlab downloads
	// the components for the suite's minor.
	suiteCache := t.TempDir()
	if out, err := suiteRunner(t, srv.URL, version, suiteCache)("test", "-vet=off", "-count=1", "./internal/controller/", "CRDLAB_KUBERNETES_VERSION="+oldestMinor); err != nil {
		t.Fatalf("the controller suite on Kubernetes %s with crdlab downloaded: %v\n%s", oldestMinor, err, out)
	}
	if _, err := os.Stat(filepath.Join(suiteCache, "crdlab", "components", version, runtime.GOOS+"-"+runtime.GOARCH, "crdlab-k8s-"+oldestMinor)); err != nil {
		t.Errorf("the suite's crdlab did not put the components of %s in its cache: %v", oldestMinor, err)
	}
	if n := srv.count(components); n != 2 {
		t.Errorf("%s was downloaded %d times in all, want twice (once per empty cache)", components, n)
	}
}

// A components download that cannot be trusted or made fails crdlab up
// with one clear line, naming what went wrong and how to do without the
// download, and leaves nothing in the cache: an archive whose SHA-256 is
// not the index's, an index without this minor for this platform, a
// server that does not answer.
func TestReleaseRefusesABadComponentsDownload(t *testing.T) {
	release, version, components := releaseUnderTest(t)
	bin := downloadedCrdlab(t, serveRelease(t, release, version, nil).URL, version, t.TempDir())
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	unreachable := "http://" + closed.Addr().String()
	closed.Close()
	platform := runtime.GOOS + "/" + runtime.GOARCH

	for _, tc := range []struct {
		name string
		url  string
		says []string
	}{{
		name: "tampered archive",
		url: serveRelease(t, release, version, func(name string, data []byte) []byte {
			if name == components {
				data = append(bytes.Clone(data[:len(data)-1]), data[len(data)-1]^0xff)
			}
			return data
		}).URL,
		says: []string{components, "SHA-256", "nothing was unpacked"},
	}, {
		name: "no archive of this minor for this platform",
		url: serveRelease(t, release, version, signedAgain(t, release, func(name string, data []byte) []byte {
			if name != "index.json" {
				return data
			}
			var idx map[string]map[string]map[string]json.RawMessage
			if err := json.Unmarshal(data, &idx); err != nil {
				t.Fatalf("index.json of %s: %v", release, err)
			}
			delete(idx["components"][version], components)
			out, err := json.Marshal(idx)
			if err != nil {
				t.Fatal(err)
			}
			return out
		})).URL,
		says: []string{"no crdlab-k8s-" + oldestMinor + " archive for " + platform},
	}, {
		name: "unreachable server",
		url:  unreachable,
		says: []string{unreachable + "/" + version + "/index.json", "CRDLAB_COMPONENTS_DIR", "CRDLAB_DOWNLOAD_URL"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			cache := t.TempDir()
			crdlab := crdlabRunner(bin, tc.url, cache)
			state := filepath.Join(t.TempDir(), "state")
			out, err := crdlab("up", "-d", "--kubernetes", oldestMinor, "--state-dir", state)
			if err == nil {
				_, _ = crdlab("down", "--state-dir", state)
				t.Fatalf("crdlab up --kubernetes %s started with a download that should have been refused:\n%s", oldestMinor, out)
			}
			t.Log(strings.TrimSpace(out))
			// The error is one line, the last; a line before it may say the
			// download started.
			lines := strings.Split(strings.TrimSpace(out), "\n")
			msg := lines[len(lines)-1]
			for _, l := range lines[:len(lines)-1] {
				if !strings.HasPrefix(l, "downloading ") {
					t.Errorf("crdlab up said more than its error and the download's start:\n%s", out)
				}
			}
			for _, s := range tc.says {
				if !strings.Contains(msg, s) {
					t.Errorf("crdlab up's error %q does not say %q", msg, s)
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
