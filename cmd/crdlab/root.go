package main

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/klog/v2"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/crdlab/crdlab/lab/labtest/control"
)

// globalFlags are the flags every command has.
type globalFlags struct {
	stateDir  string
	verbosity int
	lang      langFlag // --lang, on the commands that speak to a learner
}

func (g *globalFlags) state() control.Dir { return control.Dir(g.stateDir) }

// logger returns the diagnostics logger: nothing by default (the timeline
// and errors say what matters), klog at the -v level when given.
func (g *globalFlags) logger() logr.Logger {
	if g.verbosity <= 0 {
		return logr.Discard()
	}
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("v", strconv.Itoa(g.verbosity))
	return klog.Background()
}

// useLoggers returns the diagnostics logger (see logger) after making it
// controller-runtime's root logger, through which envtest and the
// operators log, for a command that runs a lab in this process. Quiet, klog
// is silenced too: the in-process parts built on Kubernetes' libraries
// (the aggregated API server) log through it. (kubectl keeps klog as it
// is: its -v is its own.)
func (g *globalFlags) useLoggers() logr.Logger {
	logger := g.logger()
	ctrllog.SetLogger(logger)
	if g.verbosity <= 0 {
		klog.SetLogger(logr.Discard())
	}
	return logger
}

func defaultStateDir() string {
	if dir := os.Getenv("CRDLAB_STATE_DIR"); dir != "" {
		return dir
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ".crdlab"
	}
	return filepath.Join(home, ".crdlab")
}

func newRootCommand() *cobra.Command {
	cmd, _ := newRoot()
	return cmd
}

// newRoot returns the root command and the flags its commands share.
func newRoot() (*cobra.Command, *globalFlags) {
	// Kubernetes' version flag package registers --version on pflag's global
	// flag set, which cobra adds to every root command; it would print the
	// components' build version, not crdlab's. 'crdlab version' is the way.
	_ = pflag.CommandLine.MarkHidden("version")
	g := &globalFlags{}
	cmd := &cobra.Command{
		Use:   "crdlab",
		Short: "A local Kubernetes control plane for learning and testing CRDs and controllers",
		Long: `crdlab runs a real etcd and a real kube-apiserver on this machine, from this
one binary, with nothing downloaded and no containers, so that you can
learn how CustomResourceDefinitions and the controllers behind them work,
and test your own.

Start with 'crdlab up', then use kubectl against the printed kubeconfig.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	cmd.PersistentFlags().StringVar(&g.stateDir, "state-dir", defaultStateDir(),
		"folder of the lab's kubeconfig, status, pid file and logs (env CRDLAB_STATE_DIR)")
	cmd.PersistentFlags().IntVarP(&g.verbosity, "verbose", "v", 0, "diagnostics verbosity (0: quiet, 1: more)")
	cmd.AddCommand(
		newUpCommand(g),
		newDownCommand(g),
		newStatusCommand(g),
		newKubectlCommand(g),
		newNodeCommand(g),
		newControllerCommand(g),
		newResetCommand(g),
		newScenarioCommand(g),
		newLearnCommand(g),
		newCRDCommand(g),
		newEnvtestCommand(),
		newVersionCommand(g),
	)
	localizeHelp(cmd, g)
	return cmd, g
}
