package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// runVersion writes binary (archive name's crdlab) to a temporary folder,
// runs "crdlab version" and checks that it prints version as crdlab's.
func runVersion(ctx context.Context, name string, binary []byte, version string) error {
	dir, err := os.MkdirTemp("", "crdlab-release-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "crdlab")
	if err := os.WriteFile(bin, binary, 0o755); err != nil {
		return err
	}
	out, err := exec.CommandContext(ctx, bin, "version").Output()
	if err != nil {
		return fmt.Errorf("%w: crdlab version of %s: %w", ErrVersion, name, err)
	}
	if got := printedVersion(out); got != version {
		return fmt.Errorf("%w: the crdlab of %s prints crdlab version %q, want %q:\n%s", ErrVersion, name, got, version, out)
	}
	return nil
}

// printedVersion is crdlab's version in the output of "crdlab version",
// the line "crdlab:   <version>".
func printedVersion(out []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "crdlab:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
