package kubemain

import (
	"runtime"
	"runtime/debug"
)

// Versions lists the versions of what is compiled into this program:
// crdlab itself and the components it runs.
type Versions struct {
	Crdlab            string
	Kubernetes        string
	Etcd              string
	ControllerRuntime string
	Go                string
	// Release says Crdlab is a release's version, set at link time (make
	// release), rather than what the Go toolchain stamps on any build
	// ("(devel)", or a pseudo-version v0.0.0-<date>-<commit> from the
	// checkout): only a release's components can be downloaded.
	Release bool
}

// releaseVersion is the release a components executable (lab/components)
// was built as, set by the linker:
// -ldflags "-X github.com/crdlab/crdlab/lab/internal/kubemain.releaseVersion=$(VERSION)".
// Empty in any other build. crdlab's own is lab/multicall's.
var releaseVersion string

// BuildVersions reads the versions from the program's build information.
// crdlab's own is release when not empty, else the release version this
// package was built with when there is one, else the main module's version
// and the commit from the build information ("(devel)" and the commit for
// a build of this repository).
func BuildVersions(release string) Versions {
	v := Versions{Crdlab: "(devel)", Go: runtime.Version()}
	if info, ok := debug.ReadBuildInfo(); ok {
		v = fromBuildInfo(v, info)
	}
	switch {
	case release != "":
		v.Crdlab, v.Release = release, true
	case releaseVersion != "":
		v.Crdlab, v.Release = releaseVersion, true
	}
	return v
}

// fromBuildInfo fills v from the build information: crdlab's module version
// and commit, and the versions of the modules it links.
func fromBuildInfo(v Versions, info *debug.BuildInfo) Versions {
	if info.Main.Version != "" {
		v.Crdlab = info.Main.Version
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v.Crdlab += " " + s.Value[:12]
		}
	}
	for _, m := range info.Deps {
		version := m.Version
		if m.Replace != nil {
			version = m.Replace.Version
		}
		switch m.Path {
		case "k8s.io/kubernetes":
			v.Kubernetes = version
		case "go.etcd.io/etcd/server/v3":
			v.Etcd = version
		case "sigs.k8s.io/controller-runtime":
			v.ControllerRuntime = version
		}
	}
	return v
}
