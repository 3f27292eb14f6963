package kubelet

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// FieldManager is the name the simulated kubelet writes under; the
// timeline shows it as "kubelet (simulated)".
const FieldManager = "crdlab-kubelet"

// Options configures the simulated nodes. The zero value gives three nodes.
type Options struct {
	// Nodes is how many nodes to simulate. Zero: 3.
	Nodes int
	// NamePrefix names the nodes: NamePrefix1, NamePrefix2, ...
	// Empty: "lab-node-".
	NamePrefix string
	// StartDelay is how long a bound Pod takes to become Running.
	// Zero: at once.
	StartDelay time.Duration
	// RunTime is how long a Pod with restartPolicy Never or OnFailure runs
	// before it succeeds, unless its annotation says otherwise. Zero: 1s.
	RunTime time.Duration
	// Zones spreads the nodes over this many zones, round robin: node 1 in
	// zone-a, node 2 in zone-b... (the label topology.kubernetes.io/zone,
	// and topology.kubernetes.io/region lab), as a cloud's nodes are; the
	// scheduler spreads a Deployment's Pods over them and the node
	// lifecycle controller rates its evictions per zone. Zero: no zone
	// labels. At most MaxZones.
	Zones int
	// Capacity of each node. Nil: DefaultCapacity.
	Capacity corev1.ResourceList
	// LeaseRenewInterval is how often each node renews its Lease (with a
	// jitter of 4%, as a kubelet's lease controller), the nodes' renewals
	// spread evenly over it. Zero: 4s.
	LeaseRenewInterval time.Duration
	// StatusReportInterval is how often a node reports its status when
	// nothing changed (a kubelet's nodeStatusReportFrequency): the Lease
	// says the node lives; a change (the node lifecycle controller marked
	// it NotReady) is reported at once. Zero: 5 minutes.
	StatusReportInterval time.Duration
	// Workers is how many Pods are worked on at once. Zero: 8.
	Workers int
	// Logger receives diagnostics.
	Logger logr.Logger
}

func (o *Options) defaults() {
	if o.Nodes == 0 {
		o.Nodes = 3
	}
	if o.NamePrefix == "" {
		o.NamePrefix = "lab-node-"
	}
	if o.RunTime == 0 {
		o.RunTime = time.Second
	}
	if o.Capacity == nil {
		o.Capacity = DefaultCapacity()
	}
	if o.LeaseRenewInterval == 0 {
		o.LeaseRenewInterval = 4 * time.Second
	}
	if o.StatusReportInterval == 0 {
		o.StatusReportInterval = 5 * time.Minute
	}
	if o.Workers == 0 {
		o.Workers = 8
	}
}

// Errors of Options that the nodes cannot have.
var (
	// ErrTooManyNodes: Options.Nodes is above MaxNodes.
	ErrTooManyNodes = errors.New("more nodes than the cluster's Pod range has room for")
	// ErrTooManyPods: Options.Capacity's pods is above MaxPodsPerNode.
	ErrTooManyPods = errors.New("more Pods a node than its podCIDR has addresses for")
)

// validate says what the nodes cannot be: more than MaxNodes, or more Pods
// each than their podCIDR has addresses for.
func (o *Options) validate() error {
	if o.Nodes < 0 || o.Nodes > MaxNodes {
		return fmt.Errorf("%w: %d nodes: want 1 to %d (a /%d of %s each)", ErrTooManyNodes, o.Nodes, MaxNodes, NodeCIDRMaskSize, ClusterCIDR)
	}
	if pods, ok := o.Capacity[corev1.ResourcePods]; ok && pods.Value() > MaxPodsPerNode {
		return fmt.Errorf("%w: pods=%s: want at most %d (a node's podCIDR is a /%d)", ErrTooManyPods, pods.String(), MaxPodsPerNode, NodeCIDRMaskSize)
	}
	return nil
}

// DefaultCapacity is a simulated node's capacity unless Options.Capacity
// says otherwise: 32 CPUs, 256Gi of memory, 400 Pods.
func DefaultCapacity() corev1.ResourceList {
	return corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("32"),
		corev1.ResourceMemory: resource.MustParse("256Gi"),
		corev1.ResourcePods:   resource.MustParse("400"),
	}
}

// nodeWorkers is how many nodes' leases and statuses are written at once:
// enough that a thousand nodes' renewals (100 a second) keep up with an
// apiserver that takes a second to answer each under load.
func nodeWorkers(nodes int) int { return min(max(nodes/8, 4), 128) }

// MaxZones is the most zones the nodes are spread over: zone-a to zone-z.
const MaxZones = 26

// ZoneName is the zone of the index-th node (1-based) of nodes spread over
// zones: "" with no zones.
func ZoneName(index, zones int) string {
	if zones <= 0 {
		return ""
	}
	return "zone-" + string(rune('a'+(index-1)%min(zones, MaxZones)))
}

