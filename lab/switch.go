package lab

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/crdlab/crdlab/lab/kubelet"
	"github.com/crdlab/crdlab/lab/labtest/control"
)

// A lab's components can be stopped and started by name, the names
// 'crdlab up --components' takes: with the controller-manager stopped,
// nothing replaces a deleted Pod; with the scheduler stopped, new Pods stay
// Pending; with the nodes stopped, every machine is dead; with the
// aggregated API server stopped, its APIServices turn unavailable. The
// operators attached with AttachOperators are components too.

// Component is a component of the lab and whether it runs.
type Component = control.Component

// Node is a simulated node and whether its kubelet runs.
type Node = control.Node

// Operators are controllers that run outside the lab's own components (the
// sample operators, controllers.Operators), stopped and started by name.
type Operators interface {
	Names() []string
	Running(name string) bool
	Stop(name string) error
	Start(name string) error
}

// AttachOperators makes the operators components of the lab: listed by
// Components, stopped and started by StopComponent and StartComponent.
func (l *Lab) AttachOperators(ops Operators) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.operators = ops
}

func (l *Lab) attached() Operators {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.operators
}

// Components lists the components the lab runs, in the order of
// AllComponents, then the attached operators, each with whether it runs.
// The nodes component runs when any of its nodes does.
func (l *Lab) Components() []Component {
	var out []Component
	for _, name := range AllComponents {
		if !l.opts.runs(name) {
			continue
		}
		var running bool
		switch name {
		case ControllerManager, Scheduler:
			running = l.children[name] != nil && l.children[name].Running()
		case Nodes:
			for _, n := range l.Nodes() {
				running = running || n.Running
			}
		case AggregatedAPI:
			running = l.aggregatedRunning()
		}
		out = append(out, Component{Name: name, Running: running})
	}
	if ops := l.attached(); ops != nil {
		for _, name := range ops.Names() {
			out = append(out, Component{Name: name, Running: ops.Running(name)})
		}
	}
	return out
}

// StopComponent stops a component until StartComponent. Stopping a stopped
// component does nothing.
func (l *Lab) StopComponent(ctx context.Context, name string) error {
	if err := l.known(name); err != nil {
		return err
	}
	switch name {
	case ControllerManager, Scheduler:
		return l.children[name].Stop(10 * time.Second)
	case Nodes:
		for _, n := range l.Nodes() {
			if err := l.StopNode(ctx, n.Name); err != nil {
				return err
			}
		}
		return nil
	case AggregatedAPI:
		l.stopAggregated(false)
		return nil
	}
	return l.attached().Stop(name)
}

// StartComponent starts a component StopComponent stopped, and returns once
// it serves (a controller-manager or scheduler healthy, an operator's caches
// synced). Starting a running component does nothing.
func (l *Lab) StartComponent(ctx context.Context, name string) error {
	if err := l.known(name); err != nil {
		return err
	}
	switch name {
	case ControllerManager, Scheduler:
		return l.children[name].Resume(ctx, l.opts.StartTimeout)
	case Nodes:
		for _, n := range l.Nodes() {
			if err := l.StartNode(ctx, n.Name); err != nil {
				return err
			}
		}
		return nil
	case AggregatedAPI:
		if l.aggregatedRunning() {
			return nil
		}
		return l.startAggregated(ctx)
	}
	return l.attached().Start(name)
}

// known fails with ErrUnknownComponent, naming the lab's components, when
// the lab has no component name.
func (l *Lab) known(name string) error {
	var names []string
	for _, c := range l.Components() {
		if c.Name == name {
			return nil
		}
		names = append(names, c.Name)
	}
	hint := ""
	if slices.Contains(AllComponents, name) {
		hint = " (not started: see Options.Components)"
	}
	return fmt.Errorf("%w: %q%s; this lab has: %s", ErrUnknownComponent, name, hint, strings.Join(names, ", "))
}

// Nodes lists the simulated nodes (none when the lab runs without them),
// each with whether its kubelet runs.
func (l *Lab) Nodes() []Node {
	if l.kubelet == nil {
		return nil
	}
	var out []Node
	for _, name := range l.kubelet.NodeNames() {
		running, _ := l.kubelet.Running(name)
		out = append(out, Node{Name: name, Running: running})
	}
	return out
}

// StopNode stops a simulated node as if its machine died: its heartbeats
// stop, so the node lifecycle controller marks it NotReady and its Pods are
// evicted and replaced elsewhere.
func (l *Lab) StopNode(_ context.Context, name string) error {
	if l.kubelet == nil {
		return fmt.Errorf("%w: %q: this lab runs no simulated nodes", ErrUnknownNode, name)
	}
	return l.nodeError(name, l.kubelet.StopNode(name))
}

// StartNode starts a stopped simulated node again. Starting a running node
// does nothing.
func (l *Lab) StartNode(ctx context.Context, name string) error {
	if l.kubelet == nil {
		return fmt.Errorf("%w: %q: this lab runs no simulated nodes", ErrUnknownNode, name)
	}
	return l.nodeError(name, l.kubelet.StartNode(ctx, name))
}

// nodeError makes the kubelet's unknown-node error an ErrUnknownNode that
// names the lab's nodes.
func (l *Lab) nodeError(name string, err error) error {
	if errors.Is(err, kubelet.ErrUnknownNode) {
		return fmt.Errorf("%w: %q; this lab has: %s", ErrUnknownNode, name, strings.Join(l.kubelet.NodeNames(), ", "))
	}
	return err
}
