package scenarios

import (
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crdlab/crdlab/lab/timeline"
	"github.com/crdlab/crdlab/scenarios/format"
)

// Each writer a check can meet is the actor its by names: from a field
// manager (managedFields) and from a timeline line (the audit log's user
// and user agent, in the timeline's words).
func TestActors(t *testing.T) {
	for _, tc := range []struct{ manager, line, want string }{
		{"kubectl-client-side-apply", "you (kubectl)", ActorLearner},
		{"kubectl-edit", "you (kubectl)", ActorLearner},
		{"kubectl", "you (kubectl)", ActorLearner},
		{"user-operator", "user-operator", ActorLearnerController},         // the operator lesson's go run
		{"user-configmaps", "user-configmaps", ActorLearnerController},     // reconcile-loop's
		{"scenarios.test", "scenarios.test", ActorLearnerController},       // the answer tables' controllers
		{"crdlab-scenario", "you (scenario)", ActorCrdlab},                 // the lesson's own steps
		{"crdlab", "crdlab", ActorCrdlab},                                  // the lab's own objects
		{"crdlab-kubelet", "kubelet (simulated)", ActorCrdlab},             // the simulated kubelet
		{"webapp-operator", "webapp-operator", "webapp-operator"},          // a lab operator, by its name
		{"kube-controller-manager", "controller-manager", ActorKubernetes}, // Kubernetes' own
		{"kube-scheduler", "scheduler", ActorKubernetes},
		// The storage version migrator (1.37 on): it rewrites the objects,
		// and its migration runner applies the CRD's storedVersions.
		{"storage-version-migrator-controller", "storage-version-migrator", ActorKubernetes},
		{"migration-runner-controller", "storage-version-migrator", ActorKubernetes},
		{"", "?", ""},
	} {
		if got := actorOfManager(tc.manager); got != tc.want {
			t.Errorf("manager %q: %q, want %q", tc.manager, got, tc.want)
		}
		if got := actorOfLine(tc.line); got != tc.want {
			t.Errorf("line %q: %q, want %q", tc.line, got, tc.want)
		}
	}
	for _, gc := range []string{"garbage collector"} {
		if got := actorOfLine(gc); got != ActorGarbageCollector {
			t.Errorf("line %q: %q", gc, got)
		}
	}
	for _, ns := range []string{"namespace", "deployment", "replicaset"} {
		if got := actorOfLine(ns); got != ActorKubernetes {
			t.Errorf("line %q (a kube-controller-manager controller): %q", ns, got)
		}
	}
	// Every actor of the format is one the runner knows.
	known := append([]string{ActorLearner, ActorLearnerController, ActorGarbageCollector, ActorKubernetes, ActorCrdlab}, labOperators...)
	for _, a := range format.Actors() {
		if !slices.Contains(known, a) {
			t.Errorf("format's actor %q: the runner does not know it", a)
		}
	}
}

// The writers of a field are the managers whose managedFields hold it or a
// field within it; the fields of a partial object are its leaves, lists
// whole, without what names the object.
func TestManagersOfFields(t *testing.T) {
	cm := &unstructured.Unstructured{}
	cm.SetManagedFields([]metav1.ManagedFieldsEntry{
		{Manager: "kubectl-client-side-apply", Operation: metav1.ManagedFieldsOperationUpdate, FieldsType: "FieldsV1",
			FieldsV1: metav1.NewFieldsV1(`{"f:data":{".":{},"f:userID":{},"f:email":{}}}`)},
		{Manager: "user-configmaps", Operation: metav1.ManagedFieldsOperationUpdate, FieldsType: "FieldsV1",
			FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{"f:ownerReferences":{".":{},"k:{\"uid\":\"1\"}":{}}},"f:data":{"f:groups":{}}}`)},
		{Manager: "user-operator", Operation: metav1.ManagedFieldsOperationUpdate, Subresource: "status", FieldsType: "FieldsV1",
			FieldsV1: metav1.NewFieldsV1(`{"f:status":{"f:conditions":{}}}`)},
	})
	for _, tc := range []struct{ path, want string }{
		{"data.userID", "kubectl-client-side-apply"},
		{"data.groups", "user-configmaps"},
		{"data", "kubectl-client-side-apply user-configmaps"},
		{"metadata.ownerReferences", "user-configmaps"},
		{"status", "user-operator"},
		{"spec", ""},
		{"", "kubectl-client-side-apply user-configmaps user-operator"},
	} {
		var path []string
		if tc.path != "" {
			path = strings.Split(tc.path, ".")
		}
		if got := strings.Join(managersOf(cm, path), " "); got != tc.want {
			t.Errorf("writers of %q: %q, want %q", tc.path, got, tc.want)
		}
	}
	want := map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "user-alice", "ownerReferences": []any{map[string]any{"kind": "User"}}},
		"data":     map[string]any{"userID": "1001", "email": "a@b"}}
	var got []string
	for _, p := range leafPaths(want, nil) {
		got = append(got, strings.Join(p, "."))
	}
	if strings.Join(got, " ") != "data.email data.userID metadata.ownerReferences" {
		t.Errorf("leaf paths: %q", got)
	}
}

// A check's by wants its actor among the writers; its notBy, none of its
// actors.
func TestWants(t *testing.T) {
	for _, tc := range []struct {
		by     string
		notBy  []string
		actors []string
		want   bool
	}{
		{ActorGarbageCollector, nil, []string{ActorGarbageCollector}, true},
		{ActorGarbageCollector, nil, []string{ActorLearner}, false},
		{ActorLearnerController, nil, []string{ActorLearner, ActorLearnerController}, true},
		{"", []string{ActorCrdlab}, []string{ActorLearner}, true},
		{"", []string{ActorCrdlab}, []string{ActorLearner, ActorCrdlab}, false},
		{ActorLearnerController, []string{ActorLearner}, []string{ActorLearner, ActorLearnerController}, false},
	} {
		if got := wants(&format.Check{By: tc.by, NotBy: tc.notBy}, tc.actors); got != tc.want {
			t.Errorf("by %q, notBy %q, writers %q: %v, want %v", tc.by, tc.notBy, tc.actors, got, tc.want)
		}
	}
}

// The end of a deletion held by finalizers waits for the audit log to name
// who took the last finalizer off, so its line can come after the line of
// an object of the same name created since: that line is not the new
// object's deletion.
func TestRecordDeletionKeepsTheObjectCreatedSince(t *testing.T) {
	r := &runner{deletions: map[string]timeline.Event{}}
	line := func(verb, actor string, rev int64) timeline.Event {
		return timeline.Event{Verb: verb, Kind: "User", Namespace: "a", Name: "bob", Actor: actor, Revision: rev}
	}
	r.recordDeletion(line(timeline.Delete, "you (kubectl)", 10))
	r.recordDeletion(line(timeline.Create, "you (scenario)", 14))
	r.recordDeletion(line(timeline.Delete, "you (scenario)", 12)) // the end of the bob before, late
	if e, ok := r.deletions[deletedKey("User", "a", "bob")]; ok {
		t.Fatalf("the new bob's deletion: %+v, want none (it is not deleted)", e)
	}
	r.recordDeletion(line(timeline.Delete, "user-operator", 20))
	if e := r.deletions[deletedKey("User", "a", "bob")]; e.Actor != "user-operator" {
		t.Errorf("the new bob's deletion: %+v, want the line of revision 20", e)
	}
}
