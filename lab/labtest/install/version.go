package install

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"runtime/debug"
	"strings"
	"time"
)

// modulePath is the labtest module's path.
const modulePath = "github.com/crdlab/crdlab/lab/labtest"

// ModuleVersion is the version of the labtest module this program was built
// with (v0.3.0), the release Find downloads by default; empty for a
// development build or a replaced module, which match no release.
func ModuleVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	return moduleVersion(bi)
}

func moduleVersion(bi *debug.BuildInfo) string {
	// 'go run .../setup-crdlab@v0.3.0' builds the module as the main one.
	if bi.Main.Path == modulePath {
		return releaseVersion(bi.Main.Version, bi.Main.Replace)
	}
	for _, m := range bi.Deps {
		if m.Path == modulePath {
			return releaseVersion(m.Version, m.Replace)
		}
	}
	return ""
}

func releaseVersion(version string, replace *debug.Module) string {
	if replace != nil || version == "(devel)" {
		return ""
	}
	return version
}

// versionTimeout bounds 'crdlab version' of the crdlab on $PATH.
const versionTimeout = 30 * time.Second

// checkPinned checks that the crdlab at path (found on $PATH) is the
// release pinned, as its 'crdlab version' says; nothing pinned: any.
func checkPinned(ctx context.Context, path, pinned string) error {
	if pinned == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "version").Output()
	got := printedVersion(out)
	switch {
	case err != nil:
		got = fmt.Sprintf("of no known version ('crdlab version': %v)", err)
	case got == "":
		got = "of no known version ('crdlab version' printed no crdlab line)"
	}
	if got == pinned {
		return nil
	}
	return fmt.Errorf("%w: %s is %s, not %s, the release this labtest module pins (or $%s); set %s=%s to use it all the same, install %s, or take it off $PATH to download %s",
		ErrOtherVersion, path, got, pinned, VersionEnv, BinaryEnv, path, pinned, pinned)
}

// printedVersion is crdlab's version as 'crdlab version' prints it on its
// first line ("crdlab:             v0.3.0").
func printedVersion(out []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "crdlab"); ok {
			return strings.TrimSpace(strings.TrimPrefix(v, ":"))
		}
	}
	return ""
}
