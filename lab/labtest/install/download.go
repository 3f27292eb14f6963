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
	versionDir := filepath.Join(s.cache, s.version)
	dir := filepath.Join(versionDir, goos+"-"+goarch)
	bin := filepath.Join(dir, "crdlab")
	// The folder is renamed into place complete: if it is there, it is whole.
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	unlock, err := lock(dir + ".lock")
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(bin); err == nil {
		unlock()
		return bin, nil // another process downloaded it while this one waited
	}
	err = s.fetch(ctx, versionDir, dir, goos, goarch)
	unlock()
	if err != nil {
		_ = os.Remove(versionDir) // only if empty: another platform or process may use it
		return "", err
	}
	return bin, nil
}

// fetch downloads, checks and unpacks the release into dir, leaving
// nothing behind when it fails.
func (s settings) fetch(ctx context.Context, versionDir, dir, goos, goarch string) error {
	pick := func(idx release.Index) (string, release.Asset, error) { return idx.Archive(s.version, goos, goarch) }
	what := fmt.Sprintf("crdlab %s for %s/%s", s.version, goos, goarch)
	tmp, err := s.fetchArchive(ctx, versionDir, what, release.Binary, pick)
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // gone once renamed
	// MkdirTemp's mode is 0700.
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("unable to unpack crdlab into %s: %w", tmp, err)
	}
	return place(tmp, dir, "crdlab")
}

// fetchArchive reads the release's index, downloads the archive pick
// chooses (into parent, a temporary file), checks its SHA-256 against the
// index and unpacks it into a new temporary folder in parent, which it
// returns for the caller to put in place and remove. what names the
// archive in the log; binary is the executable the archive must hold.
// Nothing is left in parent when it fails.
func (s settings) fetchArchive(ctx context.Context, parent, what, binary string, pick func(release.Index) (string, release.Asset, error)) (string, error) {
	base := strings.TrimSuffix(s.base, "/") + "/" + s.version + "/"
	data, err := s.get(ctx, base+release.IndexFile)
	if err != nil {
		return "", err
	}
	idx, err := release.ParseIndex(data)
	if err != nil {
		return "", fmt.Errorf("%w: %s%s: %w", ErrBadRelease, base, release.IndexFile, err)
	}
	name, want, err := pick(idx)
	if err != nil {
		return "", fmt.Errorf("%s%s: %w", base, release.IndexFile, err)
	}
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return "", fmt.Errorf("%w: %s%s names the archive %q, not a file name", ErrBadRelease, base, release.IndexFile, name)
	}
	fmt.Fprintf(s.log, "downloading %s from %s\n", what, base+name)

	archive, err := os.CreateTemp(parent, ".download-*")
	if err != nil {
		return "", fmt.Errorf("unable to download %s into %s: %w", binary, parent, err)
	}
	defer os.Remove(archive.Name())
	defer archive.Close()
	got, err := s.save(ctx, base+name, archive)
	if err != nil {
		return "", err
	}
	if !strings.EqualFold(got, want.SHA256) {
		return "", fmt.Errorf("%w: %s has SHA-256 %s, but its index says %s: the archive was changed or cut; nothing was unpacked",
			ErrDigest, base+name, got, want.SHA256)
	}
	tmp, err := os.MkdirTemp(parent, ".unpack-*")
	if err != nil {
		return "", fmt.Errorf("unable to unpack %s into %s: %w", binary, parent, err)
	}
	if _, err := archive.Seek(0, io.SeekStart); err != nil {
		os.RemoveAll(tmp)
		return "", fmt.Errorf("unable to read back %s: %w", archive.Name(), err)
	}
	if err := unpack(archive, tmp, binary); err != nil {
		os.RemoveAll(tmp)
		return "", fmt.Errorf("%w: %s: %w", ErrBadRelease, base+name, err)
	}
	return tmp, nil
}

// get reads url's body.
func (s settings) get(ctx context.Context, url string) ([]byte, error) {
	body, err := s.open(ctx, url)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	data, err := io.ReadAll(io.LimitReader(body, 16<<20))
	if err != nil {
		return nil, fmt.Errorf("%w: GET %s: %w; %s", ErrUnreachable, url, err, s.avoid())
	}
	return data, nil
}

// save writes url's body to f, returning its SHA-256 in hex.
func (s settings) save(ctx context.Context, url string, f *os.File) (string, error) {
	body, err := s.open(ctx, url)
	if err != nil {
		return "", err
	}
	defer body.Close()
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(f, h), body); err != nil {
		return "", fmt.Errorf("%w: GET %s was cut: %w; %s", ErrUnreachable, url, err, s.avoid())
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func (s settings) open(ctx context.Context, url string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %s=%s: %w", ErrUnreachable, DownloadURLEnv, s.base, err)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		// *url.Error names the method and the URL already.
		return nil, fmt.Errorf("%w: %w; %s", ErrUnreachable, err, s.avoid())
	}
	switch {
	case resp.StatusCode == http.StatusNotFound && strings.HasSuffix(url, "/"+release.IndexFile) && s.hint != "":
		resp.Body.Close()
		return nil, fmt.Errorf("%w %s: GET %s: %s; %s", ErrUnknownVersion, s.version, url, resp.Status, s.hint)
	case resp.StatusCode == http.StatusNotFound && strings.HasSuffix(url, "/"+release.IndexFile):
		resp.Body.Close()
		return nil, fmt.Errorf("%w %s: GET %s: %s; set %s to a version released there, or %s to a crdlab binary",
			ErrUnknownVersion, s.version, url, resp.Status, VersionEnv, BinaryEnv)
	case resp.StatusCode != http.StatusOK:
		resp.Body.Close()
		return nil, fmt.Errorf("%w: GET %s: %s; %s", ErrUnreachable, url, resp.Status, s.avoid())
	}
	return resp.Body, nil
}

// avoid says how not to download.
func (s settings) avoid() string {
	if s.hint != "" {
		return s.hint
	}
	return fmt.Sprintf("set %s to a crdlab binary, or %s to a reachable copy of the releases", BinaryEnv, DownloadURLEnv)
}
