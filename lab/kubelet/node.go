package kubelet

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/crdlab/crdlab/lab/kubeminor"
)

// reportedVersion is the kubelet version the simulated nodes report: the
// release of the apiserver they register with, as a kubelet of the control
// plane's own release ("v1.35.8-crdlab" on a Kubernetes 1.35 lab,
// "v1.38.0-beta.0-crdlab" on a preview's). A real
// cluster never runs a kubelet newer than its apiserver; the suffix says
// the kubelet is crdlab's.
func reportedVersion(c kubernetes.Interface) (string, error) {
	info, err := c.Discovery().ServerVersion()
	if err != nil {
		return "", fmt.Errorf("simulated kubelet: unable to ask the apiserver its version: %w", err)
	}
	v, ok := kubeminor.ParseVersion(info.GitVersion)
	if !ok || v.Tag() == "" {
		return "", fmt.Errorf("simulated kubelet: the apiserver reports version %q, not a Kubernetes release (v1.<minor>.<patch>, or its beta or rc)", info.GitVersion)
	}
	return v.Tag() + "-crdlab", nil // v1.38.0-beta.0-crdlab on a preview
}

// newNode is the index-th simulated node (1-based, at most MaxNodes).
func newNode(name string, index int, zone string) (*node, error) {
	cidr, err := podCIDR(index)
	if err != nil {
		return nil, err
	}
	return &node{name: name, index: index, zone: zone, running: true, podCIDR: cidr}, nil
}

// node is one simulated node.
type node struct {
	name    string
	index   int
	zone    string // "" without zones
	running bool
	podCIDR netip.Prefix          // its spec.podCIDR, as the Node says
	nextIP  int                   // last host part handed out to a Pod
	lease   *coordinationv1.Lease // as last written, renewed without a read
}

// nodeWork is an item of the nodes' queue: renew a node's Lease, or
// report its status.
type nodeWork struct {
	name   string
	status bool
}

// nodeLabels are a simulated node's labels.
func nodeLabels(n *node) map[string]string {
	l := map[string]string{
		"kubernetes.io/hostname": n.name,
		"kubernetes.io/os":       "linux",
		"kubernetes.io/arch":     "amd64",
		// A kubelet sets the beta labels too; else the node lifecycle
		// controller adds them, a read and a write per node.
		"beta.kubernetes.io/os":   "linux",
		"beta.kubernetes.io/arch": "amd64",
		SimulatedLabel:            "true",
	}
	if n.zone != "" {
		l[corev1.LabelTopologyZone] = n.zone
		l[corev1.LabelTopologyRegion] = "lab"
	}
	return l
}

// SimulatedLabel marks the Nodes the simulated kubelet registered.
const SimulatedLabel = "crdlab.dev/simulated"

// register creates the Node with a Ready status and its Lease (a kubelet
// registers with its status set too), or takes over an existing one (a
// lab restarted on the same data dir): it sets the node's own labels,
// then its status Ready.
func (k *Kubelet) register(ctx context.Context, n *node) error {
	cidr := n.podCIDR.String()
	want := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: n.name, Labels: nodeLabels(n)},
		Spec:       corev1.NodeSpec{PodCIDR: cidr, PodCIDRs: []string{cidr}},
	}
	k.setStatus(want, n, metav1.Now())
	_, err := k.client.CoreV1().Nodes().Create(ctx, want, metav1.CreateOptions{FieldManager: FieldManager})
	if apierrors.IsAlreadyExists(err) {
		err = k.updateLabels(ctx, n)
		if err == nil {
			err = k.updateNodeStatus(ctx, n, nil)
		}
	}
	if err != nil {
		return fmt.Errorf("unable to register node %s: %w", n.name, err)
	}
	return k.renewLease(ctx, n)
}

// updateLabels sets the labels of nodeLabels(n) on an existing Node where
// they differ, as a kubelet that registers again does with its default
// labels (updateDefaultLabels): a lab restarted on its data dir with
// --zones, or another number of zones, moves its nodes to their zones. A
// label the node no longer has a value for (no zones now) is left, as a
// kubelet leaves it; so are labels others set. A Node without a podCIDR (a
// data dir of a crdlab before podCIDRs) is given the node's; a Node with
// one keeps it (it cannot change), and the node's Pods take their
// addresses from it, as a kubelet reads its podCIDR from its Node.
func (k *Kubelet) updateLabels(ctx context.Context, n *node) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := k.client.CoreV1().Nodes().Get(ctx, n.name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("unable to read node %s: %w", n.name, err)
		}
		changed := false
		if cur.Spec.PodCIDR == "" {
			cidr := n.podCIDR.String()
			cur.Spec.PodCIDR, cur.Spec.PodCIDRs, changed = cidr, []string{cidr}, true
		} else if p, err := netip.ParsePrefix(cur.Spec.PodCIDR); err == nil && p.Addr().Is4() && p.Bits() <= 30 {
			k.mu.Lock()
			n.podCIDR = p.Masked()
			k.mu.Unlock()
		}
		for key, v := range nodeLabels(n) {
			if cur.Labels[key] != v {
				if cur.Labels == nil {
					cur.Labels = map[string]string{}
				}
				cur.Labels[key], changed = v, true
			}
		}
		if !changed {
			return nil
		}
		if _, err := k.client.CoreV1().Nodes().Update(ctx, cur, metav1.UpdateOptions{FieldManager: FieldManager}); err != nil {
			return fmt.Errorf("unable to update the labels of node %s: %w", n.name, err)
		}
		return nil
	})
}

