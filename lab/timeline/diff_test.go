package timeline

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// obj builds an object of kind whose managedFields hold one entry per
// manager[:subresource] given, in that order, the last one newest.
func obj(kind string, fields map[string]any, writers ...string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"kind": kind, "apiVersion": "v1"}}
	for k, v := range fields {
		u.Object[k] = v
	}
	u.SetName("x")
	u.SetNamespace("default")
	var mfs []metav1.ManagedFieldsEntry
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, w := range writers {
		manager, sub := w, ""
		if len(w) > 7 && w[len(w)-7:] == ":status" {
			manager, sub = w[:len(w)-7], "status"
		}
		t := metav1.NewTime(base.Add(time.Duration(i) * time.Second))
		mfs = append(mfs, metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate, Subresource: sub, Time: &t})
	}
	u.SetManagedFields(mfs)
	return u
}

func TestUpdateEvent(t *testing.T) {
	rsOwned := func(u *unstructured.Unstructured) *unstructured.Unstructured {
		u.SetOwnerReferences([]metav1.OwnerReference{{Kind: "ReplicaSet", Name: "web-1", Controller: ptrTrue()}})
		return u
	}
	for _, tc := range []struct {
		name            string
		old, cur        *unstructured.Unstructured
		wantChanged     bool
		wantVerb, actor string
		wantDetail      string
	}{
		{
			name:        "scheduler binds a pod",
			old:         rsOwned(obj("Pod", map[string]any{"spec": map[string]any{}}, "kube-controller-manager")),
			cur:         rsOwned(obj("Pod", map[string]any{"spec": map[string]any{"nodeName": "lab-node-2"}}, "kube-controller-manager", "kube-scheduler")),
			wantChanged: true, wantVerb: Bind, actor: "scheduler", wantDetail: "→ node/lab-node-2",
		},
		{
			name:        "a binding leaves no managedFields entry: the pod names its scheduler",
			old:         rsOwned(obj("Pod", map[string]any{"spec": map[string]any{"schedulerName": "default-scheduler"}}, "kube-controller-manager")),
			cur:         rsOwned(obj("Pod", map[string]any{"spec": map[string]any{"schedulerName": "default-scheduler", "nodeName": "lab-node-1"}}, "kube-controller-manager")),
			wantChanged: true, wantVerb: Bind, actor: "scheduler", wantDetail: "→ node/lab-node-1",
		},
		{
			name: "simulated kubelet runs a pod",
			old:  obj("Pod", map[string]any{"status": map[string]any{"phase": "Pending"}}, "kube-scheduler"),
			cur: obj("Pod", map[string]any{"status": map[string]any{"phase": "Running", "conditions": []any{
				map[string]any{"type": "Ready", "status": "True"},
			}}}, "kube-scheduler", "crdlab-kubelet:status"),
			wantChanged: true, wantVerb: Status, actor: "kubelet (simulated)", wantDetail: "Running, Ready",
		},
		{
			name:        "you scale a deployment",
			old:         obj("Deployment", map[string]any{"spec": map[string]any{"replicas": int64(3)}}, "kubectl-create"),
			cur:         obj("Deployment", map[string]any{"spec": map[string]any{"replicas": int64(10)}}, "kubectl-create", "kubectl-scale"),
			wantChanged: true, wantVerb: Update, actor: "you (kubectl)", wantDetail: "spec.replicas 3→10",
		},
		{
			name:        "deployment controller writes status",
			old:         obj("Deployment", map[string]any{"status": map[string]any{"replicas": int64(3)}}, "kubectl-create"),
			cur:         obj("Deployment", map[string]any{"status": map[string]any{"replicas": int64(10)}}, "kubectl-create", "kube-controller-manager:status"),
			wantChanged: true, wantVerb: Status, actor: "deployment", wantDetail: "status.replicas 3→10",
		},
		{
			name:        "a status write that left managedFields as they were is the status writer's",
			old:         obj("WebApp", map[string]any{"status": map[string]any{"availableReplicas": int64(1)}}, "webapp-operator:status", "kubectl-client-side-apply"),
			cur:         obj("WebApp", map[string]any{"status": map[string]any{"availableReplicas": int64(2)}}, "webapp-operator:status", "kubectl-client-side-apply"),
			wantChanged: true, wantVerb: Status, actor: "webapp-operator", wantDetail: "status.availableReplicas 1→2",
		},
		{
			name:        "only bookkeeping changed",
			old:         obj("ConfigMap", map[string]any{"data": map[string]any{"a": "1"}}, "kubectl-create"),
			cur:         obj("ConfigMap", map[string]any{"data": map[string]any{"a": "1"}}, "kubectl-create", "kubectl-edit"),
			wantChanged: false,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, changed := updateEvent(tc.cur.GetKind(), tc.old, tc.cur)
			if changed != tc.wantChanged {
				t.Fatalf("changed = %v, want %v (event %+v)", changed, tc.wantChanged, e)
			}
			if !changed {
				return
			}
			if e.Verb != tc.wantVerb || e.Actor != tc.actor || e.Detail != tc.wantDetail {
				t.Errorf("got verb %q actor %q detail %q\nwant verb %q actor %q detail %q",
					e.Verb, e.Actor, e.Detail, tc.wantVerb, tc.actor, tc.wantDetail)
			}
		})
	}
}

