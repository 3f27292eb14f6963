package kubelet

import (
	"context"
	"errors"
	"fmt"
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
	// Capacity of each node. Nil: 32 CPUs, 256Gi of memory, 400 Pods.
	Capacity corev1.ResourceList
	// LeaseRenewInterval is how often each node renews its Lease.
	// Zero: 4s.
	LeaseRenewInterval time.Duration
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
		o.Capacity = corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("32"),
			corev1.ResourceMemory: resource.MustParse("256Gi"),
			corev1.ResourcePods:   resource.MustParse("400"),
		}
	}
	if o.LeaseRenewInterval == 0 {
		o.LeaseRenewInterval = 4 * time.Second
	}
	if o.Workers == 0 {
		o.Workers = 8
	}
}

// ErrUnknownNode: no simulated node has that name.
var ErrUnknownNode = errors.New("no such simulated node")

// Kubelet runs the simulated nodes.
type Kubelet struct {
	opts   Options
	client kubernetes.Interface
	pods   corelisters.PodLister
	queue  workqueue.TypedRateLimitingInterface[string]
	cancel context.CancelFunc
	done   sync.WaitGroup
	now    func() time.Time // the clock of Pods' lives

	mu    sync.Mutex
	nodes map[string]*node
}

// Start registers the nodes and starts their kubelets; they run until
// Stop or until ctx is done.
func Start(ctx context.Context, cfg *rest.Config, opts Options) (*Kubelet, error) {
	opts.defaults()
	cfg = rest.CopyConfig(cfg)
	cfg.UserAgent = FieldManager
	cfg.QPS, cfg.Burst = 1000, 2000
	// Protobuf, as a real kubelet speaks: for the apiserver, decoding a
	// status write and encoding the Pods' watch events in protobuf costs a
	// fraction of JSON, and every other watcher of Pods in a lab (the
	// controller-manager, the scheduler) already asks for protobuf.
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("unable to create a client for the simulated kubelet: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	k := &Kubelet{
		opts:   opts,
		client: cs,
		cancel: cancel,
		now:    time.Now,
		nodes:  map[string]*node{},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "simulated-kubelet"}),
	}
	for i := 1; i <= opts.Nodes; i++ {
		n := &node{name: fmt.Sprintf("%s%d", opts.NamePrefix, i), index: i, running: true}
		if err := k.register(ctx, n); err != nil {
			cancel()
			return nil, err
		}
		k.nodes[n.name] = n
	}

	// Only Pods bound to a node; the kubelet filters further by its nodes.
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0,
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
	// Checked every 5 ms: client-go's WaitForCacheSync checks every 100 ms,
	// and the nodes' start is part of a lab's.
	synced := func(context.Context) (bool, error) { return podInformer.Informer().HasSynced(), nil }
	if err := wait.PollUntilContextCancel(ctx, 5*time.Millisecond, true, synced); err != nil {
		cancel()
		return nil, fmt.Errorf("simulated kubelet: pod cache did not sync: %w", err)
	}
	for i := 0; i < opts.Workers; i++ {
		k.done.Add(1)
		go func() {
			defer k.done.Done()
			for k.processNext(ctx) {
			}
		}()
	}
	k.done.Add(1)
	go func() {
		defer k.done.Done()
		k.heartbeat(ctx)
	}()
	go func() {
		<-ctx.Done()
		k.queue.ShutDown()
	}()
	return k, nil
}

// Stop stops every kubelet and waits for them. The Nodes stay registered.
func (k *Kubelet) Stop() {
	k.cancel()
	k.queue.ShutDown()
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
	if err := k.updateNodeStatus(ctx, n); err != nil {
		return err
	}
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
