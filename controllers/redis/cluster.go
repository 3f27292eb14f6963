package redis

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Name is the operator's name: its field manager, event source and
// controller name.
const Name = "redis-operator"

// Finalizer holds a deleted RedisCluster until the operator has deleted
// its RedisBackups: they name the cluster but are not owned by it, so the
// garbage collector would leave them behind.
const Finalizer = "samples.crdlab.dev/redis-backups"

// ConditionReady is true when every wanted node is ready and the slot map
// spreads the slots over every wanted shard.
const ConditionReady = "Ready"

// Slots is the number of hash slots of a Redis Cluster.
const Slots = 16384

// Ports of a Redis node.
const (
	ClientPort = 6379
	BusPort    = 16379
)

// ClusterReconciler keeps a StatefulSet, a headless Service, a client
// Service and a ConfigMap (configuration and slot map) for each
// RedisCluster.
//
// +kubebuilder:object:generate=false
type ClusterReconciler struct {
	Client   client.Client
	Recorder events.EventRecorder
}

// +kubebuilder:rbac:groups=samples.crdlab.dev,resources=redisclusters,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=samples.crdlab.dev,resources=redisclusters/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=samples.crdlab.dev,resources=redisbackups,verbs=get;list;watch;delete
// +kubebuilder:rbac:groups=apps,resources=statefulsets,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=services;configmaps,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile moves the cluster one safe step towards its spec and reports
// where it stands. Growing: the new Pods first, and only once they are all
// ready the slot map that gives them slots. Shrinking: the slot map first,
// moving the slots off the shards that go, and only then fewer Pods.
func (r *ClusterReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	rc := &RedisCluster{}
	if err := r.Client.Get(ctx, req.NamespacedName, rc); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !rc.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, r.finalize(ctx, rc)
	}
	if controllerutil.AddFinalizer(rc, Finalizer) {
		if err := r.Client.Update(ctx, rc); err != nil {
			return ctrl.Result{}, fmt.Errorf("adding finalizer: %w", err)
		}
	}

	if err := r.services(ctx, rc); err != nil {
		return ctrl.Result{}, err
	}

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: ConfigMapName(rc), Namespace: rc.Namespace}}
	if err := r.Client.Get(ctx, client.ObjectKeyFromObject(cm), cm); client.IgnoreNotFound(err) != nil {
		return ctrl.Result{}, fmt.Errorf("configmap %s: %w", cm.Name, err)
	}
	assigned := ShardsIn(cm)
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: rc.Name, Namespace: rc.Namespace}}
	if err := r.Client.Get(ctx, client.ObjectKeyFromObject(sts), sts); client.IgnoreNotFound(err) != nil {
		return ctrl.Result{}, fmt.Errorf("statefulset %s: %w", sts.Name, err)
	}

	want := rc.Spec.Shards
	slots, pods := Step(assigned, want, Grown(sts, want*NodesPerShard(rc)))
	// The slot map is written before the StatefulSet: when shrinking, the
	// slots must have left the shards whose Pods are about to go.
	if err := r.configMap(ctx, rc, cm, slots, assigned); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.statefulSet(ctx, rc, sts, pods*NodesPerShard(rc)); err != nil {
		return ctrl.Result{}, err
	}
	if slots == pods && slots != assigned && assigned != 0 && pods > assigned {
		// Grown in an earlier pass and rebalanced now.
		r.event(rc, "Rebalanced", "Spread the %d slots over %d shards", Slots, slots)
	}

	return ctrl.Result{}, r.status(ctx, rc, sts, slots, pods)
}

// NodesPerShard is a master and its replicas.
func NodesPerShard(rc *RedisCluster) int32 { return 1 + rc.Spec.ReplicasPerShard }

// Step decides the next safe step of the cluster: how many shards the slot
// map spreads the slots over (slots) and how many shards' Pods run (pods),
// given how many shards hold slots now (assigned, 0 for a new cluster),
// how many are wanted, and whether the StatefulSet already runs every wanted
// Pod, ready (grown).
func Step(assigned, want int32, grown bool) (slots, pods int32) {
	switch {
	case assigned == 0, want <= assigned:
		// A new cluster has no data to move; a smaller one moves its slots
		// first (the caller writes the slot map before the StatefulSet).
		return want, want
	case grown:
		// Every new node is ready: give it slots.
		return want, want
	default:
		// Start the new nodes; slots stay where they are until they are ready.
		return assigned, want
	}
}

