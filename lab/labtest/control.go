package labtest

import (
	"context"
	"fmt"
	"os"

	"github.com/crdlab/crdlab/lab/labtest/control"
)

// The control socket of a lab (its state dir's control.sock): the protocol
// 'crdlab node', 'crdlab reset' and the scenario runner speak too, defined
// once in package control, which needs nothing of crdlab's main module.

// Node is a simulated node of the lab and whether its kubelet runs.
type Node = control.Node

// Component is a component of the lab (controller-manager, scheduler,
// nodes, aggregated-api, an operator) and whether it runs.
type Component = control.Component

// ResetOptions say what Reset keeps or removes. RemoveCRDs also removes
// the CustomResourceDefinitions installed since the lab started, the
// suite's own included (Start installed them).
type ResetOptions = control.ResetOptions

// dialState checks that a lab runs on dir and returns a client of its
// control socket.
func dialState(dir string) (*control.Client, error) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%w: state dir %s does not exist; start a lab with 'crdlab up -d --state-dir %s'", ErrNotRunning, dir, dir)
	}
	c, err := control.Dial(control.Dir(dir))
	if err != nil {
		return nil, fmt.Errorf("%w; start one with 'crdlab up -d --state-dir %s'", err, dir)
	}
	return c, nil
}

// lab returns the control client, or ErrNotALab.
func (e *Environment) lab() (*control.Client, error) {
	if e.ctl == nil {
		if e.existing {
			return nil, fmt.Errorf("%w: UseExistingCluster runs on %s, which has no simulated nodes, components to stop or reset", ErrNotALab, e.Config.Host)
		}
		return nil, fmt.Errorf("%w: the environment is not started", ErrNotRunning)
	}
	return e.ctl, nil
}

// Nodes lists the lab's simulated nodes and whether each runs.
func (e *Environment) Nodes(ctx context.Context) ([]Node, error) {
	c, err := e.lab()
	if err != nil {
		return nil, err
	}
	return c.Nodes(ctx)
}

// StopNode stops a simulated node as if its machine died: its heartbeats
// stop, the node lifecycle controller marks it NotReady and its Pods are
// evicted and replaced elsewhere (about 30s).
func (e *Environment) StopNode(ctx context.Context, name string) error {
	c, err := e.lab()
	if err != nil {
		return err
	}
	return c.StopNode(ctx, name)
}

// StartNode starts a stopped simulated node again.
func (e *Environment) StartNode(ctx context.Context, name string) error {
	c, err := e.lab()
	if err != nil {
		return err
	}
	return c.StartNode(ctx, name)
}

// Components lists the lab's components and whether each runs.
func (e *Environment) Components(ctx context.Context) ([]Component, error) {
	c, err := e.lab()
	if err != nil {
		return nil, err
	}
	return c.Components(ctx)
}

// StopComponent stops a component of the lab (controller-manager,
// scheduler, nodes, aggregated-api) until StartComponent or Reset.
func (e *Environment) StopComponent(ctx context.Context, name string) error {
	c, err := e.lab()
	if err != nil {
		return err
	}
	return c.StopComponent(ctx, name)
}

// StartComponent starts a stopped component and returns once it serves.
func (e *Environment) StartComponent(ctx context.Context, name string) error {
	c, err := e.lab()
	if err != nil {
		return err
	}
	return c.StartComponent(ctx, name)
}

// Reset brings the lab back to its state right after it started, in tens
// of milliseconds: every namespace and object created since is gone (not
// Terminating), every object deleted since is back, stopped nodes and
// components run again, and the CRDs Start installed stay (unless
// opts.RemoveCRDs). See 'crdlab reset --help'.
func (e *Environment) Reset(ctx context.Context, opts ResetOptions) error {
	c, err := e.lab()
	if err != nil {
		return err
	}
	return c.Reset(ctx, opts)
}
