package trace

import (
	"context"
	"errors"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crdlab/crdlab/lab/labtest/control"
)

// reconciler runs each pass of inner and reports it: its object, what woke
// it, what it wrote, how it ended and how long it took.
type reconciler struct {
	inner      reconcile.Reconciler
	controller string // its lane
	kind       string // the kind it reconciles
	triggers   *triggers
	report     func(control.Pass)
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	w := &writes{}
	r.triggers.start(req)
	start := time.Now()
	res, err := r.inner.Reconcile(context.WithValue(ctx, passKey{}, w), req)
	took := time.Since(start).Round(100 * time.Microsecond)
	p := control.Pass{
		Controller: r.controller, Kind: r.kind, Namespace: req.Namespace, Name: req.Name,
		Start: start, Duration: took, Triggers: r.triggers.take(req), Writes: w.take(),
	}
	switch {
	case err != nil:
		p.Error = err.Error()
		p.Terminal = errors.Is(err, reconcile.TerminalError(nil))
	case res.RequeueAfter > 0:
		p.RequeueAfter = res.RequeueAfter
	default:
		p.Requeue = res.Requeue //nolint:staticcheck // SA1019: a reconciler may still ask for it; the line says so.
	}
	r.report(p)
	return res, err
}
