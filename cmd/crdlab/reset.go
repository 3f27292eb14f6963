package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/crdlab/crdlab/lab/labtest/control"
)

func newResetCommand(g *globalFlags) *cobra.Command {
	var opts control.ResetOptions
	cmd := &cobra.Command{
		Use:   "reset",
		Short: "Bring the running lab back to its state right after it started",
		Long: `Bring the running lab back to its state right after 'crdlab up' made it
ready, in tens of milliseconds, without restarting anything:

- every namespace and every object created since is gone, at once: removed
  from etcd, not left Terminating, and without running finalizers;
- every object deleted since is back;
- the components and nodes stopped since run again (and stopped nodes are
  Ready and untainted before reset returns);
- the CustomResourceDefinitions installed since stay, so that a test suite
  installs its CRDs once and resets between specs; their custom resources
  go. --remove-crds removes those CRDs too.

Objects that were there at the start keep their current content: nodes'
heartbeats and leases move on. Every watcher (the controllers, your
informers, 'crdlab up's timeline) sees the removed objects as DELETED
events, as if they had been deleted. docs/testing-your-operator.md says
why a reset deletes what was created since a baseline rather than
restoring an etcd snapshot.`,
		Example: `  crdlab reset
  crdlab reset --remove-crds`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := control.Dial(g.state())
			if err != nil {
				return err
			}
			started := time.Now()
			if err := c.Reset(cmd.Context(), opts); err != nil {
				return err
			}
			fmt.Fprint(cmd.OutOrStdout(), g.language().Msgf("lab reset in %dms\n", time.Since(started).Milliseconds()))
			return nil
		},
	}
	g.addLangFlag(cmd, false)
	cmd.Flags().BoolVar(&opts.RemoveCRDs, "remove-crds", false, "also remove the CustomResourceDefinitions installed since the lab started")
	return cmd
}
