package multicall_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crdlab/crdlab/lab/multicall"
)

// TestReleaseVersionSetByLinker builds a program that prints
// BuildVersions().Crdlab with the -X flag make release gives, and checks
// that the version set by the linker is the one printed.
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
	if got := strings.TrimSpace(string(out)); got != version {
		t.Errorf("a build with -X ...releaseVersion=%s prints crdlab version %q, want %q", version, got, version)
	}
}

// TestBuildVersionsWithoutRelease: a test binary is no release; crdlab's
// version comes from the build information and the components' are read.
func TestBuildVersionsWithoutRelease(t *testing.T) {
	v := multicall.BuildVersions()
	if v.Crdlab == "" {
		t.Error("crdlab version empty: want the build information's, (devel) at least")
	}
	if !strings.HasPrefix(v.Kubernetes, "v1.") || !strings.HasPrefix(v.Etcd, "v3.") {
		t.Errorf("kubernetes %q, etcd %q: want the linked modules' versions", v.Kubernetes, v.Etcd)
	}
}
