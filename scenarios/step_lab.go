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
	default:
		return r.opts.Lang.Msgf("node %s started", l.StartNode), lb.StartNode(ctx, l.StartNode)
	}
}
