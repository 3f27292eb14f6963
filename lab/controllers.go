package lab

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// componentChild maps a component's name (controller-manager, scheduler)
// to the supervised child that runs it.
func (l *Lab) componentChild(name string) (*child, error) {
	switch name {
	case ControllerManager:
		return l.component(KubeControllerManager)
	case Scheduler:
		return l.component(KubeScheduler)
	}
	return nil, fmt.Errorf("%w: %q (components that can stop: %s, %s)", ErrUnknownComponent, name, ControllerManager, Scheduler)
}

// StopComponent stops the controller-manager or the scheduler until
// StartComponent: with the controller-manager stopped, nothing replaces a
// deleted Pod; with the scheduler stopped, new Pods stay Pending.
func (l *Lab) StopComponent(name string) error {
	c, err := l.componentChild(name)
	if err != nil {
		return err
	}
	return c.stop(10 * time.Second)
}

// StartComponent starts a component StopComponent stopped, and returns once
// it is healthy. Starting a running component does nothing.
func (l *Lab) StartComponent(ctx context.Context, name string) error {
	c, err := l.componentChild(name)
	if err != nil {
		return err
	}
	c.mu.Lock()
	stopped := c.stopping
	c.stopping = false
	c.mu.Unlock()
	if !stopped {
		return nil
	}
	return c.start(ctx, l.opts.StartTimeout)
}

// ComponentRunning reports whether the controller-manager or the scheduler
// runs (is not stopped by StopComponent).
func (l *Lab) ComponentRunning(name string) (bool, error) {
	c, err := l.componentChild(name)
	if err != nil {
		return false, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.stopping, nil
}

// Switch stops and starts controllers that run outside the lab's own
// components, by name: the sample operators (controllers.Operators).
type Switch interface {
	Stop(name string) error
	Start(name string) error
	Running(name string) bool
	Names() []string
}

// AttachOperators lets StopController and StartController reach in-process
// operators, and the control socket list them.
func (l *Lab) AttachOperators(s Switch) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.operators = s
}

// ControllerState is a controller and whether it runs.
type ControllerState struct {
	Name    string `json:"name"`
	Running bool   `json:"running"`
}

// Controllers lists the controllers StopController can stop: the
// controller-manager and scheduler when the lab runs them, and the attached
// operators.
func (l *Lab) Controllers() []ControllerState {
	var out []ControllerState
	for _, name := range []string{ControllerManager, Scheduler} {
		if running, err := l.ComponentRunning(name); err == nil {
			out = append(out, ControllerState{Name: name, Running: running})
		}
	}
	if l.opts.runs(AggregatedAPI) {
		out = append(out, ControllerState{Name: AggregatedAPI, Running: l.AggregatedRunning()})
	}
	if ops := l.attached(); ops != nil {
		for _, name := range ops.Names() {
			out = append(out, ControllerState{Name: name, Running: ops.Running(name)})
		}
	}
	return out
}

func (l *Lab) attached() Switch {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.operators
}

// StopController stops a controller by name: controller-manager, scheduler,
// aggregated-api (the aggregated API server: its APIServices turn
// unavailable, requests for their groups fail with 503), or an attached
// operator.
func (l *Lab) StopController(name string) error {
	if name == ControllerManager || name == Scheduler {
		return l.StopComponent(name)
	}
	if name == AggregatedAPI && l.opts.runs(AggregatedAPI) {
		l.stopAggregated(false)
		return nil
	}
	if ops := l.attached(); ops != nil && slices.Contains(ops.Names(), name) {
		return ops.Stop(name)
	}
	return l.unknownController(name)
}

// StartController starts a controller StopController stopped.
func (l *Lab) StartController(ctx context.Context, name string) error {
	if name == ControllerManager || name == Scheduler {
		return l.StartComponent(ctx, name)
	}
	if name == AggregatedAPI && l.opts.runs(AggregatedAPI) {
		if l.AggregatedRunning() {
			return nil
		}
		return l.startAggregated(ctx)
	}
	if ops := l.attached(); ops != nil && slices.Contains(ops.Names(), name) {
		return ops.Start(name)
	}
	return l.unknownController(name)
}

func (l *Lab) unknownController(name string) error {
	var names []string
	for _, c := range l.Controllers() {
		names = append(names, c.Name)
	}
	return fmt.Errorf("%w: %q (this lab has: %s)", ErrUnknownController, name, strings.Join(names, ", "))
}

// ErrUnknownController: the lab has no controller of that name.
var ErrUnknownController = errors.New("no such controller")
