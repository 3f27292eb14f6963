package main

import (
	"errors"
	"os"
	"os/exec"
	"strings"

	"github.com/spf13/cobra"

	"github.com/crdlab/crdlab/lab/kubeminor"
	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/lab/multicall"
)

func newKubectlCommand(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "kubectl [kubectl arguments]",
		Short: "Run kubectl (compiled in) against the running lab",
		Long: minorText(`Run the real kubectl, compiled into crdlab, with the lab's admin kubeconfig,
so nothing else needs to be installed. Every argument is passed to kubectl
as is; give --kubeconfig yourself to point it elsewhere.

Against a lab on another Kubernetes minor ('crdlab up --kubernetes {OLDEST}'),
it runs that minor's kubectl, from the components executable the lab
runs, so that client and server are of the same minor.`),
		Example: `  crdlab kubectl get namespaces
  crdlab kubectl api-resources
  crdlab kubectl apply -f fixtures/user-admin.yaml`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") && len(args) == 1 {
				return cmd.Help()
			}
			args = takeStateDir(args, g)
			if hasFlag(args, "kubeconfig") {
				return exitCode(multicall.RunKubectl(args))
			}
			sd := g.state()
			st, err := sd.Status()
			if err != nil {
				if errors.Is(err, control.ErrNotRunning) {
					return lang.Errorf("%w; start one with 'crdlab up -d'", err)
				}
				return err
			}
			args = append([]string{"--kubeconfig", sd.Kubeconfig()}, args...)
			minor := kubeminor.Of(st.Kubernetes)
			if minor == "" || minor == kubeminor.BuiltIn {
				return exitCode(multicall.RunKubectl(args))
			}
			comps, err := findComponents(cmd.Context(), g.language(), minor)
			if err != nil {
				if kubeminor.WithinSkew(minor, kubeminor.BuiltIn) {
					return exitCode(multicall.RunKubectl(args)) // one minor apart: kubectl's own skew
				}
				return lang.Errorf("the lab serves Kubernetes %s, more than one minor from crdlab's kubectl (%s): %w",
					st.Kubernetes, multicall.BuildVersions().Kubernetes, err)
			}
			return runComponentsKubectl(comps.Path, args)
		},
	}
}

// runComponentsKubectl runs the kubectl of a components executable (path),
// with args, and returns its exit code.
func runComponentsKubectl(path string, args []string) error {
	c := exec.Command(path, args...)
	c.Args[0] = multicall.Kubectl // dispatched by the name it runs under
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := c.Run()
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		return exitCode(ee.ExitCode())
	}
	if err != nil {
		return lang.Errorf("kubectl of %s: %w", path, err)
	}
	return nil
}

// takeStateDir removes crdlab's --state-dir from args, which cobra passes on
// unparsed, and sets it in g.
func takeStateDir(args []string, g *globalFlags) []string {
	var kept []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if v, ok := strings.CutPrefix(a, "--state-dir="); ok {
			g.stateDir = v
			continue
		}
		if a == "--state-dir" && i+1 < len(args) {
			g.stateDir = args[i+1]
			i++
			continue
		}
		kept = append(kept, a)
	}
	return kept
}

func hasFlag(args []string, name string) bool {
	for _, a := range args {
		if a == "--"+name || strings.HasPrefix(a, "--"+name+"=") {
			return true
		}
	}
	return false
}
