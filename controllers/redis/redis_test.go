package redis

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

func TestStep(t *testing.T) {
	for _, tc := range []struct {
		assigned, want   int32
		grown            bool
		wantSlots, wantP int32
	}{
		{0, 3, false, 3, 3}, // new cluster: everything at once
		{3, 3, true, 3, 3},  // steady
		{3, 3, false, 3, 3}, // a node down: nothing to move
		{3, 5, false, 3, 5}, // growing: Pods first, slots stay
		{3, 5, true, 5, 5},  // grown: slots spread over the new shards
		{5, 3, true, 3, 3},  // shrinking: slots move off first (caller writes the map first)
		{5, 3, false, 3, 3},
	} {
		slots, pods := Step(tc.assigned, tc.want, tc.grown)
		if slots != tc.wantSlots || pods != tc.wantP {
			t.Errorf("Step(%d, %d, %v) = %d, %d; want %d, %d", tc.assigned, tc.want, tc.grown, slots, pods, tc.wantSlots, tc.wantP)
		}
	}
}

// Every slot belongs to exactly one shard, and every Pod to one shard.
func TestSlotMap(t *testing.T) {
	for shards := int32(1); shards <= 7; shards++ {
		m := SlotMap("c", shards, 3)
		lines := strings.Split(strings.TrimSuffix(m, "\n"), "\n")
		if len(lines) != int(shards) {
			t.Fatalf("%d shards: %d lines:\n%s", shards, len(lines), m)
		}
		next := 0
		for i, l := range lines {
			var s, first, last, master int
			if _, err := fmt.Sscanf(l, "shard-%d slots %d-%d master c-%d", &s, &first, &last, &master); err != nil {
				t.Fatalf("line %q: %v", l, err)
			}
			if s != i || first != next || last < first || master != 3*i {
				t.Errorf("line %q: want shard %d from slot %d, master c-%d", l, i, next, 3*i)
			}
			if !strings.HasSuffix(l, "replicas c-"+strconv.Itoa(3*i+1)+" c-"+strconv.Itoa(3*i+2)) {
				t.Errorf("line %q: wrong replicas", l)
			}
			next = last + 1
		}
		if next != Slots {
			t.Errorf("%d shards: slots end at %d, want %d", shards, next, Slots)
		}
	}
}

func newScheme(t *testing.T) *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

func cluster(shards int32) *RedisCluster {
	return &RedisCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "default", Generation: 1, Finalizers: []string{Finalizer}},
		Spec:       RedisClusterSpec{Shards: shards, ReplicasPerShard: 1, Version: "7.2"},
	}
}

func statefulSet(replicas, ready int32) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "default", Generation: 1},
		Spec:       appsv1.StatefulSetSpec{Replicas: ptr.To(replicas)},
		Status:     appsv1.StatefulSetStatus{ObservedGeneration: 1, Replicas: replicas, ReadyReplicas: ready, UpdatedReplicas: replicas},
	}
}

func configMap(shards int32) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c-config", Namespace: "default"},
		Data: map[string]string{"shards": strconv.Itoa(int(shards))}}
}

// The cluster reconciler's decisions, table-driven, against a fake client:
// what it writes into the slot map and the StatefulSet, and the phase it
// reports.
func TestClusterDecisions(t *testing.T) {
	for _, tc := range []struct {
		name        string
		spec        int32
		existing    []client.Object
		wantSlots   int32
		wantNodes   int32
		wantPhase   string
		wantReadyTF metav1.ConditionStatus
	}{
		{"new cluster", 3, nil, 3, 6, PhaseCreating, metav1.ConditionFalse},
		{"all nodes ready", 3, []client.Object{configMap(3), statefulSet(6, 6)}, 3, 6, PhaseReady, metav1.ConditionTrue},
		{"growing, new nodes not ready: slots stay", 4, []client.Object{configMap(3), statefulSet(6, 6)}, 3, 8, PhaseScalingUp, metav1.ConditionFalse},
		{"grown, all ready: slots spread", 4, []client.Object{configMap(3), statefulSet(8, 8)}, 4, 8, PhaseReady, metav1.ConditionTrue},
		{"shrinking: slots and Pods", 3, []client.Object{configMap(5), statefulSet(10, 10)}, 3, 6, PhaseScalingDown, metav1.ConditionFalse},
		{"a node not ready", 3, []client.Object{configMap(3), statefulSet(6, 5)}, 3, 6, PhaseDegraded, metav1.ConditionFalse},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := cluster(tc.spec)
			if tc.wantPhase == PhaseDegraded {
				rc.Status.Phase = PhaseReady // it was ready before
			}
			if len(tc.existing) > 0 && tc.wantPhase != PhaseDegraded {
				rc.Status.Phase = PhaseReady
			}
			c := fake.NewClientBuilder().WithScheme(newScheme(t)).WithObjects(append(tc.existing, rc)...).
				WithStatusSubresource(&RedisCluster{}, &appsv1.StatefulSet{}).Build()
			r := &ClusterReconciler{Client: c}
			if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(rc)}); err != nil {
				t.Fatalf("reconcile: %v", err)
			}
			var cm corev1.ConfigMap
			if err := c.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: "c-config"}, &cm); err != nil {
				t.Fatal(err)
			}
			if got := ShardsIn(&cm); got != tc.wantSlots {
				t.Errorf("slot map over %d shards, want %d", got, tc.wantSlots)
			}
			var sts appsv1.StatefulSet
			if err := c.Get(context.Background(), client.ObjectKeyFromObject(rc), &sts); err != nil {
				t.Fatal(err)
			}
			if got := *sts.Spec.Replicas; got != tc.wantNodes {
				t.Errorf("StatefulSet replicas %d, want %d", got, tc.wantNodes)
			}
			for _, name := range []string{"c", "c-headless"} {
				if err := c.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: name}, &corev1.Service{}); err != nil {
					t.Errorf("service %s: %v", name, err)
				}
			}
			got := &RedisCluster{}
			if err := c.Get(context.Background(), client.ObjectKeyFromObject(rc), got); err != nil {
				t.Fatal(err)
			}
			if got.Status.Phase != tc.wantPhase {
				t.Errorf("phase %q, want %q", got.Status.Phase, tc.wantPhase)
			}
			if cond := meta.FindStatusCondition(got.Status.Conditions, ConditionReady); cond == nil || cond.Status != tc.wantReadyTF {
				t.Errorf("Ready condition %+v, want %s", cond, tc.wantReadyTF)
			}
		})
	}
}

