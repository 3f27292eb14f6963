package install

import (
	"archive/tar"
	"compress/gzip"
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

// unpack writes the files at the top level of the .tar.gz r into dir:
// binary (crdlab, or crdlab-k8s-<minor>; made executable), LICENSE,
// README.md. Anything but a plain file at the top level is an error, and
// so is an archive without binary.
func unpack(r io.Reader, dir, binary string) error {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return err
	}
	defer gz.Close()
	tr := tar.NewReader(gz)
	found := false
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		name := path.Clean(h.Name)
		if h.Typeflag == tar.TypeDir && name == "." {
			continue
		}
		if h.Typeflag != tar.TypeReg || name == "." || name == ".." || path.Base(name) != name {
			return fmt.Errorf("entry %q: only plain files at the top level are expected", h.Name)
		}
		mode := os.FileMode(0o644)
		if name == binary {
			mode, found = 0o755, true
		}
		if err := write(filepath.Join(dir, name), mode, tr); err != nil {
			return err
		}
	}
	if !found {
		return fmt.Errorf("%w: no %s at its top level", errNoBinary, binary)
	}
	return nil
}

func write(name string, mode os.FileMode, r io.Reader) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if err := f.Chmod(mode); err != nil { // whatever the umask
		f.Close()
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return fmt.Errorf("unable to write %s: %w", name, err)
	}
	// On disk before place renames it in: without it a crash may leave
	// an empty executable in the cache, which would be found and run.
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("unable to write %s: %w", name, err)
	}
	return f.Close()
}
