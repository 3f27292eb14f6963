package kubelet

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
)

// Every node crdlab accepts has a podCIDR of the cluster's Pod range, no
// two nodes the same, and every address its Pods get is one the apiserver
// takes (its own check, validation.IsValidIP) inside that podCIDR. Before
// podCIDRs, node 3,072's Pods were given 10.256.0.2, which the apiserver
// refused.
func TestEveryNodeCountHasPodAddresses(t *testing.T) {
	cluster := netip.MustParsePrefix(ClusterCIDR)
	var prev netip.Prefix
	for _, index := range []int{1, 2, 255, 256, 3071, 3072, 5000, 10000, MaxNodes - 1, MaxNodes} {
		n, err := newNode("lab-node", index, "")
		if err != nil {
			t.Fatalf("node %d: %v", index, err)
		}
		if n.podCIDR.Bits() != NodeCIDRMaskSize || !cluster.Contains(n.podCIDR.Addr()) || n.podCIDR != n.podCIDR.Masked() {
			t.Errorf("node %d: podCIDR %s, want a /%d of %s", index, n.podCIDR, NodeCIDRMaskSize, ClusterCIDR)
		}
		if prev.IsValid() && prev.Overlaps(n.podCIDR) {
			t.Errorf("node %d: podCIDR %s overlaps the one before, %s", index, n.podCIDR, prev)
		}
		prev = n.podCIDR
		if errs := validation.IsValidIP(field.NewPath("status", "hostIP"), nodeIP(index)); len(errs) > 0 {
			t.Errorf("node %d: %v", index, errs.ToAggregate())
		}
		k := &Kubelet{}
		seen := map[string]bool{}
		for i := 0; i < MaxPodsPerNode; i++ {
			ip := k.podIP(&corev1.Pod{}, n)
			if errs := validation.IsValidIP(field.NewPath("status", "podIPs").Index(0), ip); len(errs) > 0 {
				t.Fatalf("node %d, Pod %d: %v", index, i+1, errs.ToAggregate())
			}
			a := netip.MustParseAddr(ip)
			if !n.podCIDR.Contains(a) || a == n.podCIDR.Addr() || a == hostAddr(n.podCIDR, 1) || a == hostAddr(n.podCIDR, 1<<(32-NodeCIDRMaskSize)-1) {
				t.Fatalf("node %d, Pod %d: %s is not a Pod's address of %s", index, i+1, ip, n.podCIDR)
			}
			if seen[ip] {
				t.Fatalf("node %d: %s handed out twice among %d Pods", index, ip, i+1)
			}
			seen[ip] = true
		}
	}
	if _, err := newNode("lab-node", MaxNodes+1, ""); err == nil {
		t.Errorf("node %d: no error, but the Pod range has no /%d for it", MaxNodes+1, NodeCIDRMaskSize)
	}
	if got := hostAddr(netip.MustParsePrefix("10.128.2.0/23"), 2).String(); got != "10.128.2.2" {
		t.Errorf("hostAddr: %s", got)
	}
}

// Options above what the addresses allow are refused, naming the limit.
func TestOptionsBeyondTheAddresses(t *testing.T) {
	for _, tc := range []struct {
		opts Options
		want error
	}{
		{Options{Nodes: MaxNodes}, nil},
		{Options{Nodes: MaxNodes + 1}, ErrTooManyNodes},
		{Options{Capacity: corev1.ResourceList{corev1.ResourcePods: *resource.NewQuantity(MaxPodsPerNode, resource.DecimalSI)}}, nil},
		{Options{Capacity: corev1.ResourceList{corev1.ResourcePods: *resource.NewQuantity(MaxPodsPerNode+1, resource.DecimalSI)}}, ErrTooManyPods},
	} {
		tc.opts.defaults()
		if err := tc.opts.validate(); !errors.Is(err, tc.want) {
			t.Errorf("%+v: %v, want %v", tc.opts.Nodes, err, tc.want)
		}
	}
}

// A status the apiserver refuses is not sent again and again in silence:
// the Pod gets a Warning Event with the apiserver's words, the kubelet
// counts it, and works on the Pod again only when it changes.
func TestRefusedStatusIsTold(t *testing.T) {
	p := pod()
	cs := fake.NewClientset(p)
	invalid := apierrors.NewInvalid(schema.GroupKind{Kind: "Pod"}, p.Name, field.ErrorList{
		field.Invalid(field.NewPath("status", "podIPs").Index(0), "10.256.0.2", "must be a valid IP address"),
	})
	cs.PrependReactor("update", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() == "status" {
			return true, nil, invalid
		}
		return false, nil, nil
	})
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	if err := indexer.Add(p); err != nil {
		t.Fatal(err)
	}
	n, err := newNode("lab-node-1", 1, "")
	if err != nil {
		t.Fatal(err)
	}
	k := &Kubelet{client: cs, pods: corelisters.NewPodLister(indexer), now: func() time.Time { return t0 },
		nodes: map[string]*node{n.name: n}}
	requeue, err := k.syncPod(context.Background(), "default/web")
	if err != nil || requeue != 0 {
		t.Fatalf("syncPod: requeue %s, error %v; want neither (not retried until the Pod changes)", requeue, err)
	}
	if count, last := k.Refusals(); count != 1 || !strings.Contains(last, "default/web") || !strings.Contains(last, "must be a valid IP address") {
		t.Errorf("Refusals: %d, %q", count, last)
	}
	events, err := cs.CoreV1().Events("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(events.Items) != 1 {
		t.Fatalf("%d events, want 1", len(events.Items))
	}
	ev := events.Items[0]
	if ev.Type != corev1.EventTypeWarning || ev.Reason != ReasonStatusRefused || ev.InvolvedObject.Name != "web" ||
		ev.InvolvedObject.UID != p.UID || ev.Source.Host != "lab-node-1" || !strings.Contains(ev.Message, `"10.256.0.2": must be a valid IP address`) {
		t.Errorf("event: %+v", ev)
	}
}
