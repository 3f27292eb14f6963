package kubemain

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/crdlab/crdlab/lab/internal/kubeversion"
	"github.com/crdlab/crdlab/lab/internal/proc"
)

// Component names under which a multi-call program runs a Kubernetes
// component instead of its own main. They are the names envtest and users
// look for in a binary assets folder.
const (
	Etcd                  = "etcd"
	KubeAPIServer         = "kube-apiserver"
	KubeControllerManager = "kube-controller-manager"
	KubeScheduler         = "kube-scheduler"
	Kubectl               = "kubectl"
)

// ParentPIDEnv names the variable through which a lab tells its children
// which process they belong to, so that a child started after its parent
// already died exits at once instead of running as an orphan.
const ParentPIDEnv = "CRDLAB_PARENT_PID"

// WaitForEtcdEnv names the variable through which a lab that starts etcd
// and kube-apiserver at the same time asks kube-apiserver to wait, for at
// most the duration it holds, until etcd (--etcd-servers, http) says it is
// healthy, before it builds anything that uses etcd. Without it an etcd
// client that meets a refused connection at start waits about a second
// before it tries again. Unset, kube-apiserver starts as upstream's does.
const WaitForEtcdEnv = "CRDLAB_WAIT_FOR_ETCD"

// Run runs the component of components named by the base name this
// program was executed under, and exits with its exit code; it returns
// when the name is none of them. Call it from an init, so that the
// component starts before main or any test. Every component but kubectl
// dies with the process that started it (dieWithParent), and collects
// its heap more tightly while it is idle (startIdleGC).
func Run(components map[string]func(args []string) int) {
	name := filepath.Base(os.Args[0])
	run, ok := components[name]
	if !ok {
		return
	}
	if name != Kubectl {
		dieWithParent()
		startIdleGC()
	}
	kubeversion.Set()
	os.Exit(run(os.Args))
}

// dieWithParent makes this process end when the process that started it
// ends, however it ends (even SIGKILL), and exits at once when that parent
// is already gone. envtest alone leaves etcd and kube-apiserver running
// when its parent is killed (controller-runtime #911, #1909).
func dieWithParent() {
	parent, _ := strconv.Atoi(os.Getenv(ParentPIDEnv)) // 0 when started by hand, not by a lab
	if err := proc.DieWithParent(parent); err != nil {
		fmt.Fprintf(os.Stderr, "crdlab: %v, exiting\n", err)
		os.Exit(1)
	}
}

// Link lays out in dir a symbolic link to this executable for each of
// names, the binary assets folder envtest expects, and returns dir.
func Link(dir string, names []string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("unable to find this executable: %w", err)
	}
	if self, err = filepath.EvalSymlinks(self); err != nil {
		return "", fmt.Errorf("unable to resolve this executable: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("unable to create binary dir %s: %w", dir, err)
	}
	names = append([]string(nil), names...)
	sort.Strings(names)
	for _, name := range names {
		link := filepath.Join(dir, name)
		if target, err := os.Readlink(link); err == nil && target == self {
			continue
		}
		_ = os.Remove(link)
		if err := os.Symlink(self, link); err != nil {
			return "", fmt.Errorf("unable to link %s: %w", link, err)
		}
	}
	return dir, nil
}
