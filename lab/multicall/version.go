package multicall

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
}

// BuildVersions reads the versions from the program's build information.
func BuildVersions() Versions {
	v := Versions{Crdlab: "(devel)", Go: runtime.Version()}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
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
