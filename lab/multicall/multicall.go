package multicall

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	_ "time/tzdata" // CronJob time zones without a system tz database

	_ "github.com/crdlab/crdlab/lab/internal/fasthelp" // first: answers envtest's --help look-ups at once
	_ "github.com/crdlab/crdlab/lab/internal/i18n"     // first: keeps kubectl from loading translations in every process
	"github.com/crdlab/crdlab/lab/internal/kubeversion"
	"github.com/crdlab/crdlab/lab/internal/proc"

	"go.etcd.io/etcd/server/v3/etcdmain"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/component-base/cli"
	kubectlcmd "k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/plugin"
	kubectlutil "k8s.io/kubectl/pkg/cmd/util"
	kubecontrollermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	kubescheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"

	_ "k8s.io/component-base/logs/json/register"          // JSON log format, as the real binaries have it
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go metrics, as the real binaries have them
	_ "k8s.io/component-base/metrics/prometheus/version"  // version metric, as the real binaries have it
)

// Component names under which a program that imports this package runs a
// Kubernetes component instead of its own main. They are the names envtest
// and users look for in a binary assets folder.
const (
	Etcd                  = "etcd"
	KubeAPIServer         = "kube-apiserver"
	KubeControllerManager = "kube-controller-manager"
	KubeScheduler         = "kube-scheduler"
	Kubectl               = "kubectl"
)

// components maps a component name to the function that runs it and returns
// its exit code.
var components = map[string]func(args []string) int{
	Etcd: func(args []string) int {
		etcdmain.Main(args) // exits the process itself when etcd stops
		return 0
	},
	KubeAPIServer: func([]string) int { return cli.Run(newAPIServerCommand()) },
	KubeControllerManager: func([]string) int {
		return cli.Run(kubecontrollermanager.NewControllerManagerCommand())
	},
	KubeScheduler: func([]string) int { return cli.Run(kubescheduler.NewSchedulerCommand()) },
	Kubectl:       func(args []string) int { return RunKubectl(args[1:]) },
}

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

func init() {
	name := filepath.Base(os.Args[0])
	run, ok := components[name]
	if !ok {
		return
	}
	if name != Kubectl {
		dieWithParent()
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

// RunKubectl runs the real kubectl, compiled in, with args (the arguments
// after "kubectl"), and returns its exit code.
func RunKubectl(args []string) int {
	kubeversion.Set()
	streams := genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
	command := kubectlcmd.NewDefaultKubectlCommandWithArgs(kubectlcmd.KubectlOptions{
		PluginHandler: kubectlcmd.NewDefaultPluginHandler(plugin.ValidPluginFilenamePrefixes),
		Arguments:     append([]string{Kubectl}, args...),
		ConfigFlags: genericclioptions.NewConfigFlags(true).WithDeprecatedPasswordFlag().
			WithDiscoveryBurst(300).WithDiscoveryQPS(50.0).WithWarningPrinter(streams),
		IOStreams: streams,
	})
	command.SetArgs(args)
	if err := cli.RunNoErrOutput(command); err != nil {
		kubectlutil.CheckErr(err) // prints the error the way kubectl does and exits
	}
	return 0
}

// Link lays out in dir a symbolic link to this executable for each
// component name, the binary assets folder envtest expects, and returns dir.
func Link(dir string) (string, error) {
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
	names := make([]string, 0, len(components))
	for name := range components {
		names = append(names, name)
	}
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