// Grown reports whether the StatefulSet runs nodes Pods of its current
// template, all ready.
func Grown(sts *appsv1.StatefulSet, nodes int32) bool {
	s := sts.Status
	return sts.Generation != 0 && ptr.Deref(sts.Spec.Replicas, 1) == nodes && s.ObservedGeneration >= sts.Generation &&
		s.Replicas == nodes && s.ReadyReplicas == nodes && s.UpdatedReplicas == nodes
}

// ConfigMapName is the name of the cluster's ConfigMap.
func ConfigMapName(rc *RedisCluster) string { return rc.Name + "-config" }

// HeadlessServiceName is the name of the Service that gives each Pod a
// stable DNS name.
func HeadlessServiceName(rc *RedisCluster) string { return rc.Name + "-headless" }

// Labels are the labels of the cluster's objects and Pods.
func Labels(rc *RedisCluster) map[string]string {
	return map[string]string{
		"app.kubernetes.io/name":       "redis",
		"app.kubernetes.io/instance":   rc.Name,
		"app.kubernetes.io/managed-by": Name,
	}
}

func selector(rc *RedisCluster) map[string]string {
	return map[string]string{"app.kubernetes.io/name": "redis", "app.kubernetes.io/instance": rc.Name}
}

func (r *ClusterReconciler) services(ctx context.Context, rc *RedisCluster) error {
	headless := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: HeadlessServiceName(rc), Namespace: rc.Namespace}}
	op, err := controllerutil.CreateOrUpdate(ctx, r.Client, headless, func() error {
		headless.Labels = Labels(rc)
		headless.Spec.ClusterIP = corev1.ClusterIPNone
		headless.Spec.PublishNotReadyAddresses = true // nodes find each other before they are ready
		headless.Spec.Selector = selector(rc)
		headless.Spec.Ports = []corev1.ServicePort{
			{Name: "client", Port: ClientPort, TargetPort: intstr.FromString("client"), Protocol: corev1.ProtocolTCP},
			{Name: "bus", Port: BusPort, TargetPort: intstr.FromString("bus"), Protocol: corev1.ProtocolTCP},
		}
		return controllerutil.SetControllerReference(rc, headless, r.Client.Scheme())
	})
	if err != nil {
		return fmt.Errorf("service %s: %w", headless.Name, err)
	}
	r.recordOp(rc, op, "Service", headless.Name)

	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: rc.Name, Namespace: rc.Namespace}}
	op, err = controllerutil.CreateOrUpdate(ctx, r.Client, svc, func() error {
		svc.Labels = Labels(rc)
		svc.Spec.Selector = selector(rc)
		svc.Spec.Ports = []corev1.ServicePort{{Name: "client", Port: ClientPort, TargetPort: intstr.FromString("client"), Protocol: corev1.ProtocolTCP}}
		return controllerutil.SetControllerReference(rc, svc, r.Client.Scheme())
	})
	if err != nil {
		return fmt.Errorf("service %s: %w", svc.Name, err)
	}
	r.recordOp(rc, op, "Service", svc.Name)
	return nil
}

// ShardsIn returns the number of shards the slot map in the ConfigMap
// spreads the slots over; 0 when there is none yet.
func ShardsIn(cm *corev1.ConfigMap) int32 {
	n, err := strconv.ParseInt(cm.Data["shards"], 10, 32)
	if err != nil || n < 0 {
		return 0
	}
	return int32(n)
}

// SlotMap assigns the hash slots to shards in contiguous, near-equal
// ranges, and each shard its Pods: the master first, then its replicas.
func SlotMap(name string, shards, nodesPerShard int32) string {
	var b strings.Builder
	for s := range shards {
		first := Slots * int(s) / int(shards)
		last := Slots*int(s+1)/int(shards) - 1
		fmt.Fprintf(&b, "shard-%d slots %d-%d master %s-%d", s, first, last, name, s*nodesPerShard)
		for i := int32(1); i < nodesPerShard; i++ {
			if i == 1 {
				b.WriteString(" replicas")
			}
			fmt.Fprintf(&b, " %s-%d", name, s*nodesPerShard+i)
		}
		b.WriteString("\n")
	}
	return b.String()
}

const redisConf = `cluster-enabled yes
cluster-config-file /data/nodes.conf
cluster-node-timeout 5000
appendonly yes
port 6379
`

