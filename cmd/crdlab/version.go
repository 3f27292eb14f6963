package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/crdlab/crdlab/lab/multicall"
)

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the versions of crdlab and of the components built into it",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := multicall.BuildVersions()
			fmt.Fprintf(cmd.OutOrStdout(), "crdlab:             %s\nkubernetes:         %s\netcd:               %s\ncontroller-runtime: %s\ngo:                 %s\n",
				v.Crdlab, v.Kubernetes, v.Etcd, v.ControllerRuntime, v.Go)
			return nil
		},
	}
}
