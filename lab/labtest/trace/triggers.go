package trace

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crdlab/crdlab/lab/labtest/control"
)

// The changes a trigger names.
const (
	created        = "created"
	specChanged    = "spec changed"
	updated        = "status or metadata updated"
	beingDeleted   = "being deleted"
	deleted        = "deleted"
	genericEvent   = "event"
	mostPerPass    = 4 // a pass woken by a burst names its first few causes
	moreThanShown  = "…"
	unknownKindFor = "object"
)

// triggers remembers, for each request, the watch events that queued it:
// the work queue merges them into one pass, the pass names them.
type triggers struct {
	scheme *runtime.Scheme

	mu      sync.Mutex
	pending map[types.NamespacedName][]control.Trigger
	running map[types.NamespacedName][]control.Trigger
}

func newTriggers(scheme *runtime.Scheme) *triggers {
	return &triggers{
		scheme:  scheme,
		pending: map[types.NamespacedName][]control.Trigger{},
		running: map[types.NamespacedName][]control.Trigger{},
	}
}

// change says what an update event did to its object.
func change(old, new client.Object) string {
	switch {
	case new.GetDeletionTimestamp() != nil && old.GetDeletionTimestamp() == nil:
		return beingDeleted
	case new.GetGeneration() != old.GetGeneration():
		return specChanged
	}
	return updated
}

// note files what happened to obj under the request key.
func (t *triggers) note(key types.NamespacedName, obj client.Object, what string) {
	tr := control.Trigger{Kind: kindOf(obj, t.scheme), Namespace: obj.GetNamespace(), Name: obj.GetName(), Change: what}
	t.mu.Lock()
	defer t.mu.Unlock()
	got := t.pending[key]
	switch {
	case len(got) < mostPerPass:
		for _, seen := range got {
			if seen == tr {
				return // the same change again: named once
			}
		}
		t.pending[key] = append(got, tr)
	case len(got) == mostPerPass:
		t.pending[key] = append(got, control.Trigger{Change: moreThanShown})
	}
}

// start moves the request's triggers aside as its pass begins: events that
// come during the pass queue the next one.
func (t *triggers) start(req reconcile.Request) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.running[req.NamespacedName] = t.pending[req.NamespacedName]
	delete(t.pending, req.NamespacedName)
}

// take returns what woke the pass of req that has just ended.
func (t *triggers) take(req reconcile.Request) []control.Trigger {
	t.mu.Lock()
	defer t.mu.Unlock()
	got := t.running[req.NamespacedName]
	delete(t.running, req.NamespacedName)
	return got
}

// handler wraps the handler of a watch: each request it queues for an
// event is filed with that event. Without triggers (no lab), h as it is.
func (t *triggers) handler(h handler.EventHandler) handler.EventHandler {
	if t == nil {
		return h
	}
	return notingHandler{inner: h, t: t}
}

type queue = workqueue.TypedRateLimitingInterface[reconcile.Request]

type notingHandler struct {
	inner handler.EventHandler
	t     *triggers
}

func (h notingHandler) Create(ctx context.Context, e event.CreateEvent, q queue) {
	h.inner.Create(ctx, e, h.t.queue(q, e.Object, created))
}

func (h notingHandler) Update(ctx context.Context, e event.UpdateEvent, q queue) {
	h.inner.Update(ctx, e, h.t.queue(q, e.ObjectNew, change(e.ObjectOld, e.ObjectNew)))
}

func (h notingHandler) Delete(ctx context.Context, e event.DeleteEvent, q queue) {
	h.inner.Delete(ctx, e, h.t.queue(q, e.Object, deleted))
}

func (h notingHandler) Generic(ctx context.Context, e event.GenericEvent, q queue) {
	h.inner.Generic(ctx, e, h.t.queue(q, e.Object, genericEvent))
}

// queue is q, noting each request added for obj's event. A priority queue
// stays one, so that a handler still adds with its priority.
func (t *triggers) queue(q queue, obj client.Object, what string) queue {
	n := noter{t: t, obj: obj, what: what}
	if pq, ok := q.(priorityqueue.PriorityQueue[reconcile.Request]); ok {
		return notingPriorityQueue{PriorityQueue: pq, noter: n}
	}
	return notingQueue{TypedRateLimitingInterface: q, noter: n}
}

type noter struct {
	t    *triggers
	obj  client.Object
	what string
}

func (n noter) add(reqs ...reconcile.Request) {
	for _, r := range reqs {
		n.t.note(r.NamespacedName, n.obj, n.what)
	}
}

type notingQueue struct {
	workqueue.TypedRateLimitingInterface[reconcile.Request]
	noter
}

func (q notingQueue) Add(r reconcile.Request) {
	q.add(r)
	q.TypedRateLimitingInterface.Add(r)
}

func (q notingQueue) AddRateLimited(r reconcile.Request) {
	q.add(r)
	q.TypedRateLimitingInterface.AddRateLimited(r)
}

func (q notingQueue) AddAfter(r reconcile.Request, d time.Duration) {
	q.add(r)
	q.TypedRateLimitingInterface.AddAfter(r, d)
}

type notingPriorityQueue struct {
	priorityqueue.PriorityQueue[reconcile.Request]
	noter
}

func (q notingPriorityQueue) Add(r reconcile.Request) {
	q.add(r)
	q.PriorityQueue.Add(r)
}

func (q notingPriorityQueue) AddRateLimited(r reconcile.Request) {
	q.add(r)
	q.PriorityQueue.AddRateLimited(r)
}

func (q notingPriorityQueue) AddAfter(r reconcile.Request, d time.Duration) {
	q.add(r)
	q.PriorityQueue.AddAfter(r, d)
}

func (q notingPriorityQueue) AddWithOpts(o priorityqueue.AddOpts, reqs ...reconcile.Request) {
	q.add(reqs...)
	q.PriorityQueue.AddWithOpts(o, reqs...)
}

// kindOf names the kind of obj for a timeline line.
func kindOf(obj runtime.Object, scheme *runtime.Scheme) string {
	if gvk, err := apiutil.GVKForObject(obj, scheme); err == nil {
		return gvk.Kind
	}
	return unknownKindFor
}
