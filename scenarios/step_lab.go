package scenarios

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// labOp stops or starts a component (the scenario format calls them
// controllers) or a simulated node of the lab. What it stops is started
// again when the scenario ends. Against a cluster that is not a lab it is
// skipped, with the steps after it.
type labOp struct{ *LabAction }

func (l labOp) run(ctx context.Context, r *runner, _ time.Duration) (string, error) {
	lb := r.target.Lab
	if lb == nil {
		return r.opts.Lang.Msg("a lab action, and this cluster is not a crdlab lab"), errSkip
	}
	switch {
	case l.StopController != "":
		name := l.StopController
		if err := lb.StopComponent(ctx, name); err != nil {
			return "", err
		}
		r.undo(func(ctx context.Context) error { return lb.StartComponent(ctx, name) })
		return r.opts.Lang.Msgf("%s stopped", name), nil
	case l.StartController != "":
		return r.opts.Lang.Msgf("%s started", l.StartController), lb.StartComponent(ctx, l.StartController)
	case l.StopNode != "":
		name := l.StopNode
		r.watchNodes()
		if err := lb.StopNode(ctx, name); err != nil {
			return "", err
		}
		r.undo(func(ctx context.Context) error { return lb.StartNode(ctx, name) })
		return r.opts.Lang.Msgf("node %s stopped", name), nil
	case l.StopNodes != "":
		return nodesOp{selector: l.StopNodes, stop: true}.run(ctx, r, 0)
	case l.StartNodes != "":
		return nodesOp{selector: l.StartNodes}.run(ctx, r, 0)
	default:
		return r.opts.Lang.Msgf("node %s started", l.StartNode), lb.StartNode(ctx, l.StartNode)
	}
}

// nodesOp stops or starts every simulated node whose labels match a
// selector: a zone's power failing, and coming back.
type nodesOp struct {
	selector string
	stop     bool
}

func (o nodesOp) run(ctx context.Context, r *runner, _ time.Duration) (string, error) {
	lb := r.target.Lab
	if lb == nil {
		return r.opts.Lang.Msg("a lab action, and this cluster is not a crdlab lab"), errSkip
	}
	nodes, err := r.simulatedNodes(ctx, o.selector)
	if err != nil {
		return "", err
	}
	if len(nodes) == 0 {
		return "", fmt.Errorf(r.opts.Lang.Msg("no simulated node has the labels %s"), o.selector)
	}
	var names []string
	for _, n := range nodes {
		names = append(names, n.GetName())
	}
	r.watchNodes()
	if !o.stop {
		return r.opts.Lang.Msgf("%d nodes started (%s)", len(names), o.selector), eachNode(ctx, names, lb.StartNode)
	}
	if err := eachNode(ctx, names, lb.StopNode); err != nil {
		return "", err
	}
	r.undo(func(ctx context.Context) error { return eachNode(ctx, names, lb.StartNode) })
	return r.opts.Lang.Msgf("%d nodes stopped (%s)", len(names), o.selector), nil
}

// eachNode calls act for each node, a few at a time: each is a request to
// the lab's control socket.
func eachNode(ctx context.Context, names []string, act func(context.Context, string) error) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(16)
	for _, name := range names {
		g.Go(func() error { return act(gctx, name) })
	}
	return g.Wait()
}

// simulatedNodes returns the lab's simulated nodes whose labels match
// selector (every one, with "").
func (r *runner) simulatedNodes(ctx context.Context, selector string) ([]unstructured.Unstructured, error) {
	running, err := r.target.Lab.Nodes(ctx)
	if err != nil {
		return nil, err
	}
	list, err := r.dyn.Resource(corev1.SchemeGroupVersion.WithResource("nodes")).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, err
	}
	simulated := map[string]bool{}
	for _, n := range running {
		simulated[n.Name] = true
	}
	var out []unstructured.Unstructured
	for _, n := range list.Items {
		if simulated[n.GetName()] {
			out = append(out, n)
		}
	}
	return out, nil
}

// labTooSmall says why the lab cannot run the scenario when it has fewer
// simulated nodes or zones than spec.lab asks for; "" when it can.
func (r *runner) labTooSmall(ctx context.Context) string {
	need := r.s.Spec.Lab
	if need == nil || r.target.Lab == nil {
		return ""
	}
	nodes, err := r.simulatedNodes(ctx, "")
	if err != nil {
		return r.opts.Lang.Msgf("unable to ask the lab what it runs: %v", err)
	}
	zones := map[string]bool{}
	for _, n := range nodes {
		if z := n.GetLabels()[corev1.LabelTopologyZone]; z != "" {
			zones[z] = true
		}
	}
	if len(nodes) >= need.Nodes && len(zones) >= need.Zones {
		return ""
	}
	return r.opts.Lang.Msgf("this lab has %d simulated nodes in %d zones, and the scenario needs %d in %d (spec.lab): run it with no lab running (crdlab down; crdlab scenario run %s starts one), or start one with crdlab up -d --nodes %d --zones %d",
		len(nodes), len(zones), need.Nodes, need.Zones, r.s.Metadata.Name, need.Nodes, need.Zones)
}
