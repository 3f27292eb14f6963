package kubelet

import (
	"context"
	"sort"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"
)

// The nodes' heartbeats, as a kubelet's: each node renews its Lease every
// LeaseRenewInterval (the node lifecycle controller reads liveness from
// it) and reports its status when it changed or every
// StatusReportInterval. The nodes' writes are spread evenly over those
// intervals, with a jitter, rather than made in bursts, and a few workers
// make them, so that a slow apiserver delays them without piling them up.

// leaseJitter is the jitter of a renewal, as a kubelet's lease controller's.
const leaseJitter = 0.04

// registerWorkers is how many nodes register at once.
const registerWorkers = 32

// registerAll registers every node, a few at a time.
func (k *Kubelet) registerAll(ctx context.Context) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(registerWorkers)
	for _, name := range k.NodeNames() {
		n := k.nodes[name]
		g.Go(func() error { return k.register(gctx, n) })
	}
	return g.Wait()
}

// scheduleHeartbeats queues each node's first renewal and status report,
// spread evenly over their intervals.
func (k *Kubelet) scheduleHeartbeats() {
	count := len(k.nodes)
	for _, n := range k.nodes {
		offset := func(every time.Duration) time.Duration {
			return every * time.Duration(n.index-1) / time.Duration(count)
		}
		k.nodeQueue.AddAfter(nodeWork{name: n.name}, k.opts.LeaseRenewInterval/2+offset(k.opts.LeaseRenewInterval))
		k.nodeQueue.AddAfter(nodeWork{name: n.name, status: true}, k.opts.StatusReportInterval/2+offset(k.opts.StatusReportInterval))
	}
}

// processNode makes one node's renewal or status report, and queues the
// next one.
func (k *Kubelet) processNode(ctx context.Context) bool {
	w, quit := k.nodeQueue.Get()
	if quit {
		return false
	}
	defer k.nodeQueue.Done(w)
	n, running := k.nodeRunning(w.name)
	if n == nil {
		return true
	}
	if w.status {
		if running {
			cached, _ := k.nodeList.Get(w.name)
			if err := k.updateNodeStatus(ctx, n, cached); err != nil {
				k.opts.Logger.V(1).Info("simulated kubelet: status update failed", "node", w.name, "error", err.Error())
			}
		}
		k.nodeQueue.AddAfter(w, wait.Jitter(k.opts.StatusReportInterval, leaseJitter))
		return true
	}
	if running {
		if err := k.renewLease(ctx, n); err != nil {
			k.opts.Logger.V(1).Info("simulated kubelet: lease renewal failed", "node", w.name, "error", err.Error())
		}
	}
	k.nodeQueue.AddAfter(w, wait.Jitter(k.opts.LeaseRenewInterval, leaseJitter))
	return true
}

// nodeChanged reports a running node's status at once when the Node no
// longer shows it (the node lifecycle controller marked it NotReady while
// its lease was late).
func (k *Kubelet) nodeChanged(obj any) {
	node, ok := obj.(*corev1.Node)
	if !ok {
		return
	}
	if _, running := k.nodeRunning(node.Name); running && !k.statusCurrent(node) {
		k.nodeQueue.Add(nodeWork{name: node.Name, status: true})
	}
}

// NotReady returns the running simulated nodes whose Node the kubelet's
// watch does not show Ready yet, sorted.
func (k *Kubelet) NotReady() []string {
	var waiting []string
	for _, name := range k.NodeNames() {
		if _, running := k.nodeRunning(name); !running {
			continue
		}
		node, err := k.nodeList.Get(name)
		if err != nil || !nodeReady(node) {
			waiting = append(waiting, name)
		}
	}
	sort.Strings(waiting)
	return waiting
}
