//go:build !linux && !darwin

package proc

import (
	"errors"
	"fmt"
	"runtime"
)

func peerUID(int) (int, error) {
	return 0, fmt.Errorf("peer credentials: %w on %s", errors.ErrUnsupported, runtime.GOOS)
}
