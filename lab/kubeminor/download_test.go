package kubeminor_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/crdlab/crdlab/lab/kubeminor"
	"github.com/crdlab/crdlab/lab/labtest/install"
	"github.com/crdlab/crdlab/lab/labtest/release"
	"github.com/crdlab/crdlab/lab/lang"
)

// releasedComponents is the crdlab-k8s-1.35 of componentsRelease.
const releasedComponents = "#!/bin/sh\n[ \"$1\" = version ] || exit 2\necho '{\"crdlab\":\"v0.2.0\",\"kubernetes\":\"v1.35.8\",\"go\":\"go1.26.0\"}'\n"

// componentsRelease serves on 127.0.0.1 a release v0.2.0 whose index
// lists a components archive of 1.35 for this platform, holding a fake
// crdlab-k8s-1.35; with tamper, the archive served is not the one indexed.
// It returns the base URL and counts the archive's requests in *n.
func componentsRelease(t *testing.T, tamper bool, n *int) string {
	t.Helper()
	archive := func(script string) []byte {
		var buf bytes.Buffer
		gz := gzip.NewWriter(&buf)
		tw := tar.NewWriter(gz)
		if err := tw.WriteHeader(&tar.Header{Name: "crdlab-k8s-1.35", Mode: 0o755, Size: int64(len(script)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(script)); err != nil {
			t.Fatal(err)
		}
		if err := tw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := gz.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	data := archive(releasedComponents)
	sum := sha256.Sum256(data)
	if tamper {
		data = archive("#!/bin/sh\necho tampered\n")
	}
	name := "crdlab-k8s-1.35-v0.2.0-" + runtime.GOOS + "-" + runtime.GOARCH + ".tar.gz"
	index, err := json.Marshal(map[string]any{
		"releases": map[string]any{"v0.2.0": map[string]any{}},
		"components": map[string]any{"v0.2.0": map[string]any{name: map[string]string{
			"kubernetes": "1.35", "os": runtime.GOOS, "arch": runtime.GOARCH, "sha256": hex.EncodeToString(sum[:]), "url": "https://example.com/" + name}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	sig := ed25519.Sign(testSigningKey(t), index)
	t.Setenv(release.AllowTestKeyEnv, "1")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v0.2.0/index.json":
			_, _ = w.Write(index)
		case "/v0.2.0/index.json.sig":
			_, _ = w.Write(sig)
		case "/v0.2.0/" + name:
			*n++
			_, _ = w.Write(data)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// testSigningKey is the labtest module's test-only release key, which
// tests trust with release.AllowTestKeyEnv.
func testSigningKey(t *testing.T) ed25519.PrivateKey {
	t.Helper()
	data, err := os.ReadFile("../labtest/internal/releasetest/testdata/test-only-release-signing-key.pem")
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		t.Fatal("the test key is not PEM")
	}
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return key.(ed25519.PrivateKey)
}

// A release build with no components in CRDLAB_COMPONENTS_DIR nor next to
// it downloads them from its release into the user cache, checked, and
// uses them; a tampered archive is refused and leaves the cache empty.
func TestFindDownloadsForARelease(t *testing.T) {
	ctx := context.Background()
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache)
	t.Setenv(kubeminor.DirEnv, t.TempDir())
	self := filepath.Join(t.TempDir(), "crdlab")
	if err := os.WriteFile(self, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	userCache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	w := kubeminor.Here("v0.2.0", true)
	w.Self = self
	released := sha256.Sum256([]byte(releasedComponents))
	w.Digests = map[string]string{"1.35": hex.EncodeToString(released[:])} // as make release links them

	var tamperedRequests int
	t.Setenv(install.DownloadURLEnv, componentsRelease(t, true, &tamperedRequests))
	_, err = kubeminor.Find(ctx, "1.35", w)
	if !errors.Is(err, install.ErrDigest) || !strings.Contains(err.Error(), "crdlab-k8s-1.35-v0.2.0-") {
		t.Errorf("Find with a tampered archive: %v; want %v naming the archive", err, install.ErrDigest)
	}
	if entries, _ := os.ReadDir(filepath.Join(userCache, "crdlab")); len(entries) != 0 || tamperedRequests != 1 {
		t.Errorf("the refused download (%d requests) left %v in the cache", tamperedRequests, entries)
	}
	// In Chinese, a line of Chinese words first, install's account after.
	w.Lang = lang.ZH
	_, err = kubeminor.Find(ctx, "1.35", w)
	if !errors.Is(err, install.ErrDigest) || !strings.HasPrefix(err.Error(), "crdlab-k8s-1.35：下载的压缩包与发布版列出的不符（SHA-256 不同），什么都没有解压：") {
		t.Errorf("Find with a tampered archive, in Chinese: %v", err)
	}
	w.Lang = lang.EN

	var requests int
	t.Setenv(install.DownloadURLEnv, componentsRelease(t, false, &requests))
	want := filepath.Join(userCache, "crdlab", "components", "v0.2.0", runtime.GOOS+"-"+runtime.GOARCH, "crdlab-k8s-1.35")
	for range 2 {
		c, err := kubeminor.Find(ctx, "1.35", w)
		if err != nil || c.Path != want || c.Versions.Kubernetes != "v1.35.8" {
			t.Fatalf("Find for a release = %+v, %v; want %s serving v1.35.8", c, err, want)
		}
	}
	if requests != 1 {
		t.Errorf("two Finds downloaded the archive %d times, want once", requests)
	}
}

// A components executable planted in the cache, writable by others, is
// neither run nor served, whether crdlab may download or only looks
// ('crdlab version'); one changed since its download is downloaded again.
func TestFindChecksTheCache(t *testing.T) {
	ctx := context.Background()
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache)
	t.Setenv(kubeminor.DirEnv, t.TempDir())
	self := filepath.Join(t.TempDir(), "crdlab")
	if err := os.WriteFile(self, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	var requests int
	t.Setenv(install.DownloadURLEnv, componentsRelease(t, false, &requests))
	w := kubeminor.Here("v0.2.0", true)
	w.Self = self
	released := sha256.Sum256([]byte(releasedComponents))
	w.Digests = map[string]string{"1.35": hex.EncodeToString(released[:])} // as make release links them
	_, planted := w.Candidates("1.35")
	ran := filepath.Join(t.TempDir(), "ran")
	if err := os.MkdirAll(filepath.Dir(planted), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(planted, []byte("#!/bin/sh\ntouch "+ran+"\n"), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(planted, 0o777); err != nil {
		t.Fatal(err)
	}
	for _, noDownload := range []bool{false, true} {
		w.NoDownload = noDownload
		_, err := kubeminor.Find(ctx, "1.35", w)
		if !errors.Is(err, install.ErrUntrusted) || !strings.Contains(err.Error(), planted) {
			t.Errorf("Find (NoDownload %v) with a 0777 executable planted in the cache: %v; want %v naming it", noDownload, err, install.ErrUntrusted)
		}
	}
	if _, err := os.Stat(ran); err == nil || requests != 0 {
		t.Errorf("the planted executable was run, or the archive fetched (%d times)", requests)
	}

	if err := os.Chmod(planted, 0o755); err != nil {
		t.Fatal(err)
	}
	w.NoDownload = false
	c, err := kubeminor.Find(ctx, "1.35", w)
	if err != nil || c.Versions.Kubernetes != "v1.35.8" || requests != 1 {
		t.Fatalf("Find with an executable of unknown content in the cache = %+v, %v (%d downloads); want it downloaded again", c, err, requests)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Errorf("the planted executable was run")
	}
}
