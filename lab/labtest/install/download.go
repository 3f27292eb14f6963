package install

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/crdlab/crdlab/lab/labtest/release"
)

// Ceilings of a download, whatever an index says: an index (and its
// signature) larger than these is not crdlab's; an archive, or its files
// in all, larger than these are refused even when the signed index
// allows them (or gives no sizes, a release made before them).
const (
	maxIndexSize     = 16 << 20
	maxSignatureSize = 4 << 10
	maxArchiveSize   = 1 << 30
	maxUnpackedSize  = 4 << 30
)

// Download returns the path of the crdlab executable of the release
// Options name for this OS and architecture, from the cache, downloading,
// checking and unpacking it there first if it is not yet.
func Download(ctx context.Context, opts Options) (string, error) {
	s, err := opts.settings()
	if err != nil {
		return "", err
	}
	return s.download(ctx, runtime.GOOS, runtime.GOARCH)
}

func (s settings) download(ctx context.Context, goos, goarch string) (string, error) {
	platform := goos + "-" + goarch
	versionDir := filepath.Join(s.cache, s.version)
	dir := filepath.Join(versionDir, platform)
	bin := filepath.Join(dir, release.Binary)
	// The folder is renamed into place complete, with the executable's
	// digest: if both are there and agree, it is whole.
	if ok, err := s.cached(bin); err != nil || ok {
		return served(bin, ok, err)
	}
	unlock, err := lock(ctx, dir+".lock")
	if err != nil {
		return "", err
	}
	err = s.fetchLocked(ctx, versionDir, dir, bin, goos, goarch)
	unlock()
	if err != nil {
		_ = os.Remove(versionDir) // only if empty: another platform or process may use it
		return "", err
	}
	return bin, nil
}

// fetchLocked, under the lock of dir, checks again whether the cache has
// bin whole (another process downloaded it while this one waited), else
// removes what a killed or failed download left and fetches it.
func (s settings) fetchLocked(ctx context.Context, versionDir, dir, bin, goos, goarch string) error {
	if ok, err := s.cached(bin); err != nil || ok {
		return err
	}
	// Its temporaries, a folder without its executable or digest (made
	// by hand, or by an older crdlab), an executable changed since.
	if err := clean(versionDir, goos+"-"+goarch, dir); err != nil {
		return err
	}
	return s.fetch(ctx, versionDir, dir, goos, goarch)
}

// served is cached's answer for bin as Download's.
func served(bin string, ok bool, err error) (string, error) {
	if err != nil || !ok {
		return "", err
	}
	return bin, nil
}

// fetch downloads, checks and unpacks the release into dir, leaving
// nothing behind when it fails.
func (s settings) fetch(ctx context.Context, versionDir, dir, goos, goarch string) error {
	pick := func(idx release.Index) (string, release.Asset, error) { return idx.Archive(s.version, goos, goarch) }
	what := fmt.Sprintf("crdlab %s for %s/%s", s.version, goos, goarch)
	tmp, digest, err := s.fetchArchive(ctx, versionDir, goos+"-"+goarch, what, release.Binary, pick)
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // gone once renamed
	if err := writeDigest(filepath.Join(tmp, release.Binary), digest); err != nil {
		return err
	}
	// MkdirTemp's mode is 0700.
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("unable to unpack crdlab into %s: %w", tmp, err)
	}
	return place(tmp, dir, "crdlab")
}

// writeDigest records bin's SHA-256 in <bin>.sha256, which cached checks.
func writeDigest(bin, digest string) error {
	if _, err := write(bin+digestSuffix, 0o644, strings.NewReader(digest+"\n")); err != nil {
		return fmt.Errorf("unable to record the digest of %s: %w", bin, err)
	}
	return nil
}

// fetchArchive reads the release's index and checks its signature, then
// downloads the archive pick chooses (into parent, a temporary file named
// for key), checks its size and SHA-256 against the index and unpacks it
// into a new temporary folder in parent, which it returns for the caller
// to put in place and remove, with the SHA-256 of the executable binary it
// holds. what names the archive in the log. Nothing is left in parent
// when it fails.
func (s settings) fetchArchive(ctx context.Context, parent, key, what, binary string, pick func(release.Index) (string, release.Asset, error)) (string, string, error) {
	base := strings.TrimSuffix(s.base, "/") + "/" + s.version + "/"
	idx, err := s.index(ctx, base)
	if err != nil {
		return "", "", err
	}
	name, want, err := pick(idx)
	if err != nil {
		return "", "", fmt.Errorf("%s%s: %w", base, release.IndexFile, err)
	}
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return "", "", fmt.Errorf("%w: %s%s names the archive %q, not a file name", ErrBadRelease, base, release.IndexFile, name)
	}
	size, unpacked := limit(want.Size, maxArchiveSize), limit(want.UnpackedSize, maxUnpackedSize)
	fmt.Fprintf(s.log, "downloading %s from %s\n", what, base+name)

	if err := mkdirAll(parent); err != nil {
		return "", "", fmt.Errorf("unable to download %s into %s: %w", binary, parent, err)
	}
	archive, err := os.CreateTemp(parent, ".download-"+key+"-*")
	if err != nil {
		return "", "", fmt.Errorf("unable to download %s into %s: %w", binary, parent, err)
	}
	defer os.Remove(archive.Name())
	defer archive.Close()
	got, err := s.save(ctx, base+name, archive, size)
	if err != nil {
		return "", "", err
	}
	if !strings.EqualFold(got, want.SHA256) {
		return "", "", fmt.Errorf("%w: %s has SHA-256 %s, but its index says %s: the archive was changed or cut; nothing was unpacked",
			ErrDigest, base+name, got, want.SHA256)
	}
	tmp, err := os.MkdirTemp(parent, ".unpack-"+key+"-*")
	if err != nil {
		return "", "", fmt.Errorf("unable to unpack %s into %s: %w", binary, parent, err)
	}
	if _, err := archive.Seek(0, io.SeekStart); err != nil {
		os.RemoveAll(tmp)
		return "", "", fmt.Errorf("unable to read back %s: %w", archive.Name(), err)
	}
	digest, err := unpack(archive, tmp, binary, unpacked)
	if err != nil {
		os.RemoveAll(tmp)
		return "", "", fmt.Errorf("%w: %s: %w", ErrBadRelease, base+name, err)
	}
	return tmp, digest, nil
}

