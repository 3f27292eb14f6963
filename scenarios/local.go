package scenarios

import (
	"context"
	"time"

	"k8s.io/client-go/rest"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/timeline"
)

// InProcess is a lab this process runs, as the runner needs it (lab/full's
// Lab is one): its apiserver and state dir, its components and nodes. The
// runner depends on this interface, not on the packages that run a lab.
type InProcess interface {
	RESTConfig() *rest.Config
	Dir() control.Dir
	Components() []control.Component
	StopComponent(ctx context.Context, name string) error
	StartComponent(ctx context.Context, name string) error
	Nodes() []control.Node
	StopNode(ctx context.Context, name string) error
	StartNode(ctx context.Context, name string) error
}

// Stream is a lab's timeline in this process, as the runner reads it
// (timeline.Stream is one).
type Stream interface {
	Events(ctx context.Context, sink timeline.Sink, ready func()) error
	Timeline(ctx context.Context, sink timeline.Sink, ready func(hold time.Duration)) error
}

// LocalTarget is where scenarios run against a lab of this process and its
// timeline: its apiserver, its components and nodes (seen the same way as
// those of a lab behind a control socket, RemoteLab), its own events and
// timeline, its audit log.
func LocalTarget(l InProcess, tl Stream) Target {
	return Target{Config: l.RESTConfig(), Lab: local{l, tl}, AuditLog: l.Dir().AuditLog()}
}

// local is a lab of this process as a Lab.
type local struct {
	InProcess
	Stream
}

var _ Lab = local{}

func (l local) Components(context.Context) ([]control.Component, error) {
	return l.InProcess.Components(), nil
}

func (l local) Nodes(context.Context) ([]control.Node, error) { return l.InProcess.Nodes(), nil }
