package multicall_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReleaseVersionSetByLinker builds a program that prints BuildVersions
// with the -X flag make release gives, and checks that the version set by
// the linker is crdlab's, the components' still read from the build
// information.
func TestReleaseVersionSetByLinker(t *testing.T) {
	const version = "v9.8.7-test+abc"
	bin := filepath.Join(t.TempDir(), "printversion")
	build := exec.Command("go", "build", "-o", bin,
		"-ldflags", "-s -w -X github.com/crdlab/crdlab/lab/multicall.releaseVersion="+version,
		"./testdata/printversion")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./testdata/printversion: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 4 {
		t.Fatalf("%s printed %q: want 4 lines, crdlab's, Kubernetes' and etcd's versions and whether it is a release", bin, out)
	}
	if lines[0] != version {
		t.Errorf("a build with -X ...releaseVersion=%s prints crdlab version %q, want %q", version, lines[0], version)
	}
	if lines[3] != "true" {
		t.Errorf("a build with -X ...releaseVersion=%s says Release %s, want true: its components are downloaded", version, lines[3])
	}
	if !strings.HasPrefix(lines[1], "v1.") || !strings.HasPrefix(lines[2], "v3.") {
		t.Errorf("kubernetes %q, etcd %q: want the linked modules' versions, as without -X", lines[1], lines[2])
	}
}

// TestCheckoutBuildIsNoRelease builds the same program without the -X
// flag, as make build does: whatever version the Go toolchain stamps on a
// build from a checkout (a pseudo-version of the commit since Go 1.24), it
// is no release, so a missing crdlab-k8s-<minor> is not downloaded.
func TestCheckoutBuildIsNoRelease(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "printversion")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/printversion").CombinedOutput(); err != nil {
		t.Fatalf("go build ./testdata/printversion: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 4 || lines[3] != "false" {
		t.Errorf("a build without -X ...releaseVersion printed %q: want crdlab's version (%q) and Release false", out, lines[0])
	}
}
