package lab_test

import (
	"context"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdlab/crdlab/lab"
)

// scalePods is how many Pods the scale spec runs on its 200 nodes:
// $CRDLAB_SCALE_PODS, or 2,000 (on the loaded 2-core machine: Ready in
// 29 s, gone in 30 s, the spec a minute and its lab's boot 5 s).
func scalePods() int32 {
	if n, err := strconv.Atoi(os.Getenv("CRDLAB_SCALE_PODS")); err == nil && n > 0 {
		return int32(n)
	}
	return 2000
}

// A lab of 200 nodes: Start returns with every node Ready, a Deployment of
// thousands of Pods runs on them and goes, and no node is ever seen
// NotReady meanwhile.
var _ = Describe("a lab at scale", Ordered, func() {
	const nodeCount = 200
	var (
		l        *lab.Lab
		c        client.Client
		notReady notReadySeen
	)
	BeforeAll(func(ctx context.Context) {
		var err error
		l, err = lab.Start(ctx, lab.Options{
			Components: []string{lab.ControllerManager, lab.Scheduler, lab.Nodes},
			Nodes:      nodeCount,
			NodeCapacity: corev1.ResourceList{
				corev1.ResourceCPU:  resource.MustParse("4"),
				corev1.ResourcePods: resource.MustParse("30"),
			},
			Logger: GinkgoLogr,
		})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { Expect(l.Stop()).To(Succeed()) })
		c = l.Client()
		cs := kubernetes.NewForConfigOrDie(l.RESTConfig())
		informer := cache.NewSharedIndexInformer(cache.NewListWatchFromClient(cs.CoreV1().RESTClient(), "nodes", "", fields.Everything()),
			&corev1.Node{}, 0, cache.Indexers{})
		_, _ = informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    notReady.see,
			UpdateFunc: func(_, obj any) { notReady.see(obj) },
		})
		stop := make(chan struct{})
		DeferCleanup(func() { close(stop) })
		go informer.Run(stop)
		Eventually(informer.HasSynced).WithContext(ctx).WithTimeout(30 * time.Second).Should(BeTrue())
	}, NodeTimeout(3*time.Minute))

	It("returns from Start with every node Ready, with the capacity asked for", func(ctx context.Context) {
		var nodes corev1.NodeList
		Expect(c.List(ctx, &nodes)).To(Succeed())
		Expect(nodes.Items).To(HaveLen(nodeCount))
		for _, n := range nodes.Items {
			Expect(nodeReady(&n)).To(Equal(corev1.ConditionTrue), "node %s right after Start", n.Name)
			Expect(n.Status.Capacity.Cpu().String()).To(Equal("4"), "node %s", n.Name)
			Expect(n.Status.Capacity.Pods().String()).To(Equal("30"), "node %s", n.Name)
			Expect(n.Status.Capacity.Memory().String()).To(Equal("256Gi"), "node %s (the default)", n.Name)
		}
		Expect(notReady.names()).To(BeEmpty())
		// Below lab.ScaleNodes every feature gate is the minor's default.
		Expect(featureEnabled(ctx, l, "ListFromCacheSnapshot")).To(BeTrue(), "kube-apiserver's watch cache snapshots, %d nodes", nodeCount)
	})

	It("runs thousands of Pods and scales them to 0, every node Ready throughout", func(ctx context.Context) {
		pods := scalePods()
		d := deployment("default", "scale", 0)
		d.Spec.Template.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}
		Expect(c.Create(ctx, d)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { _ = c.Delete(ctx, d) })
		start := time.Now()
		Expect(c.Patch(ctx, d, client.RawPatch("application/merge-patch+json",
			[]byte(`{"spec":{"replicas":`+strconv.Itoa(int(pods))+`}}`)))).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(notReady.names()).To(BeEmpty(), "nodes seen NotReady")
			g.Expect(c.Get(ctx, client.ObjectKeyFromObject(d), d)).To(Succeed())
			g.Expect(d.Status.ReadyReplicas).To(Equal(pods))
		}).WithContext(ctx).WithTimeout(4 * time.Minute).WithPolling(time.Second).Should(Succeed())
		GinkgoWriter.Printf("%d Pods Ready on %d nodes in %s\n", pods, nodeCount, time.Since(start).Round(100*time.Millisecond))
		Expect(notReady.names()).To(BeEmpty(), "nodes seen NotReady while the Pods started")

		start = time.Now()
		d.Spec.Replicas = ptr.To(int32(0))
		Expect(c.Update(ctx, d)).To(Succeed())
		Eventually(func(g Gomega) {
			var list corev1.PodList
			g.Expect(c.List(ctx, &list, client.InNamespace("default"), client.MatchingLabels{"app": "scale"})).To(Succeed())
			g.Expect(list.Items).To(BeEmpty())
		}).WithContext(ctx).WithTimeout(4 * time.Minute).WithPolling(time.Second).Should(Succeed())
		GinkgoWriter.Printf("%d Pods gone in %s\n", pods, time.Since(start).Round(100*time.Millisecond))
		Expect(notReady.names()).To(BeEmpty(), "nodes seen NotReady while the Pods went")
	}, SpecTimeout(9*time.Minute))
})

// notReadySeen records the nodes a watch saw not Ready.
type notReadySeen struct {
	mu   sync.Mutex
	seen map[string]bool
}

