package multicall

import "github.com/crdlab/crdlab/lab/internal/kubemain"

// Versions lists the versions of what is compiled into this program:
// crdlab itself and the components it runs.
type Versions = kubemain.Versions

// releaseVersion is the release crdlab was built as, set by the linker:
// make release builds with
// -ldflags "-X github.com/crdlab/crdlab/lab/multicall.releaseVersion=$(VERSION)".
// Empty in any other build.
var releaseVersion string

// BuildVersions reads the versions from the program's build information.
// crdlab's own is the release version it was built as when there is one,
// else the module's version and the commit from the build information
// ("(devel)" and the commit for a build of this repository).
func BuildVersions() Versions {
	return kubemain.BuildVersions(releaseVersion)
}
