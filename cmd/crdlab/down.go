package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
)

func newDownCommand(g *globalFlags) *cobra.Command {
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "down",
		Short: "Stop the lab running on the state dir",
		Long: `Stop the lab running on the state dir (started with 'crdlab up' or
'crdlab up -d'): kube-apiserver, then etcd, then the lab itself. Returns once
every process of the lab has exited. etcd's data is kept only if the lab
was started with --data-dir.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := stopLab(cmd.Context(), g.state(), timeout)
			if err != nil {
				return err
			}
			fmt.Fprint(cmd.OutOrStdout(), g.language().Msgf("lab stopped (pid %d, %s)\n", st.PID, st.Endpoint))
			return nil
		},
	}
	g.addLangFlag(cmd, false)
	cmd.Flags().DurationVar(&timeout, "timeout", stopTimeout, "how long to wait before killing the lab")
	return cmd
}
