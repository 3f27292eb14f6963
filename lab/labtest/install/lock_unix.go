//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package install

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// lockPoll is how often a waiting lock tries again.
const lockPoll = 50 * time.Millisecond

// lock takes the exclusive flock of the file name, waiting for the process
// that holds it until ctx ends, and returns the function that removes the
// file and releases the lock. A lock file removed by its holder while this
// one waited is no longer the lock: it takes the new one instead.
func lock(ctx context.Context, name string) (unlock func(), err error) {
	for {
		if err := mkdirAll(filepath.Dir(name)); err != nil {
			return nil, fmt.Errorf("unable to make the cache folder for %s: %w", name, err)
		}
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
		if errors.Is(err, fs.ErrNotExist) {
			continue // the folder was removed by a holder that failed: again
		}
		if err != nil {
			return nil, fmt.Errorf("unable to open the lock %s: %w", name, err)
		}
		if err := flock(ctx, f); err != nil {
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

// flock takes f's exclusive flock, trying again every lockPoll while
// another holds it, until ctx ends: a blocking flock would outlive the
// caller's context.
func flock(ctx context.Context, f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case !errors.Is(err, syscall.EWOULDBLOCK):
			return err
		}
		t := time.NewTimer(lockPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("another download holds it: %w", context.Cause(ctx))
		case <-t.C:
		}
	}
}
