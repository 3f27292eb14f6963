package controllers

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crdlab/crdlab/lab/timeline"
)

// tracer records each reconcile pass of an in-process operator on a
// timeline: the object, the writes the pass made, how it ended, and how
// long it took.
type tracer struct {
	name     string
	kind     string
	inner    reconcile.Reconciler
	sink     timeline.Sink
	triggers *triggers
}

type writesKey struct{}

// writeLog collects the writes of one reconcile pass.
type writeLog struct {
	mu     sync.Mutex
	writes []string
}

func (t *tracer) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	log := &writeLog{}
	start := time.Now()
	if t.triggers != nil {
		t.triggers.start(req)
	}
	res, err := t.inner.Reconcile(context.WithValue(ctx, writesKey{}, log), req)
	took := time.Since(start).Round(100 * time.Microsecond)

	var detail []string
	log.mu.Lock()
	switch len(log.writes) {
	case 0:
		detail = append(detail, "no change")
	default:
		detail = append(detail, strings.Join(log.writes, ", "))
	}
	log.mu.Unlock()
	switch {
	case err != nil:
		detail = append(detail, "error: "+err.Error()+" (retried with back-off)")
	case res.RequeueAfter > 0:
		detail = append(detail, "requeue after "+res.RequeueAfter.String())
	}
	if t.triggers != nil {
		detail = append(detail, "woken by "+t.triggers.take(req))
	}
	detail = append(detail, "in "+took.String())
	t.sink.Record(timeline.Event{
		Time: time.Now(), Actor: t.name, Verb: timeline.Reconcile, Kind: t.kind, // ordered by its end
		Namespace: req.Namespace, Name: req.Name, Detail: strings.Join(detail, "; "),
	})
	return res, err
}

// tracingClient notes each write in the pass's writeLog.
type tracingClient struct {
	client.Client
}

func (c tracingClient) note(ctx context.Context, verb string, obj client.Object) {
	log, ok := ctx.Value(writesKey{}).(*writeLog)
	if !ok {
		return
	}
	kind := "object"
	if gvk, err := apiutil.GVKForObject(obj, c.Scheme()); err == nil {
		kind = strings.ToLower(gvk.Kind)
	}
	log.mu.Lock()
	log.writes = append(log.writes, fmt.Sprintf("%s %s/%s", verb, kind, obj.GetName()))
	log.mu.Unlock()
}

func (c tracingClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	c.note(ctx, timeline.Create, obj)
	return c.Client.Create(ctx, obj, opts...)
}

func (c tracingClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	c.note(ctx, timeline.Update, obj)
	return c.Client.Update(ctx, obj, opts...)
}

func (c tracingClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	c.note(ctx, timeline.Update, obj)
	return c.Client.Patch(ctx, obj, patch, opts...)
}

func (c tracingClient) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	c.note(ctx, timeline.Delete, obj)
	return c.Client.Delete(ctx, obj, opts...)
}

func (c tracingClient) Status() client.SubResourceWriter {
	return tracingStatus{SubResourceWriter: c.Client.Status(), c: c}
}

type tracingStatus struct {
	client.SubResourceWriter
	c tracingClient
}

func (s tracingStatus) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	s.c.note(ctx, timeline.Status, obj)
	return s.SubResourceWriter.Update(ctx, obj, opts...)
}

func (s tracingStatus) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	s.c.note(ctx, timeline.Status, obj)
	return s.SubResourceWriter.Patch(ctx, obj, patch, opts...)
}

// triggers remembers, for each reconcile request, the watch events that
// queued it: the work queue merges them into one pass, the trace names them.
type triggers struct {
	kind   string // the kind the controller reconciles
	scheme *runtime.Scheme

	mu      sync.Mutex
	pending map[types.NamespacedName][]string
}

func newTriggers(kind string, scheme *runtime.Scheme) *triggers {
	return &triggers{kind: kind, scheme: scheme, pending: map[types.NamespacedName][]string{}}
}

// predicate notes each event of a watch and lets it through.
func (t *triggers) predicate() predicate.Predicate {
	return predicate.Funcs{
		CreateFunc: func(e event.CreateEvent) bool { t.note(e.Object, "created"); return true },
		UpdateFunc: func(e event.UpdateEvent) bool {
			what := "status or metadata updated"
			switch {
			case e.ObjectNew.GetDeletionTimestamp() != nil && e.ObjectOld.GetDeletionTimestamp() == nil:
				what = "being deleted"
			case e.ObjectNew.GetGeneration() != e.ObjectOld.GetGeneration():
				what = "spec changed"
			}
			t.note(e.ObjectNew, what)
			return true
		},
		DeleteFunc:  func(e event.DeleteEvent) bool { t.note(e.Object, "deleted"); return true },
		GenericFunc: func(e event.GenericEvent) bool { t.note(e.Object, "event"); return true },
	}
}

// note files the event under the request it queues: the object itself, or
// its controlling owner. Events of objects mapped to requests some other
// way are not filed; their pass says so.
func (t *triggers) note(obj client.Object, what string) {
	kind := "object"
	if gvk, err := apiutil.GVKForObject(obj, t.scheme); err == nil {
		kind = gvk.Kind
	}
	key := types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}
	if kind != t.kind {
		ref := metav1.GetControllerOf(obj)
		if ref == nil || ref.Kind != t.kind {
			return
		}
		key.Name = ref.Name
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	const most = 4 // a pass woken by a burst names its first few causes
	if len(t.pending[key]) < most {
		t.pending[key] = append(t.pending[key], fmt.Sprintf("%s/%s %s", strings.ToLower(kind), obj.GetName(), what))
	} else if len(t.pending[key]) == most {
		t.pending[key] = append(t.pending[key], "…")
	}
}

// start moves the request's triggers aside as the pass begins: events
// that arrive during the pass queue the next one.
func (t *triggers) start(req reconcile.Request) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pending[inflight(req)] = t.pending[req.NamespacedName]
	delete(t.pending, req.NamespacedName)
}

// take returns what woke the pass that has just ended.
func (t *triggers) take(req reconcile.Request) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	k := inflight(req)
	got := t.pending[k]
	delete(t.pending, k)
	if len(got) == 0 {
		return "a requeue or a related object"
	}
	return strings.Join(got, ", ")
}

// inflight is the key under which a running pass keeps its triggers.
func inflight(req reconcile.Request) types.NamespacedName {
	return types.NamespacedName{Namespace: "\x00" + req.Namespace, Name: req.Name}
}
