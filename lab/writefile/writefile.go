package writefile

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/renameio/v2"

	"github.com/crdlab/crdlab/lab/lang"
)

// EnsureWritable creates dir if needed and proves that files can be
// written in it.
func EnsureWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return lang.Errorf("unable to create %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".probe-")
	if err != nil {
		return lang.Errorf("%s is not writable: %w", dir, err)
	}
	name := f.Name()
	_ = f.Close()
	return os.Remove(name)
}

// Atomic writes data to path with mode (exactly: neither the umask nor the
// mode of the file it replaces changes it): a reader sees the old file or
// the new one, never a part, and a crash right after it returns leaves the
// new data on disk (renameio syncs the file before renaming it). A
// failed write leaves no temporary file behind.
func Atomic(path string, data []byte, mode os.FileMode) error {
	// The temporary file is in path's folder: renameio's default probes
	// os.TempDir() with a rename at every write.
	f, err := renameio.NewPendingFile(path, renameio.WithTempDir(filepath.Dir(path)), renameio.WithStaticPermissions(mode))
	if err != nil {
		return fmt.Errorf("unable to write %s: %w", path, err)
	}
	// A no-op once the file is in place; otherwise it removes the
	// temporary file, and the write's own error is the one to report.
	defer func() { _ = f.Cleanup() }()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("unable to write %s: %w", path, err)
	}
	if err := f.CloseAtomicallyReplace(); err != nil {
		return fmt.Errorf("unable to write %s: %w", path, err)
	}
	return nil
}