// limit is the index's size, or ceiling when it gives none or more.
func limit(indexed, ceiling int64) int64 {
	if indexed <= 0 || indexed > ceiling {
		return ceiling
	}
	return indexed
}

// index reads base's index.json and checks its signature, index.json.sig,
// before anything in it is trusted.
func (s settings) index(ctx context.Context, base string) (release.Index, error) {
	data, err := s.get(ctx, base+release.IndexFile, maxIndexSize)
	if err != nil {
		return release.Index{}, err
	}
	sig, err := s.get(ctx, base+release.IndexSignatureFile, maxSignatureSize)
	if err != nil {
		return release.Index{}, err
	}
	if _, err := release.Verify(data, sig, s.keys); err != nil {
		return release.Index{}, fmt.Errorf("refused %s%s: its signature %s: %w", base, release.IndexFile, release.IndexSignatureFile, err)
	}
	idx, err := release.ParseIndex(data)
	if err != nil {
		return idx, fmt.Errorf("%w: %s%s: %w", ErrBadRelease, base, release.IndexFile, err)
	}
	return idx, nil
}

// get reads url's body, of at most max bytes.
func (s settings) get(ctx context.Context, url string, max int64) ([]byte, error) {
	body, err := s.open(ctx, url)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	data, err := io.ReadAll(io.LimitReader(body, max+1))
	if err != nil {
		return nil, fmt.Errorf("%w: GET %s: %w; %s", ErrUnreachable, url, err, s.avoid())
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%w: GET %s: more than %d bytes, not a release's", ErrBadRelease, url, max)
	}
	return data, nil
}

// save writes url's body, of at most max bytes, to f, returning its
// SHA-256 in hex.
func (s settings) save(ctx context.Context, url string, f *os.File, max int64) (string, error) {
	body, err := s.open(ctx, url)
	if err != nil {
		return "", err
	}
	defer body.Close()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(body, max+1))
	if err != nil {
		return "", fmt.Errorf("%w: GET %s was cut: %w; %s", ErrUnreachable, url, err, s.avoid())
	}
	if n > max {
		return "", fmt.Errorf("%w: GET %s: %w: more than the %d bytes its index allows; nothing was unpacked", ErrBadRelease, url, errTooLarge, max)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// open GETs url, its body read under the idle timeout.
func (s settings) open(ctx context.Context, url string) (io.ReadCloser, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		cancel(nil)
		return nil, fmt.Errorf("%w: %s=%s: %w", ErrUnreachable, DownloadURLEnv, s.base, err)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		cancel(nil)
		// *url.Error names the method and the URL already.
		return nil, fmt.Errorf("%w: %w; %s", ErrUnreachable, err, s.avoid())
	}
	fail := func(err error) (io.ReadCloser, error) {
		resp.Body.Close()
		cancel(nil)
		return nil, err
	}
	switch {
	case resp.StatusCode == http.StatusNotFound && strings.HasSuffix(url, "/"+release.IndexSignatureFile):
		return fail(fmt.Errorf("refused %s: %w: GET %s: %s; crdlab trusts only a signed index (docs/security.md)",
			strings.TrimSuffix(url, release.IndexSignatureFile)+release.IndexFile, ErrUnsigned, url, resp.Status))
	case resp.StatusCode == http.StatusNotFound && strings.HasSuffix(url, "/"+release.IndexFile) && s.hint != "":
		return fail(fmt.Errorf("%w %s: GET %s: %s; %s", ErrUnknownVersion, s.version, url, resp.Status, s.hint))
	case resp.StatusCode == http.StatusNotFound && strings.HasSuffix(url, "/"+release.IndexFile):
		return fail(fmt.Errorf("%w %s: GET %s: %s; set %s to a version released there, or %s to a crdlab binary",
			ErrUnknownVersion, s.version, url, resp.Status, VersionEnv, BinaryEnv))
	case resp.StatusCode != http.StatusOK:
		return fail(fmt.Errorf("%w: GET %s: %s; %s", ErrUnreachable, url, resp.Status, s.avoid()))
	}
	return watchIdle(ctx, cancel, resp.Body, s.idle), nil
}

// avoid says how not to download.
func (s settings) avoid() string {
	if s.hint != "" {
		return s.hint
	}
	return fmt.Sprintf("set %s to a crdlab binary, or %s to a reachable copy of the releases", BinaryEnv, DownloadURLEnv)
}
