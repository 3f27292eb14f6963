//go:build unix

package proc

import (
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// psRSS returns the resident set size of process pid in bytes, as ps(1)
// reports it (in KiB): on macOS, the way to read another process's RSS
// without cgo.
func psRSS(pid int) (int64, error) {
	out, err := exec.Command("ps", "-o", "rss=", "-p", strconv.Itoa(pid)).Output()
	if err != nil {
		return 0, fmt.Errorf("unable to read the RSS of process %d with ps: %w", pid, err)
	}
	kb, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("unable to read the RSS of process %d: ps printed %q: %w", pid, out, err)
	}
	return kb * 1024, nil
}
