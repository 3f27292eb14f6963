package full

import (
	"context"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/timeline"
	"github.com/crdlab/crdlab/scenarios"
)

// Target is where scenarios run against this lab in this process: its
// apiserver, its components and nodes, its own events, its audit log.
func (l *Lab) Target() scenarios.Target {
	return scenarios.Target{Config: l.RESTConfig(), Lab: actions{l}, AuditLog: l.Dir().AuditLog()}
}

// actions is a lab of this process as the scenario runner sees a lab, the
// same way as one behind a control socket (scenarios.RemoteLab).
type actions struct{ l *Lab }

var _ scenarios.Lab = actions{}

func (a actions) Components(context.Context) ([]control.Component, error) {
	return a.l.Components(), nil
}

func (a actions) StopComponent(ctx context.Context, name string) error {
	return a.l.StopComponent(ctx, name)
}

func (a actions) StartComponent(ctx context.Context, name string) error {
	return a.l.StartComponent(ctx, name)
}

func (a actions) Nodes(context.Context) ([]control.Node, error) { return a.l.Nodes(), nil }

func (a actions) StopNode(ctx context.Context, name string) error { return a.l.StopNode(ctx, name) }

func (a actions) StartNode(ctx context.Context, name string) error {
	return a.l.StartNode(ctx, name)
}

func (a actions) Events(ctx context.Context, sink timeline.Sink, ready func()) error {
	return a.l.Events(ctx, sink, ready)
}

func (a actions) Timeline(ctx context.Context, sink timeline.Sink, ready func()) error {
	return a.l.Timeline(ctx, sink, ready)
}
