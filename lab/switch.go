package lab

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/crdlab/crdlab/lab/kubelet"
	"github.com/crdlab/crdlab/lab/labtest/control"
)

// A lab's components can be stopped and started by name, the names
// 'crdlab up --components' takes: with the controller-manager stopped,
// nothing replaces a deleted Pod; with the scheduler stopped, new Pods stay
// Pending; with the nodes stopped, every machine is dead; with the
// aggregated API server stopped, its APIServices turn unavailable. The
// operators Options.Alongside returns are components too. They sit in the
// lab's registry (registry.go).

// Operators are controllers that run outside the lab's own components (the
// sample operators, controllers.Operators), stopped and started by name.
// Options.Alongside returns them to make them components of the lab.
type Operators interface {
	Names() []string
	Running(name string) bool
	Stop(name string) error
	Start(name string) error
}

// Components lists the components the lab runs, in the order of
// ComponentNames, then the operators, each with whether it runs. The nodes
// component runs when any of its nodes does.
func (l *Lab) Components() []control.Component {
	var out []control.Component
	for _, c := range l.components.list() {
		out = append(out, control.Component{Name: c.Name(), Running: c.Running()})
	}
	return out
}

// StopComponent stops a component until StartComponent. Stopping a stopped
// component does nothing.
func (l *Lab) StopComponent(ctx context.Context, name string) error {
	c, err := l.components.lookup(name)
	if err != nil {
		return err
	}
	return c.Stop(ctx)
}

// StartComponent starts a component StopComponent stopped, and returns once
// it serves (a controller-manager or scheduler healthy, an operator's caches
// synced). Starting a running component does nothing.
func (l *Lab) StartComponent(ctx context.Context, name string) error {
	c, err := l.components.lookup(name)
	if err != nil {
		return err
	}
	return c.Start(ctx)
}

// Nodes lists the simulated nodes (none when the lab runs without them),
// each with whether its kubelet runs.
func (l *Lab) Nodes() []control.Node {
	k := l.components.kubelet()
	if k == nil {
		return nil
	}
	var out []control.Node
	for _, name := range k.NodeNames() {
		running, _ := k.Running(name)
		out = append(out, control.Node{Name: name, Running: running})
	}
	return out
}

// StopNode stops a simulated node as if its machine died: its heartbeats
// stop, so the node lifecycle controller marks it NotReady and its Pods are
// evicted and replaced elsewhere.
func (l *Lab) StopNode(_ context.Context, name string) error {
	k := l.components.kubelet()
	if k == nil {
		return fmt.Errorf("%w: %q: this lab runs no simulated nodes", ErrUnknownNode, name)
	}
	return nodeError(k, name, k.StopNode(name))
}

// StartNode starts a stopped simulated node again. Starting a running node
// does nothing.
func (l *Lab) StartNode(ctx context.Context, name string) error {
	k := l.components.kubelet()
	if k == nil {
		return fmt.Errorf("%w: %q: this lab runs no simulated nodes", ErrUnknownNode, name)
	}
	return nodeError(k, name, k.StartNode(ctx, name))
}

// kubelet returns the simulated kubelet of the nodes component, nil when
// the lab runs none (or it has not started).
func (r *registry) kubelet() *kubelet.Kubelet {
	for _, c := range r.list() {
		if n, ok := c.(*nodes); ok {
			return n.running()
		}
	}
	return nil
}

// nodeError makes the kubelet's unknown-node error an ErrUnknownNode that
// names the lab's nodes.
func nodeError(k *kubelet.Kubelet, name string, err error) error {
	if errors.Is(err, kubelet.ErrUnknownNode) {
		return fmt.Errorf("%w: %q; this lab has: %s", ErrUnknownNode, name, strings.Join(k.NodeNames(), ", "))
	}
	return err
}
