package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/multicall"
)

func newKubectlCommand(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "kubectl [kubectl arguments]",
		Short: "Run kubectl (compiled in) against the running lab",
		Long: `Run the real kubectl, compiled into crdlab, with the lab's admin kubeconfig,
so nothing else needs to be installed. Every argument is passed to kubectl
as is; give --kubeconfig yourself to point it elsewhere.`,
		Example: `  crdlab kubectl get namespaces
  crdlab kubectl api-resources
  crdlab kubectl apply -f fixtures/user-admin.yaml`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") && len(args) == 1 {
				return cmd.Help()
			}
			args = takeStateDir(args, g)
			if !hasFlag(args, "kubeconfig") {
				sd := g.state()
				if _, err := sd.Status(); err != nil {
					if errors.Is(err, control.ErrNotRunning) {
						return fmt.Errorf("%w; start one with 'crdlab up -d'", err)
					}
					return err
				}
				args = append([]string{"--kubeconfig", sd.Kubeconfig()}, args...)
			}
			return exitCode(multicall.RunKubectl(args))
		},
	}
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
