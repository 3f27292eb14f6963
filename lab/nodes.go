package lab

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/crdlab/crdlab/lab/internal/controlplane"
	"github.com/crdlab/crdlab/lab/kubelet"
	"github.com/crdlab/crdlab/lab/lang"
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

// configureAPIServer has kube-apiserver evict the Pods of a failed node
// after 10s, not 5 minutes; and, in a lab of ScaleNodes nodes or more,
// serve as many requests at once as the lab's own clients make at that
// size, and keep no snapshots of its watch cache (scaleFeatureGates).
func (n *nodes) configureAPIServer(a *controlplane.APIServer) error {
	a.NodeFailureToleration = notReadyToleration
	if n.lab.opts.Nodes >= ScaleNodes {
		a.MaxRequestsInFlight, a.MaxMutatingRequestsInFlight = scaleRequestsInFlight, scaleMutatingRequestsInFlight
		a.FeatureGates = scaleFeatureGates
	}
	return nil
}

// scaleFeatureGates are the only feature gates a lab sets, from ScaleNodes
// nodes on (below, every gate is its minor's default). ListFromCacheSnapshot
// (beta and on since 1.34) has kube-apiserver's watch cache keep, for each
// event of its window (the last 75 s of changes, up to 102,400 events),
// a copy-on-write snapshot of its index, from which it serves a list at
// an older resourceVersion (a paginated list's next page, or
// resourceVersionMatch=Exact). In a scale-up every change copies the
// path of the index it touches: 100 MB of the 670 MB kube-apiserver held
// live with 20,000 Pods (docs/scale.md, Memory with 100,000 Pods). Off,
// such a list is read from etcd, as before 1.34: the same answer, or 410
// Gone once etcd compacted that resourceVersion (every 5 minutes).
var scaleFeatureGates = map[string]bool{"ListFromCacheSnapshot": false}

// ScaleNodes is the size from which a lab runs as a cluster at scale is
// run (docs/scale.md): from 1,000 nodes each node renews its Lease every
// 10 s, a kubelet's own interval (nodeHeartbeat), and kube-apiserver
// serves scaleRequestsInFlight requests at once, scaleMutatingRequestsInFlight
// of them writes.
const ScaleNodes = 1000

// kube-apiserver's in-flight limits from ScaleNodes on, five times its
// defaults (400 and 200). With priority and fairness off (a lab has one
// tenant) they are its only limits, and at that size the lab's own writers
// alone may have 200 requests in flight (the simulated kubelet's 125 to
// 128 node workers and 32 Pod workers, kube-controller-manager's
// ReplicaSet, Deployment and garbage collector workers, kube-scheduler's
// bindings): over 200, kube-apiserver answers 429 and client-go waits the
// second its Retry-After says before it sends again.
const (
	scaleRequestsInFlight         = 2000
	scaleMutatingRequestsInFlight = 1000
)

// running returns the simulated kubelet, nil before the first start.
func (n *nodes) running() *kubelet.Kubelet {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.kubelet
}

// Start starts the simulated kubelet the first time, and returns once
// every node is Ready (ErrNodesNotReady, naming those that are not, after
// Options.StartTimeout); later, it starts each stopped node.
func (n *nodes) Start(ctx context.Context) error {
	l := n.lab
	if n.running() == nil {
		renew, _ := nodeHeartbeat(l.opts.Nodes)
		capacity, err := nodeCapacity(l.opts.NodeCapacity)
		if err != nil {
			return err
		}
		count := l.opts.Nodes
		if count == 0 {
			count = 3
		}
		if z := l.opts.Zones; z < 0 || z > kubelet.MaxZones || z > count {
			return lang.Errorf("%w: %d zones for %d nodes: want 0 to %d, and no more than the nodes", ErrZones, z, count, kubelet.MaxZones)
		}
		// The nodes outlive ctx, which only bounds the start.
		k, err := kubelet.Start(context.WithoutCancel(ctx), l.admin.config, kubelet.Options{
			Nodes:              l.opts.Nodes,
			Zones:              l.opts.Zones,
			StartDelay:         l.opts.PodStartDelay,
			Capacity:           capacity,
			LeaseRenewInterval: renew,
			Workers:            podWorkers(l.opts.Nodes),
			Logger:             l.opts.Logger,
		})
		if err != nil {
			return err
		}
		n.mu.Lock()
		n.kubelet = k
		n.mu.Unlock()
		return waitNodesReady(ctx, k, l.opts.StartTimeout)
	}
	for _, node := range l.Nodes() {
		if err := l.StartNode(ctx, node.Name); err != nil {
			return err
		}
	}
	return nil
}

