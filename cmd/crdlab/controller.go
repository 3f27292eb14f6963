package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/lang"
)

func newControllerCommand(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "controller",
		Short: "List, stop and start the lab's controllers",
		Long: `List, stop and start the controllers of the running lab (its components):
kube-controller-manager, the scheduler, the aggregated API server, the
sample operators running inside crdlab (webapp-operator, redis-operator,
redis-backup-operator) and the WebApp's webhook server (webapp-webhooks).

A stopped controller's objects stay as they are: a custom resource with no
controller is only data in etcd. Started again, the controller lists what
it watches and reconciles it, however long it was away.`,
		Example: `  crdlab controller list
  crdlab controller stop webapp-operator
  kubectl apply -f fixtures/samples/webapp-shop.yaml   # stored, and nothing more
  crdlab controller start webapp-operator              # its Deployment and Service appear`,
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the lab's controllers and whether each runs",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := control.Dial(g.state())
			if err != nil {
				return err
			}
			comps, err := c.Components(cmd.Context())
			if err != nil {
				return err
			}
			l := g.language()
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 3, ' ', 0)
			fmt.Fprintln(tw, l.Msg("NAME\tSTATE"))
			for _, comp := range comps {
				state := l.Msg("running")
				if !comp.Running {
					state = l.Msg("stopped")
				}
				fmt.Fprintf(tw, "%s\t%s\n", comp.Name, state)
			}
			return tw.Flush()
		},
	}
	g.addLangFlag(list, false)
	cmd.AddCommand(
		list,
		controllerAction(g, "stop", "Stop a controller of the lab", "controller %s: stopped\n", (*control.Client).StopComponent),
		controllerAction(g, "start", "Start a stopped controller again", "controller %s: started\n", (*control.Client).StartComponent),
	)
	return cmd
}

// controllerAction is 'crdlab controller stop|start': done says so, in
// the command's language.
func controllerAction(g *globalFlags, verb, short, done string, act func(*control.Client, context.Context, string) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   verb + " NAME",
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := control.Dial(g.state())
			if err != nil {
				return err
			}
			err = act(c, cmd.Context(), args[0])
			if errors.Is(err, control.ErrUnknownComponent) {
				var names []string
				if comps, lerr := c.Components(cmd.Context()); lerr == nil {
					for _, comp := range comps {
						names = append(names, comp.Name)
					}
				}
				return lang.Errorf("controller %q: this lab has no controller of that name; it has: %s", args[0], strings.Join(names, ", "))
			}
			if err != nil {
				return lang.Errorf("controller %s: %w", args[0], err)
			}
			fmt.Fprint(cmd.OutOrStdout(), g.language().Msgf(done, args[0]))
			return nil
		},
	}
	g.addLangFlag(cmd, false)
	return cmd
}
