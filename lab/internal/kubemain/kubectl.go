package kubemain

import (
	"os"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/component-base/cli"
	kubectlcmd "k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/plugin"
	kubectlutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/crdlab/crdlab/lab/internal/kubeversion"
)

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
