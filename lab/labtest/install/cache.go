package install

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// digestSuffix names the file beside a cached executable that records its
// SHA-256, written with it: <bin>.sha256.
const digestSuffix = ".sha256"

// cached checks the cached executable bin before it is served: true when
// it is there whole; false when it is not there or not whole (no recorded
// digest, or a content that is not the recorded one: download it again);
// an ErrUntrusted error, naming the path and why, when it or a folder of
// the cache above it belongs to another user (not root) or may be changed
// by group or others.
func (s settings) cached(bin string) (bool, error) {
	st, err := os.Lstat(bin)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("unable to read the cached %s: %w", bin, err)
	}
	if !st.Mode().IsRegular() {
		return false, fmt.Errorf("%w: %s is a %s, not a file; remove it", ErrUntrusted, bin, st.Mode().Type())
	}
	if err := s.trusted(bin, st); err != nil {
		return false, err
	}
	for dir := filepath.Dir(bin); ; dir = filepath.Dir(dir) {
		st, err := os.Stat(dir)
		if err != nil {
			return false, fmt.Errorf("unable to read the cache folder %s: %w", dir, err)
		}
		if err := s.trusted(dir, st); err != nil {
			return false, err
		}
		if dir == filepath.Clean(s.cache) || filepath.Dir(dir) == dir {
			break
		}
	}
	recorded, err := os.ReadFile(bin + digestSuffix)
	if err != nil {
		return false, nil // not whole: a download killed between its two renames, or an older cache
	}
	got, err := fileSHA256(bin)
	if err != nil {
		return false, nil
	}
	return strings.TrimSpace(string(recorded)) == got, nil
}

// trusted: path (st) belongs to this user or root and is not writable by
// group or others.
func (s settings) trusted(path string, st fs.FileInfo) error {
	if uid, ok := owner(st); ok && uid != os.Getuid() && uid != 0 {
		return fmt.Errorf("%w: %s belongs to user %d, not to you (%d) nor root; remove it (or its folder) to download again", ErrUntrusted, path, uid, os.Getuid())
	}
	if st.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%w: %s has mode %#o, which lets group or others change it; remove it (or chmod go-w a folder of yours) to download again", ErrUntrusted, path, st.Mode().Perm())
	}
	return nil
}

// clean removes, under the lock of what (the platform, or the components
// executable), what a killed or failed download of it left: its
// temporaries in parent (.download-<what>-*, .unpack-<what>-*) and stale,
// a half-made folder or an executable whose digest does not check out.
func clean(parent, what string, stale ...string) error {
	for _, pattern := range []string{".download-" + what + "-*", ".unpack-" + what + "-*"} {
		matches, err := filepath.Glob(filepath.Join(parent, pattern))
		if err != nil {
			return err
		}
		stale = append(stale, matches...)
	}
	for _, p := range stale {
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("unable to remove the leftover %s of an earlier download: %w", p, err)
		}
	}
	return nil
}

// mkdirAll makes dir and its missing parents 0755 whatever the umask, so
// that cached reads them as the cache's own.
func mkdirAll(dir string) error {
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		return nil
	}
	if parent := filepath.Dir(dir); parent != dir {
		if err := mkdirAll(parent); err != nil {
			return err
		}
	}
	err := os.Mkdir(dir, 0o755)
	if errors.Is(err, fs.ErrExist) {
		return nil // another process made it
	}
	if err != nil {
		return err
	}
	return os.Chmod(dir, 0o755)
}

// fileSHA256 is the hex SHA-256 of the file at path.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
