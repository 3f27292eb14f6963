package kubecmd

import (
	"os"
	_ "time/tzdata" // CronJob time zones without a system tz database

	_ "github.com/crdlab/crdlab/lab/internal/i18n" // first: keeps kubectl from loading translations in every process
	"github.com/crdlab/crdlab/lab/internal/kubemain"

	"k8s.io/component-base/cli"
	kubecontrollermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	kubescheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"

	_ "k8s.io/component-base/logs/json/register"          // JSON log format, as the real binaries have it
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go metrics, as the real binaries have them
	_ "k8s.io/component-base/metrics/prometheus/version"  // version metric, as the real binaries have it
)

// Components maps each component name of a Kubernetes minor to the
// function that runs it and returns its exit code: kube-apiserver (with
// prepare, the minor's hooks), kube-controller-manager, kube-scheduler and
// kubectl, as the module that links this package pins them. etcd is not
// one: crdlab's own serves every minor.
func Components(prepare ...Prepare) map[string]func(args []string) int {
	return map[string]func(args []string) int{
		kubemain.KubeAPIServer: func([]string) int { return cli.Run(newAPIServerCommand(prepare)) },
		kubemain.KubeControllerManager: func([]string) int {
			return cli.Run(kubecontrollermanager.NewControllerManagerCommand())
		},
		kubemain.KubeScheduler: func([]string) int { return cli.Run(kubescheduler.NewSchedulerCommand()) },
		kubemain.Kubectl:       func(args []string) int { return kubemain.RunKubectl(args[1:]) },
	}
}

// Run runs the component named by the name this program was executed
// under and exits (kubemain.Run); it returns when the name is none of
// them. A components executable calls it from its init.
func Run(prepare ...Prepare) {
	kubemain.Run(Components(prepare...))
}

// Main is a components executable's main, under its own name: with the
// argument version it prints its versions as JSON (kubemain.ExecutableMain).
// It returns the exit code.
func Main(prepare ...Prepare) int {
	return kubemain.ExecutableMain(os.Stdout, os.Stderr, os.Args, Components(prepare...))
}
