package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/crdlab/crdlab/lab"
	"github.com/crdlab/crdlab/lab/aggregated"
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
it watches and reconciles it, however long it was away.

The aggregated API server's routes (APIServices) are the lab's: started,
stopped before or not, it registers them again, over a route of yours of
the same name, and says whose it was and what it held.`,
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
			start := time.Now()
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
			if verb == "start" && args[0] == lab.AggregatedAPI {
				return routesTakenBack(cmd.Context(), cmd.OutOrStdout(), g, start)
			}
			return nil
		},
	}
	g.addLangFlag(cmd, false)
	return cmd
}

// routesTakenBack says which of the lab's routes its aggregated API server
// took back from another writer when it started, at start or later (its
// RouteTakenBack Events): a learner's own route for lab.crdlab.dev is gone,
// and the learner reads whose it was and what it held.
func routesTakenBack(ctx context.Context, out io.Writer, g *globalFlags, start time.Time) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", g.state().Kubeconfig())
	if err != nil {
		return lang.Errorf("the lab's kubeconfig: %w", err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return lang.Errorf("the lab's kubeconfig: %w", err)
	}
	events, err := cs.CoreV1().Events(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("reason", aggregated.ReasonRouteTakenBack).String()})
	if err != nil {
		return lang.Errorf("the events %s: %w", aggregated.ReasonRouteTakenBack, err)
	}
	since := start.Truncate(time.Second) // an Event's time has whole seconds
	for _, ev := range events.Items {
		if !ev.LastTimestamp.Time.Before(since) {
			fmt.Fprint(out, g.language().Msgf("  APIService %s: %s\n", ev.InvolvedObject.Name, ev.Message))
		}
	}
	return nil
}
