package lab

import (
	"context"
	"errors"
	"fmt"
)

// ErrNotRunningComponent: the lab does not run the component asked for.
var ErrNotRunningComponent = errors.New("component not running in this lab")

// NodeNames returns the names of the simulated nodes (none when the lab
// runs without them).
func (l *Lab) NodeNames() []string {
	if l.kubelet == nil {
		return nil
	}
	return l.kubelet.NodeNames()
}

// StopNode stops a simulated node as if its machine died: its heartbeats
// stop, so the node lifecycle controller marks it NotReady and its Pods are
// evicted and replaced elsewhere.
func (l *Lab) StopNode(name string) error {
	if l.kubelet == nil {
		return fmt.Errorf("%w: %s", ErrNotRunningComponent, Nodes)
	}
	return l.kubelet.StopNode(name)
}

// StartNode starts a stopped simulated node again.
func (l *Lab) StartNode(ctx context.Context, name string) error {
	if l.kubelet == nil {
		return fmt.Errorf("%w: %s", ErrNotRunningComponent, Nodes)
	}
	return l.kubelet.StartNode(ctx, name)
}

// component returns the supervised child running the named component.
func (l *Lab) component(name string) (*child, error) {
	for _, c := range l.children {
		if c.name == name {
			return c, nil
		}
	}
	return nil, fmt.Errorf("%w: %s", ErrNotRunningComponent, name)
}

// CrashComponent kills kube-controller-manager or kube-scheduler (by
// their binary names) as a crash would; the lab restarts it.
func (l *Lab) CrashComponent(name string) error {
	c, err := l.component(name)
	if err != nil {
		return err
	}
	return c.kill()
}
