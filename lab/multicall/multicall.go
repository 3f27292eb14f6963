package multicall

import (
	_ "github.com/crdlab/crdlab/lab/internal/fasthelp" // first: answers envtest's --help look-ups at once

	"github.com/crdlab/crdlab/lab/internal/etcd"
	"github.com/crdlab/crdlab/lab/internal/kubecmd"
	"github.com/crdlab/crdlab/lab/internal/kubemain"
)

// Component names under which a program that imports this package runs a
// Kubernetes component instead of its own main. They are the names envtest
// and users look for in a binary assets folder.
const (
	Etcd                  = kubemain.Etcd
	KubeAPIServer         = kubemain.KubeAPIServer
	KubeControllerManager = kubemain.KubeControllerManager
	KubeScheduler         = kubemain.KubeScheduler
	Kubectl               = kubemain.Kubectl
)

// components maps a component name to the function that runs it and returns
// its exit code: the built-in minor's (lab/internal/kubecmd, with that
// minor's hooks, hooks.go), and etcd.
var components = func() map[string]func(args []string) int {
	c := kubecmd.Components(hooks...)
	c[Etcd] = func(args []string) int {
		etcd.Main(args) // exits the process itself when etcd stops; crdlab's election defaults
		return 0
	}
	return c
}()

// ParentPIDEnv names the variable through which a lab tells its children
// which process they belong to, so that a child started after its parent
// already died exits at once instead of running as an orphan.
const ParentPIDEnv = kubemain.ParentPIDEnv

// WaitForEtcdEnv names the variable through which a lab that starts etcd
// and kube-apiserver at the same time asks kube-apiserver to wait, for at
// most the duration it holds, until etcd (--etcd-servers, http) says it is
// healthy, before it builds anything that uses etcd. Without it an etcd
// client that meets a refused connection at start waits about a second
// before it tries again. Unset, kube-apiserver starts as upstream's does.
const WaitForEtcdEnv = kubemain.WaitForEtcdEnv

// BootGCEnviron is what a lab adds to the environment of a component of
// its own, so that it collects nothing while it boots, its packages'
// initialization included (docs/boot.md, Memory); nothing when this
// process's environment sets GOGC or GOMEMLIMIT, or CRDLAB_IDLE_GC=off.
func BootGCEnviron() []string { return kubemain.BootGCEnviron() }

// TuneGC collects this process's heap as a component's is collected
// (docs/boot.md, Memory): nothing while it boots, until BootDone (or a
// memory limit); then Go's default, and more tightly while it is idle.
// For a program's own process that runs a lab ('crdlab up'), not for a
// library's caller.
func TuneGC() { kubemain.TuneGC() }

// BootDone ends the boot that TuneGC began.
func BootDone() { kubemain.BootDone() }

func init() {
	kubemain.Run(components)
}

// RunKubectl runs the real kubectl, compiled in, with args (the arguments
// after "kubectl"), and returns its exit code.
func RunKubectl(args []string) int {
	return kubemain.RunKubectl(args)
}

// Link lays out in dir a symbolic link to this executable for each
// component name, the binary assets folder envtest expects, and returns dir.
func Link(dir string) (string, error) {
	names := make([]string, 0, len(components))
	for name := range components {
		names = append(names, name)
	}
	return kubemain.Link(dir, names)
}
