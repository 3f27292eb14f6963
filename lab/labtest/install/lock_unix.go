//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package install

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// lock takes the exclusive flock of the file name, waiting for the process
// that holds it, and returns the function that removes the file and
// releases the lock. A lock file removed by its holder while this one
// waited is no longer the lock: it takes the new one instead.
func lock(name string) (unlock func(), err error) {
	for {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return nil, fmt.Errorf("unable to make the cache folder for %s: %w", name, err)
		}
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
		if errors.Is(err, fs.ErrNotExist) {
			continue // the folder was removed by a holder that failed: again
		}
		if err != nil {
			return nil, fmt.Errorf("unable to open the lock %s: %w", name, err)
		}
		if err := flock(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("unable to lock %s: %w", name, err)
		}
		held, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("unable to stat the lock %s: %w", name, err)
		}
		now, err := os.Stat(name)
		if err != nil || !os.SameFile(held, now) {
			f.Close() // removed or replaced while waiting: not the lock any more
			continue
		}
		return func() {
			_ = os.Remove(name) // still held: no one else can take it now
			_ = f.Close()
		}, nil
	}
}

func flock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