// ErrUnknownNode: no simulated node has that name.
var ErrUnknownNode = errors.New("no such simulated node")

// Kubelet runs the simulated nodes.
type Kubelet struct {
	opts       Options
	client     kubernetes.Interface // Pods: rate limited
	heartbeats kubernetes.Interface // Leases and Node status: never waits behind Pod work
	pods       corelisters.PodLister
	nodeList   corelisters.NodeLister
	queue      workqueue.TypedRateLimitingInterface[string]
	nodeQueue  workqueue.TypedDelayingInterface[nodeWork]
	cancel     context.CancelFunc
	done       sync.WaitGroup
	now        func() time.Time // the clock of Pods' lives
	version    string           // the kubelet version the nodes report (reportedVersion)

	mu          sync.Mutex
	nodes       map[string]*node
	refusals    int    // writes the apiserver refused (Refusals)
	lastRefusal string // the last of them, in words
}

// Start registers the nodes and starts their kubelets; they run until
// Stop or until ctx is done. It returns once every node is registered;
// NotReady says which are not yet seen Ready.
func Start(ctx context.Context, cfg *rest.Config, opts Options) (*Kubelet, error) {
	cs, hb, err := clients(cfg)
	if err != nil {
		return nil, fmt.Errorf("unable to create a client for the simulated kubelet: %w", err)
	}
	return start(ctx, cs, hb, opts)
}

// clients are the simulated kubelet's clients of cfg's apiserver: pods
// for Pods (and the Pods' watch), heartbeats for Leases and Node status
// (and the Nodes' watch).
func clients(cfg *rest.Config) (pods, heartbeats kubernetes.Interface, err error) {
	cfg = rest.CopyConfig(cfg)
	cfg.UserAgent = FieldManager
	cfg.QPS, cfg.Burst = 1000, 2000
	// Protobuf, as a real kubelet speaks: for the apiserver, decoding a
	// status write and encoding the Pods' watch events in protobuf costs a
	// fraction of JSON, and every other watcher of Pods in a lab (the
	// controller-manager, the scheduler) already asks for protobuf.
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	// Connections of its own, as a kubelet, a process of its own, has.
	// client-go gives the clients of a process that present the same
	// credentials one transport, so one HTTP/2 connection (its transport
	// cache): the lab's other clients in this process (a test's, labtest's,
	// a benchmark's) would send their requests in the stream that carries
	// every node's Lease renewal and every Pod's watch event, read by one
	// goroutine at each end. A config with a dial function of its own gets
	// a transport of its own (client-go cannot compare functions, so does
	// not share it): one connection for Pods and their watch, one for the
	// heartbeats.
	cfg.Dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	if pods, err = kubernetes.NewForConfig(cfg); err != nil {
		return nil, nil, err
	}
	// The heartbeats' client is not rate limited, as a kubelet's own
	// heartbeat client: a burst of Pod work never delays a Lease. Their
	// rate is bounded by the renew interval (Options.LeaseRenewInterval).
	hbCfg := rest.CopyConfig(cfg)
	hbCfg.QPS, hbCfg.Burst = -1, 0
	if heartbeats, err = kubernetes.NewForConfig(hbCfg); err != nil {
		return nil, nil, err
	}
	return pods, heartbeats, nil
}

