package kubelet

import (
	"context"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
)

// kubeletVersion is what the simulated nodes report.
const kubeletVersion = "v1.37.2-crdlab"

// node is one simulated node.
type node struct {
	name    string
	index   int
	running bool
	nextIP  int // last host part handed out to a Pod
}

// register creates the Node, or takes over an existing one (a lab restarted
// on the same data dir), and sets its status Ready.
func (k *Kubelet) register(ctx context.Context, n *node) error {
	want := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: n.name,
			Labels: map[string]string{
				"kubernetes.io/hostname": n.name,
				"kubernetes.io/os":       "linux",
				"kubernetes.io/arch":     "amd64",
				"crdlab.dev/simulated":   "true",
			},
		},
	}
	_, err := k.client.CoreV1().Nodes().Create(ctx, want, metav1.CreateOptions{FieldManager: FieldManager})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("unable to register node %s: %w", n.name, err)
	}
	if err := k.updateNodeStatus(ctx, n); err != nil {
		return err
	}
	return k.renewLease(ctx, n)
}

// updateNodeStatus writes a Ready status with capacity, addresses and the
// node's info, as a kubelet does on its status heartbeat. It reads the node
// again and retries when another writer changed it meanwhile (the node
// lifecycle controller tainting a node that was just registered).
func (k *Kubelet) updateNodeStatus(ctx context.Context, n *node) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error { return k.writeNodeStatus(ctx, n) })
}

func (k *Kubelet) writeNodeStatus(ctx context.Context, n *node) error {
	cur, err := k.client.CoreV1().Nodes().Get(ctx, n.name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("unable to read node %s: %w", n.name, err)
	}
	now := metav1.Now()
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
		{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("10.89.0.%d", n.index)},
		{Type: corev1.NodeHostName, Address: n.name},
	}
	cur.Status.NodeInfo = corev1.NodeSystemInfo{
		MachineID:               n.name,
		KernelVersion:           "simulated",
		OSImage:                 "crdlab simulated node",
		ContainerRuntimeVersion: "simulated://1.0",
		KubeletVersion:          kubeletVersion,
		OperatingSystem:         "linux",
		Architecture:            "amd64",
	}
	cur.Status.DaemonEndpoints = corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}}
	if _, err := k.client.CoreV1().Nodes().UpdateStatus(ctx, cur, metav1.UpdateOptions{FieldManager: FieldManager}); err != nil {
		return fmt.Errorf("unable to update status of node %s: %w", n.name, err)
	}
	return nil
}

// renewLease creates or renews the node's Lease in kube-node-lease, the
// heartbeat the node lifecycle controller watches.
func (k *Kubelet) renewLease(ctx context.Context, n *node) error {
	leases := k.client.CoordinationV1().Leases(corev1.NamespaceNodeLease)
	now := metav1.NewMicroTime(time.Now())
	lease, err := leases.Get(ctx, n.name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, err = leases.Create(ctx, &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: n.name, Namespace: corev1.NamespaceNodeLease},
			Spec: coordinationv1.LeaseSpec{
				HolderIdentity:       ptr.To(n.name),
				LeaseDurationSeconds: ptr.To(int32(40)),
				RenewTime:            &now,
			},
		}, metav1.CreateOptions{FieldManager: FieldManager})
		return err
	}
	if err != nil {
		return err
	}
	lease.Spec.HolderIdentity = ptr.To(n.name)
	lease.Spec.RenewTime = &now
	_, err = leases.Update(ctx, lease, metav1.UpdateOptions{FieldManager: FieldManager})
	return err
}

// statusEvery is how often a running node rewrites its Ready status even
// when nothing changed (a kubelet's nodeStatusReportFrequency).
const statusEvery = time.Minute

// heartbeat renews the leases of running nodes until ctx is done.
func (k *Kubelet) heartbeat(ctx context.Context) {
	tick := time.NewTicker(k.opts.LeaseRenewInterval)
	defer tick.Stop()
	lastStatus := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		refreshStatus := time.Since(lastStatus) > statusEvery
		if refreshStatus {
			lastStatus = time.Now()
		}
		for _, name := range k.NodeNames() {
			n, running := k.nodeRunning(name)
			if !running {
				continue
			}
			if err := k.renewLease(ctx, n); err != nil {
				k.opts.Logger.V(1).Info("simulated kubelet: lease renewal failed", "node", name, "error", err.Error())
			}
			if refreshStatus {
				if err := k.updateNodeStatus(ctx, n); err != nil {
					k.opts.Logger.V(1).Info("simulated kubelet: status update failed", "node", name, "error", err.Error())
				}
			}
		}
	}
}
