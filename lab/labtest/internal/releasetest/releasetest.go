package releasetest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/crdlab/crdlab/lab/labtest/release"
)

// Version is the version of the releases served.
const Version = "v9.9.9"

// FakeCrdlab answers 'version' and 'envtest' as crdlab does: the real
// archive is tested by 'make release”s own test.
const FakeCrdlab = `#!/bin/sh
case "$1" in
version) echo "crdlab ` + Version + `" ;;
envtest) echo "${0%/*}/envtest-assets" ;;
*) echo "unexpected arguments: $*" >&2; exit 2 ;;
esac
`

// FakeComponents answers 'version' as crdlab-k8s-<minor> does, for minor.
func FakeComponents(minor string) string {
	return `#!/bin/sh
case "$1" in
version) echo '{"crdlab":"` + Version + `","kubernetes":"v` + minor + `.0","go":"go1.26.0"}' ;;
*) echo "unexpected arguments: $*" >&2; exit 2 ;;
esac
`
}

// ComponentsArchive is the name of the archive of minor's components for
// goos/goarch.
func ComponentsArchive(minor, goos, goarch string) string {
	return release.ComponentsArchiveName(minor, Version, goos, goarch)
}

// Platforms are the platforms 'make release' builds.
var Platforms = [][2]string{{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "amd64"}, {"darwin", "arm64"}}

// Server is an HTTP server on 127.0.0.1 serving a release folder in the
// format 'make release' publishes, counting the requests of each path.
type Server struct {
	srv *httptest.Server
	// Archive is this platform's archive name.
	Archive string
	// Digest is its SHA-256, as the index says.
	Digest string
	// ComponentsDigest is the SHA-256 of each minor's components archive
	// for this platform, as the index says.
	ComponentsDigest map[string]string

	mu     sync.Mutex
	files  map[string][]byte
	counts map[string]int
	before func(w http.ResponseWriter) bool
}

// Options change what New serves.
type Options struct {
	// WithoutThisPlatform: the index lacks runtime.GOOS/GOARCH.
	WithoutThisPlatform bool
	// Tamper: the archives served are not the ones indexed.
	Tamper bool
	// Components are the Kubernetes minors ("1.35") whose components
	// archives (crdlab-k8s-<minor>, a FakeComponents) the release has, for
	// each platform, listed under the index's "components".
	Components []string
	// Unsigned: no index.json.sig.
	Unsigned bool
	// SignedBy signs index.json instead of the test key.
	SignedBy ed25519.PrivateKey
	// EditedAfterSigning: the index.json served is not the one signed:
	// this platform's digest is another.
	EditedAfterSigning bool
	// Sizes change each archive's size and unpacked size in the index
	// (before it is signed).
	Sizes func(size, unpacked int64) (int64, int64)
}

// New serves a release of Version until the test ends, its index.json
// signed by the test key (release.TestKey), which it makes the test trust
// (release.AllowTestKeyEnv=1; the server is on 127.0.0.1).
func New(t testing.TB, o Options) *Server {
	t.Helper()
	t.Setenv(release.AllowTestKeyEnv, "1")
	r := &Server{files: map[string][]byte{}, counts: map[string]int{}, ComponentsDigest: map[string]string{}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	archives := map[string]release.Asset{}
	for _, p := range Platforms {
		if o.WithoutThisPlatform && p[0] == runtime.GOOS && p[1] == runtime.GOARCH {
			continue
		}
		name := release.ArchiveName(Version, p[0], p[1])
		files := map[string]string{"crdlab": FakeCrdlab, "LICENSE": "license\n", "README.md": "readme\n"}
		data := tarGz(t, crdlabFiles, files)
		sum := sha256.Sum256(data)
		size, unpacked := o.sizes(data, files)
		if o.Tamper {
			data = tarGz(t, crdlabFiles, map[string]string{"crdlab": "#!/bin/sh\necho tampered\n", "LICENSE": "license\n", "README.md": "readme\n"})
		}
		r.files["/"+Version+"/"+name] = data
		archives[name] = release.Asset{OS: p[0], Arch: p[1], SHA256: hex.EncodeToString(sum[:]), Size: size, UnpackedSize: unpacked,
			URL: "https://github.com/crdlab/crdlab/releases/download/" + Version + "/" + name}
		if p[0] == runtime.GOOS && p[1] == runtime.GOARCH {
			r.Archive, r.Digest = name, hex.EncodeToString(sum[:])
		}
	}
	idx := release.Index{Releases: map[string]map[string]release.Asset{Version: archives}}
	if len(o.Components) > 0 {
		idx.Components = map[string]map[string]release.Asset{Version: r.components(t, o)}
	}
	index, err := json.Marshal(idx)
	if err != nil {
		t.Fatal(err)
	}
	key := o.SignedBy
	if key == nil {
		key = SigningKey(t)
	}
	r.files["/"+Version+"/"+release.IndexFile] = index
	if !o.Unsigned {
		r.files["/"+Version+"/"+release.IndexSignatureFile] = ed25519.Sign(key, index)
	}
	if o.EditedAfterSigning {
		// As one who swapped the archive would: another digest.
		r.files["/"+Version+"/"+release.IndexFile] = bytes.Replace(index, []byte(r.Digest), []byte(strings.Repeat("0", len(r.Digest))), 1)
	}
	return r
}

// sizes are an archive's size and the sum of its files' sizes, for the
// index, changed by o.Sizes.
func (o Options) sizes(archive []byte, files map[string]string) (int64, int64) {
	var unpacked int64
	for _, f := range files {
		unpacked += int64(len(f))
	}
	if o.Sizes != nil {
		return o.Sizes(int64(len(archive)), unpacked)
	}
	return int64(len(archive)), unpacked
}

//go:embed testdata/test-only-release-signing-key.pem
var signingKeyPEM []byte

// SigningKey is the private half of release.TestKey: TEST ONLY, committed
// for tests and 'make release' outside the release workflow.
func SigningKey(t testing.TB) ed25519.PrivateKey {
	t.Helper()
	block, _ := pem.Decode(signingKeyPEM)
	if block == nil {
		t.Fatal("testdata/test-only-release-signing-key.pem: not PEM")
	}
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		t.Fatalf("testdata/test-only-release-signing-key.pem: %v", err)
	}
	ed, ok := key.(ed25519.PrivateKey)
	if !ok {
		t.Fatalf("testdata/test-only-release-signing-key.pem: a %T, not an ed25519 key", key)
	}
	return ed
}