func (r *ClusterReconciler) configMap(ctx context.Context, rc *RedisCluster, cm *corev1.ConfigMap, shards, assigned int32) error {
	op, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		cm.Labels = Labels(rc)
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		cm.Data["redis.conf"] = redisConf
		cm.Data["shards"] = strconv.Itoa(int(shards))
		cm.Data["slots"] = SlotMap(rc.Name, shards, NodesPerShard(rc))
		return controllerutil.SetControllerReference(rc, cm, r.Client.Scheme())
	})
	if err != nil {
		return fmt.Errorf("configmap %s: %w", cm.Name, err)
	}
	switch {
	case op == controllerutil.OperationResultCreated:
		r.recordOp(rc, op, "ConfigMap", cm.Name)
	case shards < assigned:
		r.event(rc, "MovedSlots", "Moved the slots of shards %d-%d to the other %d shards before removing their Pods", shards, assigned-1, shards)
	}
	return nil
}

func (r *ClusterReconciler) statefulSet(ctx context.Context, rc *RedisCluster, sts *appsv1.StatefulSet, nodes int32) error {
	before := ptr.Deref(sts.Spec.Replicas, 0)
	op, err := controllerutil.CreateOrUpdate(ctx, r.Client, sts, func() error {
		sts.Labels = Labels(rc)
		sts.Spec.Replicas = ptr.To(nodes)
		if sts.CreationTimestamp.IsZero() { // immutable fields
			sts.Spec.ServiceName = HeadlessServiceName(rc)
			sts.Spec.Selector = &metav1.LabelSelector{MatchLabels: selector(rc)}
			// Redis Cluster nodes join in any order: start them together.
			sts.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
		}
		sts.Spec.Template.Labels = Labels(rc)
		pod := &sts.Spec.Template.Spec
		c := container(pod, "redis")
		c.Image = "redis:" + rc.Spec.Version
		c.Command = []string{"redis-server", "/etc/redis/redis.conf"}
		c.Ports = []corev1.ContainerPort{
			{Name: "client", ContainerPort: ClientPort, Protocol: corev1.ProtocolTCP},
			{Name: "bus", ContainerPort: BusPort, Protocol: corev1.ProtocolTCP},
		}
		c.Resources = rc.Spec.Resources
		c.VolumeMounts = []corev1.VolumeMount{{Name: "config", MountPath: "/etc/redis"}, {Name: "data", MountPath: "/data"}}
		if len(pod.Volumes) != 2 {
			pod.Volumes = []corev1.Volume{
				{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: ConfigMapName(rc)}}}},
				{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
			}
		}
		return controllerutil.SetControllerReference(rc, sts, r.Client.Scheme())
	})
	if err != nil {
		return fmt.Errorf("statefulset %s: %w", sts.Name, err)
	}
	switch {
	case op == controllerutil.OperationResultCreated:
		r.recordOp(rc, op, "StatefulSet", sts.Name)
	case nodes > before:
		r.event(rc, "ScalingUp", "Starting %d more Redis nodes; their shards get slots once they are ready", nodes-before)
	case nodes < before:
		r.event(rc, "ScalingDown", "Removing %d Redis nodes whose shards no longer hold slots", before-nodes)
	}
	return nil
}

func (r *ClusterReconciler) status(ctx context.Context, rc *RedisCluster, sts *appsv1.StatefulSet, slots, pods int32) error {
	base := rc.DeepCopy()
	nodes := rc.Spec.Shards * NodesPerShard(rc)
	st := &rc.Status
	st.ObservedGeneration = rc.Generation
	st.Shards = slots
	st.Nodes = sts.Status.Replicas
	st.ReadyNodes = sts.Status.ReadyReplicas
	st.Selector = labels.SelectorFromSet(selector(rc)).String()
	ready := slots == rc.Spec.Shards && Grown(sts, nodes)
	cond := metav1.Condition{Type: ConditionReady, ObservedGeneration: rc.Generation,
		Message: fmt.Sprintf("%d/%d nodes ready, slots over %d/%d shards", st.ReadyNodes, nodes, slots, rc.Spec.Shards)}
	switch {
	case ready:
		st.Phase, cond.Status, cond.Reason = PhaseReady, metav1.ConditionTrue, "ClusterReady"
	case slots < rc.Spec.Shards && base.Status.Phase != "":
		st.Phase, cond.Status, cond.Reason = PhaseScalingUp, metav1.ConditionFalse, "ScalingUp"
	case sts.Status.Replicas > pods*NodesPerShard(rc):
		st.Phase, cond.Status, cond.Reason = PhaseScalingDown, metav1.ConditionFalse, "ScalingDown"
	case base.Status.Phase == "" || base.Status.Phase == PhaseCreating:
		st.Phase, cond.Status, cond.Reason = PhaseCreating, metav1.ConditionFalse, "Creating"
	default:
		st.Phase, cond.Status, cond.Reason = PhaseDegraded, metav1.ConditionFalse, "NodesNotReady"
	}
	meta.SetStatusCondition(&st.Conditions, cond)
	if equality.Semantic.DeepEqual(base.Status, rc.Status) {
		return nil
	}
	if base.Status.Phase != st.Phase && st.Phase == PhaseReady {
		r.event(rc, "Ready", "%d shards × %d nodes ready", rc.Spec.Shards, NodesPerShard(rc))
	}
	if err := r.Client.Status().Patch(ctx, rc, client.MergeFrom(base)); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("status: %w", err)
	}
	return nil
}

