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

func newNodeCommand(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "node",
		Short: "List, stop and start the lab's simulated nodes",
		Long: `List, stop and start the simulated nodes of the running lab.

Stopping a node is what a dead machine looks like to the control plane: its
kubelet stops renewing the node's Lease and stops updating its Pods. After
about 16 seconds the node lifecycle controller marks it NotReady
(node.kubernetes.io/unreachable taint), about 10 seconds later its Pods are
evicted, and their controllers create replacements on the other nodes.
Starting it again makes it Ready, and its kubelet finishes what was left.`,
		Example: `  crdlab node list
  crdlab node stop lab-node-2
  crdlab kubectl get nodes,pods -o wide -w
  crdlab node start lab-node-2`,
	}
	g.addLangFlag(cmd, true)
	cmd.AddCommand(
		&cobra.Command{
			Use:   "list",
			Short: "List the simulated nodes and whether each runs",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				c, err := control.Dial(g.state())
				if err != nil {
					return err
				}
				nodes, err := c.Nodes(cmd.Context())
				if err != nil {
					return err
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 3, ' ', 0)
				l := g.language()
				fmt.Fprintln(tw, l.Msg("NAME\tKUBELET"))
				for _, n := range nodes {
					state := l.Msg("running")
					if !n.Running {
						state = l.Msg("stopped")
					}
					fmt.Fprintf(tw, "%s\t%s\n", n.Name, state)
				}
				return tw.Flush()
			},
		},
		nodeAction(g, "stop", "Stop a simulated node, as if its machine died", (*control.Client).StopNode),
		nodeAction(g, "start", "Start a stopped simulated node again", (*control.Client).StartNode),
	)
	return cmd
}

func nodeAction(g *globalFlags, verb, short string, act func(*control.Client, context.Context, string) error) *cobra.Command {
	return &cobra.Command{
		Use:   verb + " NAME",
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := control.Dial(g.state())
			if err != nil {
				return err
			}
			err = act(c, cmd.Context(), args[0])
			if errors.Is(err, control.ErrUnknownNode) {
				var names []string
				if nodes, lerr := c.Nodes(cmd.Context()); lerr == nil {
					for _, n := range nodes {
						names = append(names, n.Name)
					}
				}
				return lang.Errorf("node %q: this lab has no simulated node of that name; it has: %s", args[0], strings.Join(names, ", "))
			}
			if err != nil {
				return lang.Errorf("node %s: %w", args[0], err)
			}
			l := g.language()
			done := l.Msgf("node %s: kubelet started\n", args[0])
			if verb == "stop" {
				done = l.Msgf("node %s: kubelet stopped\n", args[0])
			}
			fmt.Fprint(cmd.OutOrStdout(), done)
			return nil
		},
	}
}