// A deleted cluster's finalizer deletes its backups, and only its.
func TestFinalizerDeletesBackups(t *testing.T) {
	rc := cluster(3)
	rc.DeletionTimestamp = ptr.To(metav1.Now())
	mine := &RedisBackup{ObjectMeta: metav1.ObjectMeta{Name: "mine", Namespace: "default"}, Spec: RedisBackupSpec{ClusterName: "c"}}
	other := &RedisBackup{ObjectMeta: metav1.ObjectMeta{Name: "other", Namespace: "default"}, Spec: RedisBackupSpec{ClusterName: "d"}}
	c := fake.NewClientBuilder().WithScheme(newScheme(t)).WithObjects(rc, mine, other).WithStatusSubresource(&RedisCluster{}).Build()
	r := &ClusterReconciler{Client: c}
	if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(rc)}); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(mine), &RedisBackup{}); err == nil {
		t.Error("the cluster's backup is still there")
	}
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(other), &RedisBackup{}); err != nil {
		t.Errorf("another cluster's backup: %v", err)
	}
	// The fake client deletes an object whose last finalizer goes.
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(rc), &RedisCluster{}); err == nil {
		t.Error("the finalizer was not removed")
	}
}

// The backup reconciler's decisions: wait for a Ready cluster, start a
// Job, record how it ended.
func TestBackupDecisions(t *testing.T) {
	readyCluster := cluster(3)
	readyCluster.Status = RedisClusterStatus{Phase: PhaseReady, Shards: 3}
	done := func(t batchv1.JobConditionType) *batchv1.Job {
		return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "b-backup", Namespace: "default"},
			Status: batchv1.JobStatus{Conditions: []batchv1.JobCondition{{Type: t, Status: corev1.ConditionTrue}}}}
	}
	for _, tc := range []struct {
		name      string
		existing  []client.Object
		wantPhase string
		wantJob   bool
	}{
		{"no cluster", nil, BackupPending, false},
		{"cluster not ready", []client.Object{cluster(3)}, BackupPending, false},
		{"cluster ready: a Job starts", []client.Object{readyCluster}, BackupRunning, true},
		{"job complete", []client.Object{readyCluster, done(batchv1.JobComplete)}, BackupSucceeded, true},
		{"job failed", []client.Object{readyCluster, done(batchv1.JobFailed)}, BackupFailed, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &RedisBackup{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "default"}, Spec: RedisBackupSpec{ClusterName: "c"}}
			c := fake.NewClientBuilder().WithScheme(newScheme(t)).WithObjects(append(tc.existing, b)...).
				WithStatusSubresource(&RedisBackup{}).Build()
			r := &BackupReconciler{Client: c}
			if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(b)}); err != nil {
				t.Fatal(err)
			}
			if err := c.Get(context.Background(), client.ObjectKeyFromObject(b), b); err != nil {
				t.Fatal(err)
			}
			if b.Status.Phase != tc.wantPhase {
				t.Errorf("phase %q (%s), want %q", b.Status.Phase, b.Status.Message, tc.wantPhase)
			}
			err := c.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: "b-backup"}, &batchv1.Job{})
			if (err == nil) != tc.wantJob {
				t.Errorf("job exists: %v, want %v", err == nil, tc.wantJob)
			}
		})
	}
}
