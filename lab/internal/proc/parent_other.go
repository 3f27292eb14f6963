//go:build !linux && !darwin

package proc

import (
	"errors"
	"fmt"
	"runtime"
)

func dieWithParent(int) error {
	return fmt.Errorf("dying with the parent process: %w on %s", errors.ErrUnsupported, runtime.GOOS)
}
