package lab

import (
	"context"

	"github.com/crdlab/crdlab/lab/kubelet"
)

// nodes is the simulated nodes as one component: started, every node
// runs; stopped, every machine is dead.
type nodes struct{ lab *Lab }

func (n *nodes) Name() string { return Nodes }

// Start starts the simulated kubelet the first time; later, each stopped
// node.
func (n *nodes) Start(ctx context.Context) error {
	l := n.lab
	if l.kubelet == nil {
		// The nodes outlive ctx, which only bounds the start.
		k, err := kubelet.Start(context.WithoutCancel(ctx), l.config, kubelet.Options{
			Nodes:      l.opts.Nodes,
			StartDelay: l.opts.PodStartDelay,
			Logger:     l.opts.Logger,
		})
		if err != nil {
			return err
		}
		l.kubelet = k
		return nil
	}
	for _, node := range l.Nodes() {
		if err := l.StartNode(ctx, node.Name); err != nil {
			return err
		}
	}
	return nil
}

func (n *nodes) Running() bool {
	for _, node := range n.lab.Nodes() {
		if node.Running {
			return true
		}
	}
	return false
}

func (n *nodes) Stop(ctx context.Context) error {
	for _, node := range n.lab.Nodes() {
		if err := n.lab.StopNode(ctx, node.Name); err != nil {
			return err
		}
	}
	return nil
}