func TestCreateActorIsTheOwnersController(t *testing.T) {
	pod := obj("Pod", nil, "kube-controller-manager")
	pod.SetOwnerReferences([]metav1.OwnerReference{{Kind: "ReplicaSet", Name: "web-1", Controller: ptrTrue()}})
	if e := objectEvent(Create, "Pod", pod); e.Actor != "replicaset" || e.Object() != "pod/x" {
		t.Errorf("got actor %q object %q, want replicaset pod/x", e.Actor, e.Object())
	}
}

func TestDeleteOfABoundPodIsTheKubeletsConfirmation(t *testing.T) {
	pod := obj("Pod", map[string]any{"spec": map[string]any{"nodeName": "lab-node-1"}}, "kube-controller-manager")
	now := metav1.Now()
	pod.SetDeletionTimestamp(&now)
	e := objectEvent(Delete, "Pod", pod)
	if e.Actor != "kubelet" || e.Detail != "confirmed by node/lab-node-1" {
		t.Errorf("got actor %q detail %q", e.Actor, e.Detail)
	}
	if e := objectEvent(Delete, "ConfigMap", obj("ConfigMap", nil, "kubectl-create")); e.Actor != "?" {
		t.Errorf("a ConfigMap's deleter is unknown to a watch; got actor %q", e.Actor)
	}
}

func ptrTrue() *bool { b := true; return &b }

// A key removed from a map another client owns (the learner's kubectl
// taking bob's entry out of the directory its Operator writes) leaves the
// remover no managedFields entry and the owner's entry changed but not
// dated: the line says what was removed, and is not sure of its writer
// (the audit log names it); a write that dates its writer's entry is sure.
func TestUpdateEventOfARemoval(t *testing.T) {
	fieldsOf := func(keys ...string) *metav1.FieldsV1 {
		raw := `{"f:data":{`
		for i, k := range keys {
			if i > 0 {
				raw += ","
			}
			raw += `"f:` + k + `":{}`
		}
		return metav1.NewFieldsV1(raw + "}}")
	}
	dir := func(owned *metav1.FieldsV1, at time.Time, data map[string]any) *unstructured.Unstructured {
		u := obj("ConfigMap", map[string]any{"data": data})
		ts := metav1.NewTime(at)
		u.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "user-operator", Operation: metav1.ManagedFieldsOperationUpdate, Time: &ts, FieldsType: "FieldsV1", FieldsV1: owned}})
		return u
	}
	t0 := time.Date(2026, 12, 7, 2, 0, 0, 0, time.UTC)
	before := dir(fieldsOf("alice", "bob"), t0, map[string]any{"alice": "1001", "bob": "1002"})
	byHand := dir(fieldsOf("alice"), t0, map[string]any{"alice": "1001"})
	e, changed := updateEvent("ConfigMap", before, byHand)
	if !changed || !e.writerUnsure || e.Removed != "data.bob" {
		t.Errorf("bob's key taken out by another client: changed %v, unsure %v, removed %q; want changed, unsure, [data.bob]", changed, e.writerUnsure, e.Removed)
	}
	byOperator := dir(fieldsOf("alice"), t0.Add(time.Minute), map[string]any{"alice": "1001"})
	e, _ = updateEvent("ConfigMap", before, byOperator)
	if e.writerUnsure || e.Actor != "user-operator" || e.Removed != "data.bob" {
		t.Errorf("bob's key taken out by the Operator, its entry dated: unsure %v, actor %q, removed %q; want sure, user-operator, [data.bob]", e.writerUnsure, e.Actor, e.Removed)
	}
	added := dir(fieldsOf("alice", "bob", "carol"), t0.Add(time.Minute), map[string]any{"alice": "1001", "bob": "1002", "carol": "1003"})
	if e, _ := updateEvent("ConfigMap", before, added); e.writerUnsure || e.Removed != "" {
		t.Errorf("carol's key added: unsure %v, removed %q; want sure, none", e.writerUnsure, e.Removed)
	}
}
