package scenarios

import (
	"context"
	"time"
)

// labOp stops or starts a component (the scenario format calls them
// controllers) or a simulated node of the lab. What it stops is started
// again when the scenario ends. Against a cluster that is not a lab it is
// skipped, with the steps after it.
type labOp struct{ *LabAction }

func (l labOp) run(ctx context.Context, r *runner, _ time.Duration) (string, error) {
	lb := r.target.Lab
	if lb == nil {
		return "a lab action, and this cluster is not a crdlab lab", errSkip
	}
	switch {
	case l.StopController != "":
		name := l.StopController
		if err := lb.StopComponent(ctx, name); err != nil {
			return "", err
		}
		r.undo(func(ctx context.Context) error { return lb.StartComponent(ctx, name) })
		return name + " stopped", nil
	case l.StartController != "":
		return l.StartController + " started", lb.StartComponent(ctx, l.StartController)
	case l.StopNode != "":
		name := l.StopNode
		r.watchNodes()
		if err := lb.StopNode(ctx, name); err != nil {
			return "", err
		}
		r.undo(func(ctx context.Context) error { return lb.StartNode(ctx, name) })
		return "node " + name + " stopped", nil
	default:
		return "node " + l.StartNode + " started", lb.StartNode(ctx, l.StartNode)
	}
}