func (s *notReadySeen) see(obj any) {
	n, ok := obj.(*corev1.Node)
	if !ok || nodeReady(n) == corev1.ConditionTrue {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	s.seen[n.Name] = true
}

func (s *notReadySeen) names() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for n := range s.seen {
		out = append(out, n)
	}
	return out
}

// A lab of more than 3,072 nodes, where the simulated kubelet's first
// addresses ended (node 3,072's Pods were given 10.256.0.x, which the
// apiserver refused: the Pods stayed Pending on Ready nodes): a Deployment
// spread over nodes on both sides of it has every Pod Running, each at an
// address of its node's spec.podCIDR. Part of make test's short scale
// subset (a lab of 3,080 nodes boots in seconds).
var _ = Describe("a lab of more than 3,072 nodes", Ordered, func() {
	const (
		nodeCount = 3080
		first     = 3061 // the Deployment's nodes: lab-node-3061 … lab-node-3080
		perNode   = 2
	)
	var (
		l *lab.Lab
		c client.Client
	)
	BeforeAll(func(ctx context.Context) {
		var err error
		l, err = lab.Start(ctx, lab.Options{
			Components:   []string{lab.ControllerManager, lab.Scheduler, lab.Nodes},
			Nodes:        nodeCount,
			StartTimeout: 3 * time.Minute,
			Logger:       GinkgoLogr,
		})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { Expect(l.Stop()).To(Succeed()) })
		c = l.Client()
	}, NodeTimeout(4*time.Minute))

	It("runs kube-apiserver as a cluster at scale is run: its watch cache keeps no snapshots (docs/scale.md)", func(ctx context.Context) {
		Expect(featureEnabled(ctx, l, "ListFromCacheSnapshot")).To(BeFalse())
	})

	It("runs every Pod of a Deployment spread over nodes 3,061 to 3,080, each at an address of its node's podCIDR", func(ctx context.Context) {
		var names []string
		for i := first; i <= nodeCount; i++ {
			names = append(names, "lab-node-"+strconv.Itoa(i))
		}
		replicas := int32(perNode * len(names))
		d := deployment("default", "spread", replicas)
		selector := &metav1.LabelSelector{MatchLabels: d.Spec.Selector.MatchLabels}
		d.Spec.Template.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: names}},
			}}},
		}}
		d.Spec.Template.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: corev1.LabelHostname, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: selector,
		}}
		Expect(c.Create(ctx, d)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { _ = c.Delete(ctx, d) })

		var pods []corev1.Pod
		Eventually(func(g Gomega) {
			var list corev1.PodList
			g.Expect(c.List(ctx, &list, client.InNamespace("default"), client.MatchingLabels{"app": "spread"})).To(Succeed())
			g.Expect(list.Items).To(HaveLen(int(replicas)))
			for _, p := range list.Items {
				g.Expect(p.Status.Phase).To(Equal(corev1.PodRunning), "pod %s on node %q, its events: %s", p.Name, p.Spec.NodeName, podEvents(ctx, c, &p))
			}
			pods = list.Items
		}).WithContext(ctx).WithTimeout(2 * time.Minute).WithPolling(time.Second).Should(Succeed())

		perNodeSeen := map[string]int{}
		for _, p := range pods {
			perNodeSeen[p.Spec.NodeName]++
			var n corev1.Node
			Expect(c.Get(ctx, client.ObjectKey{Name: p.Spec.NodeName}, &n)).To(Succeed())
			cidr, err := netip.ParsePrefix(n.Spec.PodCIDR)
			Expect(err).NotTo(HaveOccurred(), "node %s's podCIDR", n.Name)
			ip, err := netip.ParseAddr(p.Status.PodIP)
			Expect(err).NotTo(HaveOccurred(), "pod %s's address", p.Name)
			Expect(cidr.Contains(ip)).To(BeTrue(), "pod %s at %s, not in node %s's podCIDR %s", p.Name, ip, n.Name, cidr)
		}
		for _, name := range names {
			Expect(perNodeSeen[name]).To(Equal(perNode), "Pods on %s (every node from %d on)", name, first)
		}
	}, SpecTimeout(3*time.Minute))
})

// podEvents is what the Pod's events say, for a failure's message.
func podEvents(ctx context.Context, c client.Client, p *corev1.Pod) string {
	var list corev1.EventList
	if err := c.List(ctx, &list, client.InNamespace(p.Namespace)); err != nil {
		return err.Error()
	}
	var out []string
	for _, e := range list.Items {
		if e.InvolvedObject.UID == p.UID {
			out = append(out, e.Reason+": "+e.Message)
		}
	}
	return strings.Join(out, "; ")
}

// featureEnabled is what l's kube-apiserver says of the feature gate name
// in its metrics (kubernetes_feature_enabled): what it runs with, whoever
// set it.
func featureEnabled(ctx context.Context, l *lab.Lab, name string) bool {
	raw, err := kubernetes.NewForConfigOrDie(l.RESTConfig()).CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	Expect(err).NotTo(HaveOccurred())
	for line := range strings.Lines(string(raw)) {
		if strings.HasPrefix(line, "kubernetes_feature_enabled{") && strings.Contains(line, `name="`+name+`"`) {
			f := strings.Fields(line)
			return f[len(f)-1] == "1"
		}
	}
	Fail("kube-apiserver's metrics say nothing of the feature gate " + name)
	return false
}
