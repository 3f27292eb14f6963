// Command crdlab-k8s-1.35 runs crdlab's Kubernetes 1.35 components:
// executed under the name kube-apiserver, kube-controller-manager,
// kube-scheduler or kubectl (a link to it in an assets folder), it runs that
// component, with crdlab's patches (lab/internal/kubemain); under its own
// name with the argument version, it prints its versions as JSON. It holds
// no etcd: crdlab's own serves every minor.
package main

import (
	"os"
	_ "time/tzdata" // CronJob time zones without a system tz database

	_ "github.com/crdlab/crdlab/lab/components/1.35/fasthelp" // first: answers envtest's --help look-ups at once
	_ "github.com/crdlab/crdlab/lab/internal/i18n"            // first: keeps kubectl from loading translations in every process
	"github.com/crdlab/crdlab/lab/internal/kubemain"

	"k8s.io/component-base/cli"
	kubecontrollermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	kubescheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"

	_ "k8s.io/component-base/logs/json/register"          // JSON log format, as the real binaries have it
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go metrics, as the real binaries have them
	_ "k8s.io/component-base/metrics/prometheus/version"  // version metric, as the real binaries have it
)

// components maps a component name to the function that runs it and
// returns its exit code: Kubernetes 1.35's.
var components = map[string]func(args []string) int{
	kubemain.KubeAPIServer: func([]string) int { return cli.Run(newAPIServerCommand()) },
	kubemain.KubeControllerManager: func([]string) int {
		return cli.Run(kubecontrollermanager.NewControllerManagerCommand())
	},
	kubemain.KubeScheduler: func([]string) int { return cli.Run(kubescheduler.NewSchedulerCommand()) },
	kubemain.Kubectl:       func(args []string) int { return kubemain.RunKubectl(args[1:]) },
}

func init() {
	kubemain.Run(components)
}

func main() {
	os.Exit(kubemain.ExecutableMain(os.Stdout, os.Stderr, os.Args, components))
}
