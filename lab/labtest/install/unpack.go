package install

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
)

// errNoBinary: the archive holds no crdlab executable (or not the
// components executable it is the archive of).
var errNoBinary = errors.New("the archive lacks its executable")

// errTooLarge: an archive, or what it unpacks to, is larger than its
// index says (or than the ceilings, for an index without sizes).
var errTooLarge = errors.New("larger than allowed")

// unpack writes the files at the top level of the .tar.gz r into dir:
// binary (crdlab, or crdlab-k8s-<minor>; made executable), LICENSE,
// README.md, and returns binary's SHA-256. Anything but a plain file at the
// top level is an error, and so are an archive without binary and files
// of more than limit bytes in all.
func unpack(r io.Reader, dir, binary string, limit int64) (string, error) {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return "", err
	}
	defer gz.Close()
	tr := tar.NewReader(gz)
	var digest string
	left := limit
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", err
		}
		name := path.Clean(h.Name)
		if h.Typeflag == tar.TypeDir && name == "." {
			continue
		}
		if h.Typeflag != tar.TypeReg || name == "." || name == ".." || path.Base(name) != name {
			return "", fmt.Errorf("entry %q: only plain files at the top level are expected", h.Name)
		}
		if h.Size > left {
			return "", fmt.Errorf("%w: its files are more than the %d bytes its index allows", errTooLarge, limit)
		}
		left -= h.Size
		mode := os.FileMode(0o644)
		if name == binary {
			mode = 0o755
		}
		sum, err := write(filepath.Join(dir, name), mode, io.LimitReader(tr, h.Size))
		if err != nil {
			return "", err
		}
		if name == binary {
			digest = sum
		}
	}
	if digest == "" {
		return "", fmt.Errorf("%w: no %s at its top level", errNoBinary, binary)
	}
	return digest, nil
}

// write writes r to the new file name, returning its SHA-256.
func write(name string, mode os.FileMode, r io.Reader) (string, error) {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return "", err
	}
	if err := f.Chmod(mode); err != nil { // whatever the umask
		f.Close()
		return "", err
	}
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(f, h), r); err != nil {
		f.Close()
		return "", fmt.Errorf("unable to write %s: %w", name, err)
	}
	// On disk before place renames it in: without it a crash may leave
	// an empty executable in the cache, which would be found and run.
	if err := f.Sync(); err != nil {
		f.Close()
		return "", fmt.Errorf("unable to write %s: %w", name, err)
	}
	return hex.EncodeToString(h.Sum(nil)), f.Close()
}
