package install_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"
)

// testVersion is the version of the releases the tests serve.
const testVersion = "v9.9.9"

// fakeCrdlab answers 'version' and 'envtest' as crdlab does: the real
// archive is tested by 'make release”s own test.
const fakeCrdlab = `#!/bin/sh
case "$1" in
version) echo "crdlab ` + testVersion + `" ;;
envtest) echo "$(dirname "$0")/envtest-assets" ;;
*) echo "unexpected arguments: $*" >&2; exit 2 ;;
esac
`

// platforms are the platforms 'make release' builds.
var platforms = [][2]string{{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "amd64"}, {"darwin", "arm64"}}

// release is an HTTP server on 127.0.0.1 serving a release folder in the
// format 'make release' publishes, counting the requests of each path.
type release struct {
	srv     *httptest.Server
	archive string // this platform's archive name
	digest  string // its SHA-256, as the index says

	mu     sync.Mutex
	files  map[string][]byte
	counts map[string]int
	// before, if set, runs before the archive is served.
	before func(w http.ResponseWriter) bool
}

// releaseOptions change what newRelease serves.
type releaseOptions struct {
	withoutThisPlatform bool // the index lacks runtime.GOOS/GOARCH
	tamper              bool // the archive served is not the one indexed
}

func newRelease(t *testing.T, o releaseOptions) *release {
	t.Helper()
	r := &release{files: map[string][]byte{}, counts: map[string]int{}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	archives := map[string]map[string]string{}
	for _, p := range platforms {
		if o.withoutThisPlatform && p[0] == runtime.GOOS && p[1] == runtime.GOARCH {
			continue
		}
		name := "crdlab-" + testVersion + "-" + p[0] + "-" + p[1] + ".tar.gz"
		data := tarGz(t, map[string]string{"crdlab": fakeCrdlab, "LICENSE": "license\n", "README.md": "readme\n"})
		sum := sha256.Sum256(data)
		if o.tamper {
			data = tarGz(t, map[string]string{"crdlab": "#!/bin/sh\necho tampered\n", "LICENSE": "license\n", "README.md": "readme\n"})
		}
		r.files["/"+testVersion+"/"+name] = data
		archives[name] = map[string]string{"os": p[0], "arch": p[1], "sha256": hex.EncodeToString(sum[:]),
			"url": "https://github.com/crdlab/crdlab/releases/download/" + testVersion + "/" + name}
		if p[0] == runtime.GOOS && p[1] == runtime.GOARCH {
			r.archive, r.digest = name, hex.EncodeToString(sum[:])
		}
	}
	index, err := json.Marshal(map[string]any{"releases": map[string]any{testVersion: archives}})
	if err != nil {
		t.Fatal(err)
	}
	r.files["/"+testVersion+"/index.json"] = index
	return r
}

func (r *release) URL() string { return r.srv.URL }

func (r *release) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.counts[req.URL.Path]++
	data, ok := r.files[req.URL.Path]
	before := r.before
	r.mu.Unlock()
	if !ok {
		http.NotFound(w, req)
		return
	}
	if req.URL.Path == "/"+testVersion+"/"+r.archive && before != nil && !before(w) {
		return
	}
	_, _ = w.Write(data)
}

// count is how many times path was asked for.
func (r *release) count(path string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.counts[path]
}

// archiveCount is how many times this platform's archive was asked for.
func (r *release) archiveCount() int { return r.count("/" + testVersion + "/" + r.archive) }

func tarGz(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, name := range []string{"crdlab", "LICENSE", "README.md"} {
		body, ok := files[name]
		if !ok {
			continue
		}
		mode := int64(0o644)
		if name == "crdlab" {
			mode = 0o755
		}
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: mode, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
