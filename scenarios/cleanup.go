package scenarios

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// track records an object the scenario created, to delete when it ends; a
// namespace also becomes one of the scenario's (its events are shown, its
// objects go with it).
func (r *runner) track(u *unstructured.Unstructured, namespace bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.created = append(r.created, u)
	if namespace {
		r.ours[u.GetName()] = true
	}
}

// deleting records that the scenario deletes an object, so the timeline
// names it as the deleter.
func (r *runner) deleting(kind, ns, name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.deleted[deletedKey(kind, ns, name)] = true
}

// watchNodes makes the timeline show the nodes (the scenario acts on one).
func (r *runner) watchNodes() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.nodeSeen = true
}

// undo records how to put back what a step changed in the lab.
func (r *runner) undo(f func(context.Context) error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopped = append(r.stopped, f)
}

// cleanup starts again what the scenario stopped, and deletes its
// namespaces and what it created outside them (a lesson's stay); it runs
// when the scenario ends, however it ends.
func (r *runner) cleanup() {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r.mu.Lock()
	undo, created := r.stopped, r.created
	r.mu.Unlock()
	if r.lesson() != nil {
		created = nil // the learner's to explore, and to build on
	}
	for _, f := range undo {
		_ = f(ctx) // starting what runs already does nothing
	}
	for i := len(created) - 1; i >= 0; i-- {
		u := created[i]
		if u.GetNamespace() != "" && r.ours[u.GetNamespace()] {
			continue // goes with its namespace
		}
		ri, _, err := r.resource(ctx, u.GetAPIVersion(), u.GetKind(), u.GetNamespace())
		if err != nil {
			continue
		}
		bg := metav1.DeletePropagationBackground
		_ = ri.Delete(ctx, u.GetName(), metav1.DeleteOptions{PropagationPolicy: &bg})
	}
}