// start is Start on clients: cs for Pods, hb for Leases and Node status.
func start(ctx context.Context, cs, hb kubernetes.Interface, opts Options) (*Kubelet, error) {
	opts.defaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	var err error
	ctx, cancel := context.WithCancel(ctx)
	k := &Kubelet{
		opts:       opts,
		client:     cs,
		heartbeats: hb,
		cancel:     cancel,
		now:        time.Now,
		nodes:      map[string]*node{},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "simulated-kubelet"}),
		nodeQueue: workqueue.NewTypedDelayingQueueWithConfig(
			workqueue.TypedDelayingQueueConfig[nodeWork]{Name: "simulated-nodes"}),
	}
	if k.version, err = reportedVersion(hb); err != nil {
		cancel()
		return nil, err
	}
	go func() {
		<-ctx.Done()
		k.queue.ShutDown()
		k.nodeQueue.ShutDown()
	}()
	for i := 1; i <= opts.Nodes; i++ {
		n, err := newNode(fmt.Sprintf("%s%d", opts.NamePrefix, i), i, ZoneName(i, opts.Zones))
		if err != nil {
			cancel()
			return nil, err
		}
		k.nodes[n.name] = n
	}
	if err := k.registerAll(ctx); err != nil {
		cancel()
		return nil, err
	}

	// One watch of Nodes for every simulated node: a status that changed
	// (the node lifecycle controller marked a node NotReady) is reported
	// again at once, and NotReady reads it.
	nodeFactory := informers.NewSharedInformerFactoryWithOptions(hb, 0,
		informers.WithTransform(dropManagedFields),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.LabelSelector = SimulatedLabel + "=true"
		}))
	nodeInformer := nodeFactory.Core().V1().Nodes()
	k.nodeList = nodeInformer.Lister()
	_, _ = nodeInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    k.nodeChanged,
		UpdateFunc: func(_, obj any) { k.nodeChanged(obj) },
	})
	// One watch of Pods for every simulated node: only Pods bound to a
	// node; the kubelet filters further by its nodes.
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0,
		informers.WithTransform(dropManagedFields),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermNotEqualSelector("spec.nodeName", "").String()
		}))
	podInformer := factory.Core().V1().Pods()
	k.pods = podInformer.Lister()
	_, _ = podInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    k.enqueue,
		UpdateFunc: func(_, obj any) { k.enqueue(obj) },
	})
	factory.Start(ctx.Done())
	nodeFactory.Start(ctx.Done())
	// Checked every 5 ms: client-go's WaitForCacheSync checks every 100 ms,
	// and the nodes' start is part of a lab's.
	synced := func(context.Context) (bool, error) {
		return podInformer.Informer().HasSynced() && nodeInformer.Informer().HasSynced(), nil
	}
	if err := wait.PollUntilContextCancel(ctx, 5*time.Millisecond, true, synced); err != nil {
		cancel()
		return nil, fmt.Errorf("simulated kubelet: pod and node caches did not sync: %w", err)
	}
	for i := 0; i < opts.Workers; i++ {
		k.done.Add(1)
		go func() {
			defer k.done.Done()
			for k.processNext(ctx) {
			}
		}()
	}
	k.scheduleHeartbeats()
	for i := 0; i < nodeWorkers(opts.Nodes); i++ {
		k.done.Add(1)
		go func() {
			defer k.done.Done()
			for k.processNode(ctx) {
			}
		}()
	}
	return k, nil
}

// Stop stops every kubelet and waits for them. The Nodes stay registered.
func (k *Kubelet) Stop() {
	k.cancel()
	k.queue.ShutDown()
	k.nodeQueue.ShutDown()
	k.done.Wait()
}

// NodeNames returns the simulated nodes' names, sorted.
func (k *Kubelet) NodeNames() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	names := make([]string, 0, len(k.nodes))
	for n := range k.nodes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// StopNode stops a node as if its machine died: no more heartbeats, no
// more Pod updates, deletions not confirmed.
func (k *Kubelet) StopNode(name string) error { return k.setRunning(name, false) }

// StartNode starts a stopped node again: heartbeats resume, its Ready
// condition is renewed, and its Pods are worked on again.
func (k *Kubelet) StartNode(ctx context.Context, name string) error {
	if err := k.setRunning(name, true); err != nil {
		return err
	}
	k.mu.Lock()
	n := k.nodes[name]
	k.mu.Unlock()
	if err := k.updateNodeStatus(ctx, n, nil); err != nil {
		return err
	}
	k.nodeQueue.Add(nodeWork{name: name})
	pods, err := k.pods.List(labels.Everything())
	if err != nil {
		return err
	}
	for _, p := range pods {
		if p.Spec.NodeName == name {
			k.enqueue(p)
		}
	}
	return nil
}

// Running reports whether the named node runs.
func (k *Kubelet) Running(name string) (bool, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	n, ok := k.nodes[name]
	if !ok {
		return false, fmt.Errorf("%w: %q", ErrUnknownNode, name)
	}
	return n.running, nil
}

func (k *Kubelet) setRunning(name string, running bool) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	n, ok := k.nodes[name]
	if !ok {
		return fmt.Errorf("%w: %q", ErrUnknownNode, name)
	}
	n.running = running
	return nil
}

// nodeRunning returns the node of that name if it is simulated here and runs.
func (k *Kubelet) nodeRunning(name string) (*node, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	n, ok := k.nodes[name]
	return n, ok && n.running
}

func (k *Kubelet) enqueue(obj any) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	if _, ours := k.nodeRunning(p.Spec.NodeName); !ours {
		return
	}
	key, err := cache.MetaNamespaceKeyFunc(p)
	if err == nil {
		k.queue.Add(key)
	}
}

func (k *Kubelet) processNext(ctx context.Context) bool {
	key, quit := k.queue.Get()
	if quit {
		return false
	}
	defer k.queue.Done(key)
	requeue, err := k.syncPod(ctx, key)
	switch {
	case err != nil:
		k.opts.Logger.V(1).Info("simulated kubelet: retrying pod", "pod", key, "error", err.Error())
		k.queue.AddRateLimited(key)
	case requeue > 0:
		k.queue.Forget(key)
		k.queue.AddAfter(key, requeue)
	default:
		k.queue.Forget(key)
	}
	return true
}
