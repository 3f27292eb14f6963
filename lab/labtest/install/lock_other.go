//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package install

import (
	"context"
	"fmt"
	"runtime"
)

// lock refuses: crdlab is released for Linux and macOS only, and there is
// no download to share on other systems.
func lock(_ context.Context, name string) (func(), error) {
	return nil, fmt.Errorf("%w: crdlab is released for linux and darwin, not %s (lock %s)", ErrNoPlatform, runtime.GOOS, name)
}
