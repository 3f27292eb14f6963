package controllers

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crdlab/crdlab/lab/timeline"
)

// Reconcile is the timeline verb of a traced reconcile pass.
const Reconcile = "RECONCILE"

// tracer records each reconcile pass of an in-process operator on a
// timeline: the object, the writes the pass made, how it ended, and how
// long it took.
type tracer struct {
	name  string
	kind  string
	inner reconcile.Reconciler
	sink  timeline.Sink
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
	detail = append(detail, "in "+took.String())
	t.sink.Record(timeline.Event{
		Time: time.Now(), Actor: t.name, Verb: Reconcile, Kind: t.kind, // ordered by its end
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