// finalize deletes the cluster's RedisBackups, then lets the cluster go.
// What the cluster owns (StatefulSet, Services, ConfigMap) the garbage
// collector deletes; the backups only name it.
func (r *ClusterReconciler) finalize(ctx context.Context, rc *RedisCluster) error {
	if !controllerutil.ContainsFinalizer(rc, Finalizer) {
		return nil
	}
	if rc.Status.Phase != PhaseDeleting {
		base := rc.DeepCopy()
		rc.Status.Phase = PhaseDeleting
		if err := r.Client.Status().Patch(ctx, rc, client.MergeFrom(base)); err != nil {
			return client.IgnoreNotFound(err)
		}
	}
	var backups RedisBackupList
	if err := r.Client.List(ctx, &backups, client.InNamespace(rc.Namespace)); err != nil {
		return fmt.Errorf("listing backups: %w", err)
	}
	n := 0
	for i := range backups.Items {
		b := &backups.Items[i]
		if b.Spec.ClusterName != rc.Name || !b.DeletionTimestamp.IsZero() {
			continue
		}
		if err := r.Client.Delete(ctx, b, client.PropagationPolicy(metav1.DeletePropagationBackground)); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting backup %s: %w", b.Name, err)
		}
		n++
	}
	if n > 0 {
		r.event(rc, "DeletedBackups", "Deleted %d RedisBackups of the cluster", n)
	}
	controllerutil.RemoveFinalizer(rc, Finalizer)
	if err := r.Client.Update(ctx, rc); err != nil {
		return client.IgnoreNotFound(err)
	}
	return nil
}

// container returns the pod's container of that name, adding it if missing.
func container(pod *corev1.PodSpec, name string) *corev1.Container {
	for i := range pod.Containers {
		if pod.Containers[i].Name == name {
			return &pod.Containers[i]
		}
	}
	pod.Containers = append(pod.Containers, corev1.Container{Name: name})
	return &pod.Containers[len(pod.Containers)-1]
}

func (r *ClusterReconciler) recordOp(rc *RedisCluster, op controllerutil.OperationResult, kind, name string) {
	switch op {
	case controllerutil.OperationResultCreated:
		r.event(rc, "Created", "Created %s %s", kind, name)
	case controllerutil.OperationResultUpdated:
		r.event(rc, "Updated", "Updated %s %s", kind, name)
	}
}

func (r *ClusterReconciler) event(obj *RedisCluster, reason, format string, args ...any) {
	if r.Recorder != nil {
		r.Recorder.Eventf(obj, nil, corev1.EventTypeNormal, reason, "Reconcile", format, args...)
	}
}

// SetupWithManager registers the reconciler: it watches RedisClusters and
// what they own.
func (r *ClusterReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return r.SetupWithManagerAs(mgr, r)
}

// SetupWithManagerAs registers the reconciler's watches with rec, which
// calls r (a tracer, for instance), as the reconciler; preds see every
// event of every watch (to note what triggered a pass, for instance).
func (r *ClusterReconciler) SetupWithManagerAs(mgr ctrl.Manager, rec reconcile.Reconciler, preds ...predicate.Predicate) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named(Name).
		For(&RedisCluster{}, builder.WithPredicates(preds...)).
		Owns(&appsv1.StatefulSet{}, builder.WithPredicates(preds...)).
		Owns(&corev1.Service{}, builder.WithPredicates(preds...)).
		Owns(&corev1.ConfigMap{}, builder.WithPredicates(preds...)).
		WithOptions(controller.Options{MaxConcurrentReconciles: 4}).
		Complete(rec)
}
