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

// A deletion held by finalizers has two authors: who asked for it and who
// took the last finalizer off. A check's by holds when either is its
// actor, its notBy when neither is; a deletion asked for by crdlab and
// ended by the learner's Operator is not the learner's.
func TestDeletedByReadsTheRequestToo(t *testing.T) {
	line := func(verb, actor, detail string, rev int64) timeline.Event {
		return timeline.Event{Verb: verb, Kind: "User", Namespace: "a", Name: "alice", Actor: actor, Detail: detail, Revision: rev}
	}
	ref := &format.ObjectRef{APIVersion: "auth.ilinux.io/v1beta1", Kind: "User", Name: "alice", Namespace: "a"}
	for _, tc := range []struct {
		asker, ender string
		check        format.Check
		pass         bool
	}{
		{"you (kubectl)", "user-operator", format.Check{By: ActorLearner}, true},
		{"you (kubectl)", "user-operator", format.Check{By: ActorLearnerController}, true},
		{"you (scenario)", "user-operator", format.Check{By: ActorLearner}, false},
		{"you (kubectl)", "you (kubectl)", format.Check{By: ActorLearnerController}, false},
		{"you (scenario)", "user-operator", format.Check{NotBy: []string{ActorCrdlab}}, false},
		{"you (kubectl)", "user-operator", format.Check{NotBy: []string{ActorCrdlab}}, true},
		// Kubernetes' components and the kubelet that end a deletion
		// someone asked for carry it out (the garbage collector's
		// foregroundDeletion, the kubelet's last step of a Pod's): a
		// learner's kubectl delete --cascade=foreground of what the
		// garbage collector should delete is the learner's deletion.
		{"you (kubectl)", "garbage collector", format.Check{By: ActorGarbageCollector}, false},
		{"you (kubectl)", "garbage collector", format.Check{By: ActorLearner}, true},
		{"you (kubectl)", "pvc-protection", format.Check{By: ActorKubernetes}, false},
		{"garbage collector", "kubelet (simulated)", format.Check{By: ActorGarbageCollector, NotBy: []string{ActorCrdlab}}, true},
		{"you (scenario)", "garbage collector", format.Check{NotBy: []string{ActorCrdlab}}, false},
	} {
		r := newTestRunner(t)
		r.recordDeletion(line(timeline.Create, "you (kubectl)", "", 10))
		r.recordDeletion(line(timeline.Delete, tc.asker, "deletion requested (graceful)", 11))
		r.recordDeletion(line(timeline.Delete, tc.ender, "", 12))
		c := tc.check
		c.Expect = &format.Expect{Resource: ref, Absent: true}
		why := r.deletedBy(&c)
		if (why == "") != tc.pass {
			t.Errorf("asked by %s, ended by %s, by %q notBy %q: %q, want pass %v", tc.asker, tc.ender, c.By, c.NotBy, why, tc.pass)
		}
	}
}

func newTestRunner(t *testing.T) *runner {
	t.Helper()
	return &runner{s: &Scenario{}, ns: "a", deletions: map[string]timeline.Event{}, asked: map[string]timeline.Event{}}
}