// updateNodeStatus writes a Ready status with capacity, addresses and the
// node's info, as a kubelet does when its status changed or at its
// nodeStatusReportFrequency. It starts from cached (the informer's copy)
// when given, and reads the node again and retries when another writer
// changed it meanwhile (the node lifecycle controller tainting a node that
// was just registered).
func (k *Kubelet) updateNodeStatus(ctx context.Context, n *node, cached *corev1.Node) error {
	first := true
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur := cached
		if !first || cur == nil {
			var err error
			if cur, err = k.heartbeats.CoreV1().Nodes().Get(ctx, n.name, metav1.GetOptions{}); err != nil {
				return fmt.Errorf("unable to read node %s: %w", n.name, err)
			}
		} else {
			cur = cur.DeepCopy()
		}
		first = false
		k.setStatus(cur, n, metav1.Now())
		if _, err := k.heartbeats.CoreV1().Nodes().UpdateStatus(ctx, cur, metav1.UpdateOptions{FieldManager: FieldManager}); err != nil {
			return fmt.Errorf("unable to update status of node %s: %w", n.name, err)
		}
		return nil
	})
}

// setStatus sets cur's status to what a running simulated node reports,
// keeping the transition times of the conditions that did not change.
func (k *Kubelet) setStatus(cur *corev1.Node, n *node, now metav1.Time) {
	cond := func(t corev1.NodeConditionType, s corev1.ConditionStatus, reason, msg string) corev1.NodeCondition {
		c := corev1.NodeCondition{Type: t, Status: s, Reason: reason, Message: msg, LastHeartbeatTime: now, LastTransitionTime: now}
		for _, old := range cur.Status.Conditions {
			if old.Type == t && old.Status == s {
				c.LastTransitionTime = old.LastTransitionTime
			}
		}
		return c
	}
	cur.Status.Capacity = k.opts.Capacity
	cur.Status.Allocatable = k.opts.Capacity
	cur.Status.Phase = corev1.NodeRunning
	cur.Status.Conditions = []corev1.NodeCondition{
		cond(corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
		cond(corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
		cond(corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
		cond(corev1.NodeReady, corev1.ConditionTrue, "KubeletReady", "simulated kubelet is posting ready status"),
	}
	cur.Status.Addresses = []corev1.NodeAddress{
		{Type: corev1.NodeInternalIP, Address: nodeIP(n.index)},
		{Type: corev1.NodeHostName, Address: n.name},
	}
	cur.Status.NodeInfo = corev1.NodeSystemInfo{
		MachineID:               n.name,
		KernelVersion:           "simulated",
		OSImage:                 "crdlab simulated node",
		ContainerRuntimeVersion: "simulated://1.0",
		KubeletVersion:          k.version,
		OperatingSystem:         "linux",
		Architecture:            "amd64",
	}
	cur.Status.DaemonEndpoints = corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}}
}

// statusCurrent reports whether node shows what its simulated kubelet
// reports: Ready, with its capacity. Anything else (the node lifecycle
// controller marked it Unknown) is a change the kubelet reports at once.
func (k *Kubelet) statusCurrent(node *corev1.Node) bool {
	return nodeReady(node) && equality.Semantic.DeepEqual(node.Status.Capacity, k.opts.Capacity)
}

// nodeReady reports whether node's Ready condition is True.
func nodeReady(node *corev1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// renewLease creates or renews the node's Lease in kube-node-lease, the
// heartbeat the node lifecycle controller watches: one write, from the
// Lease as last written; a read only when someone else wrote it.
func (k *Kubelet) renewLease(ctx context.Context, n *node) error {
	leases := k.heartbeats.CoordinationV1().Leases(corev1.NamespaceNodeLease)
	now := metav1.NewMicroTime(time.Now())
	k.mu.Lock()
	lease := n.lease.DeepCopy()
	k.mu.Unlock()
	var err error
	if lease != nil {
		lease.Spec.RenewTime = &now
		lease, err = leases.Update(ctx, lease, metav1.UpdateOptions{FieldManager: FieldManager})
	} else {
		lease, err = leases.Create(ctx, &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: n.name, Namespace: corev1.NamespaceNodeLease},
			Spec: coordinationv1.LeaseSpec{
				HolderIdentity:       ptr.To(n.name),
				LeaseDurationSeconds: ptr.To(int32(40)),
				RenewTime:            &now,
			},
		}, metav1.CreateOptions{FieldManager: FieldManager})
	}
	if apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) || apierrors.IsNotFound(err) {
		lease, err = k.takeOverLease(ctx, n, now)
	}
	if err != nil {
		return fmt.Errorf("unable to renew the lease of node %s: %w", n.name, err)
	}
	k.mu.Lock()
	n.lease = lease
	k.mu.Unlock()
	return nil
}

// takeOverLease reads the node's Lease and renews it (it was written by
// someone else, or by a lab before this one on the same data dir), or
// creates it if it is gone.
func (k *Kubelet) takeOverLease(ctx context.Context, n *node, now metav1.MicroTime) (*coordinationv1.Lease, error) {
	leases := k.heartbeats.CoordinationV1().Leases(corev1.NamespaceNodeLease)
	lease, err := leases.Get(ctx, n.name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return leases.Create(ctx, &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: n.name, Namespace: corev1.NamespaceNodeLease},
			Spec: coordinationv1.LeaseSpec{
				HolderIdentity:       ptr.To(n.name),
				LeaseDurationSeconds: ptr.To(int32(40)),
				RenewTime:            &now,
			},
		}, metav1.CreateOptions{FieldManager: FieldManager})
	}
	if err != nil {
		return nil, err
	}
	lease.Spec.HolderIdentity = ptr.To(n.name)
	lease.Spec.RenewTime = &now
	return leases.Update(ctx, lease, metav1.UpdateOptions{FieldManager: FieldManager})
}
