package install

import "runtime/debug"

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