// Who took a field out of an object is in no managedFields entry: the
// runner keeps the line of the write that removed it (its Removed), found
// by the field or a field that held it, forgotten when the object is made
// again.
func TestRemovalIsTheLineThatTookTheFieldOut(t *testing.T) {
	r := &runner{}
	line := func(verb, actor string, removed ...string) timeline.Event {
		return timeline.Event{Verb: verb, Kind: "ConfigMap", Namespace: "a", Name: "user-directory", Actor: actor, Removed: strings.Join(removed, " ")}
	}
	r.recordRemovals(line(timeline.Create, "you (scenario)"))
	r.recordRemovals(line(timeline.Update, "you (kubectl)", "data.bob"))
	r.recordRemovals(line(timeline.Update, "user-operator")) // writes alice's entry again: removes nothing
	if e, ok := r.removal("ConfigMap", "a", "user-directory", "data.bob"); !ok || e.Actor != "you (kubectl)" {
		t.Errorf("data.bob removed by: %+v, %v; want the kubectl line", e, ok)
	}
	r.recordRemovals(line(timeline.Update, "user-operator", "data"))
	if e, ok := r.removal("ConfigMap", "a", "user-directory", "data.carol"); !ok || e.Actor != "user-operator" {
		t.Errorf("data.carol, in the data taken out whole: %+v, %v; want the Operator's line", e, ok)
	}
	if e, ok := r.removal("ConfigMap", "a", "other", "data.bob"); ok {
		t.Errorf("another object's data.bob: %+v, want none", e)
	}
	r.recordRemovals(line(timeline.Create, "you (scenario)"))
	if e, ok := r.removal("ConfigMap", "a", "user-directory", "data.bob"); ok {
		t.Errorf("the directory made again: data.bob removed by %+v, want none", e)
	}
}

// The two lines of a deletion held by finalizers each wait for the audit
// log on their own: the line of its end (named by the Operator's write)
// can come before the line of its start (named by the learner's request).
// The start, come late, does not hide the end: the check reads both.
func TestRecordDeletionKeepsTheEndBeforeTheStart(t *testing.T) {
	r := &runner{deletions: map[string]timeline.Event{}}
	line := func(actor, detail string, rev int64) timeline.Event {
		return timeline.Event{Verb: timeline.Delete, Kind: "User", Namespace: "a", Name: "bob", Actor: actor, Detail: detail, Revision: rev}
	}
	r.recordDeletion(timeline.Event{Verb: timeline.Create, Kind: "User", Namespace: "a", Name: "bob", Actor: "you (kubectl)", Revision: 5})
	r.recordDeletion(line("user-operator", "", 12))
	r.recordDeletion(line("you (kubectl)", "deletion requested (graceful)", 10))
	key := deletedKey("User", "a", "bob")
	if e := r.deletions[key]; e.Actor != "user-operator" {
		t.Errorf("bob's deletion: %+v, want the line of its end (revision 12, user-operator)", e)
	}
	if e := r.asked[key]; e.Actor != "you (kubectl)" {
		t.Errorf("who asked for bob's deletion: %+v, want you (kubectl)", e)
	}
}

// A create line can come after the lines of the object's deletion: a list
// after a broken watch tells what it finds as created, and that line
// waits for the audit log to date it. It is the same object, not one made
// since: the deletion stays known.
func TestRecordDeletionKeepsItAfterALateCreate(t *testing.T) {
	r := &runner{deletions: map[string]timeline.Event{}}
	key := deletedKey("User", "a", "bob")
	r.recordDeletion(timeline.Event{Verb: timeline.Delete, Kind: "User", Namespace: "a", Name: "bob", Actor: "you (kubectl)", Detail: "deletion requested (graceful)", Revision: 10})
	r.recordDeletion(timeline.Event{Verb: timeline.Delete, Kind: "User", Namespace: "a", Name: "bob", Actor: "user-operator", Revision: 12})
	r.recordDeletion(timeline.Event{Verb: timeline.Create, Kind: "User", Namespace: "a", Name: "bob", Actor: "you (kubectl)", Revision: 9}) // late
	if e := r.deletions[key]; e.Actor != "user-operator" {
		t.Errorf("bob's deletion after a late create line: %+v, want the line of its end (revision 12, user-operator)", e)
	}
	if e := r.asked[key]; e.Actor != "you (kubectl)" {
		t.Errorf("who asked for bob's deletion after a late create line: %+v, want you (kubectl)", e)
	}
	r.recordDeletion(timeline.Event{Verb: timeline.Create, Kind: "User", Namespace: "a", Name: "bob", Actor: "you (kubectl)", Revision: 14})
	if e, ok := r.deletions[key]; ok {
		t.Errorf("bob made again (revision 14): a deletion is still known: %+v", e)
	}
}