// waitNodesReady waits until the kubelet's watch shows every node Ready.
func waitNodesReady(ctx context.Context, k *kubelet.Kubelet, timeout time.Duration) error {
	var waiting []string
	err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		waiting = k.NotReady()
		return len(waiting) == 0, nil
	})
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	total := len(k.NodeNames())
	shown := waiting
	more := ""
	if len(shown) > 10 {
		shown, more = shown[:10], fmt.Sprintf(" … +%d", len(waiting)-10)
	}
	return lang.Errorf("%w: %d of %d Ready after %s; not Ready: %s%s", ErrNodesNotReady,
		total-len(waiting), total, timeout, strings.Join(shown, ", "), more)
}

// MaxZones is the most zones Options.Zones spreads the nodes over.
const MaxZones = kubelet.MaxZones

// The simulated cluster's Pod addresses: each node's spec.podCIDR is a
// /NodeCIDRMaskSize of ClusterCIDR, so a lab has at most MaxNodes nodes
// (Options.Nodes) of at most MaxPodsPerNode Pods each (Options.NodeCapacity).
const (
	ClusterCIDR      = kubelet.ClusterCIDR
	NodeCIDRMaskSize = kubelet.NodeCIDRMaskSize
	MaxNodes         = kubelet.MaxNodes
	MaxPodsPerNode   = kubelet.MaxPodsPerNode
)

// nodeHeartbeat decides, from the number of nodes, how often each renews
// its Lease and the node monitor grace period after which the node
// lifecycle controller marks a silent node NotReady. Up to 400 nodes:
// every 4 s, and 16 s (a stopped node is noticed within about half a
// minute); above, the nodes' renewals stay at 100 a second, each node's
// interval growing up to 10 s (a kubelet's own, at a thousand nodes),
// and the grace period is four renewals, so that a loaded apiserver
// delaying one renewal or two does not flap a node NotReady.
func nodeHeartbeat(count int) (renew, grace time.Duration) {
	renew = min(max(4*time.Second, time.Duration(count)*time.Second/100), 10*time.Second)
	return renew, 4 * renew
}

// podWorkers is how many Pods the simulated kubelet works on at once: 8,
// and more for many nodes.
func podWorkers(count int) int { return min(max(8, count/25), 32) }

// nodeCapacity is the default capacity with what c names instead.
func nodeCapacity(c corev1.ResourceList) (corev1.ResourceList, error) {
	capacity := kubelet.DefaultCapacity()
	for name, q := range c {
		if _, known := capacity[name]; !known {
			return nil, lang.Errorf("%w: %q: not a node resource (known: cpu, memory, pods)", ErrNodeCapacity, name)
		}
		if q.Sign() <= 0 {
			return nil, lang.Errorf("%w: %s=%s: must be positive", ErrNodeCapacity, name, q.String())
		}
		if name == corev1.ResourcePods && q.MilliValue()%1000 != 0 {
			return nil, lang.Errorf("%w: pods=%s: must be a whole number", ErrNodeCapacity, q.String())
		}
		if name == corev1.ResourcePods && q.Value() > MaxPodsPerNode {
			return nil, lang.Errorf("%w: pods=%s: at most %d (a node's podCIDR is a /%d)", ErrNodeCapacity, q.String(), MaxPodsPerNode, NodeCIDRMaskSize)
		}
	}
	maps.Copy(capacity, c)
	return capacity, nil
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

// nodeGrace is the node monitor grace period for a lab of count nodes
// (Options.Nodes: zero is the kubelet's default of 3).
func nodeGrace(count int) time.Duration {
	_, grace := nodeHeartbeat(count)
	return grace
}
