//go:build !linux && !darwin

package proc

import (
	"errors"
	"fmt"
	"runtime"
)

func children(int) ([]int, error) {
	return nil, fmt.Errorf("listing child processes: %w on %s", errors.ErrUnsupported, runtime.GOOS)
}

func readProcess(int) (Process, error) {
	return Process{}, fmt.Errorf("reading a process's memory: %w on %s", errors.ErrUnsupported, runtime.GOOS)
}
