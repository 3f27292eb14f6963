package lab

import (
	"context"
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/crdlab/crdlab/lab/kubelet"
)

// nodes is the simulated nodes as one component: started, every node
// runs; stopped, every machine is dead.
type nodes struct {
	lab *Lab

	mu      sync.Mutex
	kubelet *kubelet.Kubelet // once started
}

var _ interface {
	apiServerPart
	closer
} = (*nodes)(nil)

func (n *nodes) Name() string { return Nodes }

// prepare has nothing to make: the nodes need flags only.
func (n *nodes) prepare(string) error { return nil }

// apiServerFlags evicts the Pods of a failed node after 10s, not 5 minutes.
func (n *nodes) apiServerFlags(args *envtest.Arguments) {
	args.Set("default-not-ready-toleration-seconds", notReadyToleration)
	args.Set("default-unreachable-toleration-seconds", notReadyToleration)
}

// running returns the simulated kubelet, nil before the first start.
func (n *nodes) running() *kubelet.Kubelet {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.kubelet
}

// Start starts the simulated kubelet the first time; later, each stopped
// node.
func (n *nodes) Start(ctx context.Context) error {
	l := n.lab
	if n.running() == nil {
		// The nodes outlive ctx, which only bounds the start.
		k, err := kubelet.Start(context.WithoutCancel(ctx), l.admin.config, kubelet.Options{
			Nodes:      l.opts.Nodes,
			StartDelay: l.opts.PodStartDelay,
			Logger:     l.opts.Logger,
		})
		if err != nil {
			return err
		}
		n.mu.Lock()
		n.kubelet = k
		n.mu.Unlock()
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

// close stops the simulated kubelet for good (the lab stops).
func (n *nodes) close() {
	n.mu.Lock()
	k := n.kubelet
	n.kubelet = nil
	n.mu.Unlock()
	if k != nil {
		k.Stop()
	}
}