// components makes the components archives of o, returning their index
// entries.
func (r *Server) components(t testing.TB, o Options) map[string]release.Asset {
	archives := map[string]release.Asset{}
	for _, p := range Platforms {
		if o.WithoutThisPlatform && p[0] == runtime.GOOS && p[1] == runtime.GOARCH {
			continue
		}
		for _, minor := range o.Components {
			name := ComponentsArchive(minor, p[0], p[1])
			bin := release.ComponentsBinary(minor)
			files := map[string]string{bin: FakeComponents(minor), "LICENSE": "license\n", "README.md": "readme\n"}
			data := tarGz(t, []string{bin, "LICENSE", "README.md"}, files)
			sum := sha256.Sum256(data)
			size, unpacked := o.sizes(data, files)
			if o.Tamper {
				data = tarGz(t, []string{bin, "LICENSE", "README.md"}, map[string]string{bin: "#!/bin/sh\necho tampered\n", "LICENSE": "license\n", "README.md": "readme\n"})
			}
			r.files["/"+Version+"/"+name] = data
			archives[name] = release.Asset{Kubernetes: minor, OS: p[0], Arch: p[1], SHA256: hex.EncodeToString(sum[:]), Size: size, UnpackedSize: unpacked,
				URL: "https://github.com/crdlab/crdlab/releases/download/" + Version + "/" + name}
			if p[0] == runtime.GOOS && p[1] == runtime.GOARCH {
				r.ComponentsDigest[minor] = hex.EncodeToString(sum[:])
			}
		}
	}
	return archives
}

// URL is the base URL of the releases (CRDLAB_DOWNLOAD_URL).
func (r *Server) URL() string { return r.srv.URL }

// Before, if set, runs before an archive of this platform (crdlab's or a
// components one) is served; false: it answered.
func (r *Server) Before(f func(w http.ResponseWriter) bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.before = f
}

func (r *Server) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.counts[req.URL.Path]++
	data, ok := r.files[req.URL.Path]
	before := r.before
	r.mu.Unlock()
	if !ok {
		http.NotFound(w, req)
		return
	}
	if r.thisPlatform(req.URL.Path) && before != nil && !before(w) {
		return
	}
	_, _ = w.Write(data)
}

// Count is how many times path was asked for.
func (r *Server) Count(path string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.counts[path]
}

// ArchiveCount is how many times this platform's archive was asked for.
func (r *Server) ArchiveCount() int { return r.Count("/" + Version + "/" + r.Archive) }

// ComponentsCount is how many times this platform's archive of minor's
// components was asked for.
func (r *Server) ComponentsCount(minor string) int {
	return r.Count("/" + Version + "/" + ComponentsArchive(minor, runtime.GOOS, runtime.GOARCH))
}

// thisPlatform: path is an archive of this platform's.
func (r *Server) thisPlatform(path string) bool {
	return path == "/"+Version+"/"+r.Archive ||
		(strings.HasPrefix(path, "/"+Version+"/"+release.ComponentsPrefix) && strings.HasSuffix(path, "-"+runtime.GOOS+"-"+runtime.GOARCH+".tar.gz"))
}

// crdlabFiles are the files of crdlab's archive, in order.
var crdlabFiles = []string{"crdlab", "LICENSE", "README.md"}

func tarGz(t testing.TB, order []string, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for i, name := range order {
		body, ok := files[name]
		if !ok {
			continue
		}
		mode := int64(0o644)
		if i == 0 { // the executable
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
