package timeline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// ignored are resources whose changes are noise on a timeline: node and
// leader-election heartbeats, the legacy Endpoints mirror of EndpointSlices,
// and Events themselves (shown as EVENT lines instead).
var ignored = sets.New(
	schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"},
	schema.GroupResource{Resource: "endpoints"},
	schema.GroupResource{Resource: "events"},
	schema.GroupResource{Group: "events.k8s.io", Resource: "events"},
)

var eventsGVR = schema.GroupVersionResource{Version: "v1", Resource: "events"}

// rediscoverEvery is how often new resources (new CRDs) are looked for.
const rediscoverEvery = 2 * time.Second

// Options are WatchWith's options.
type Options struct {
	// Synced, if not nil, is called once the resources found at the start
	// are watched and the audit log is followed: changes made after it are
	// recorded, deletions with who made them.
	Synced func()
	// AuditLog is the apiserver's audit log (a lab's Dir().AuditLog()), read to name
	// who deleted what. Without it, deletions by others show "?".
	AuditLog string
	// Observe, if not nil, is told of every object the watch holds and of
	// every change to one, with the line the change made on the timeline:
	// the objects themselves, for a view of the cluster that follows them
	// (the web UI). It is called from several goroutines.
	Observe func(Change)
	// Revisions says the cluster is a lab, whose etcd crdlab owns: each
	// line of a write carries the write's revision (the object's
	// resourceVersion, one counter for every key), and, with AuditLog,
	// the time the apiserver answered it (see Order). Without it (a real
	// cluster, whose resourceVersions are not promised to be ordered),
	// lines carry no revision and the time they arrived.
	Revisions bool

	// auditWait bounds how long a line waits for the audit log to give
	// its time or its deleter. A lab's Stream sets it inside its hold
	// (auditShare of it), so that the wait is part of the hold, never
	// added to it; zero: defaultAuditWait.
	auditWait time.Duration
}

// defaultAuditWait is the audit log's wait of a watch that is not a lab's
// Stream: half of streamHold.
const defaultAuditWait = streamHold / auditShare

// finalizedWaits: the end of a deletion held by finalizers waits this many
// times longer for the audit log to name the write that ended it, which
// the apiserver logs only once the deletion is done (a line that comes
// late is shown late): lessons check who took the last finalizer off.
// It waits on, up to auditMemory, while the log has not been read past
// the moment the watch said so (finalizedPast later, in the log's own
// stage timestamps): a follower that reads the log late under load has
// not seen the write yet, and giving up then left the line's author
// unknown for good.
const finalizedWaits = 16

// finalizedPast: the write that ended a deletion is answered, and logged,
// about when its watch event arrives; a log read this far past that
// moment without it has none.
const finalizedPast = time.Second

// auditShare: a line of a lab's Stream waits at most 1/auditShare of the
// stream's hold for the audit log.
const auditShare = 2

// Change is an object the watch saw appear, change or go. Old is nil when
// it appeared (Initial: it was there when the watch started), New is nil
// when it was deleted. Event is the timeline line of the change; it is nil
// for the objects found at the start and for writes of bookkeeping only
// (resourceVersion, managedFields timestamps). The objects are the
// informer's: read them, never change them.
type Change struct {
	Resource schema.GroupVersionResource
	Kind     string
	Old, New *unstructured.Unstructured
	Initial  bool
	Event    *Event
}

// WatchWith records every change to every watchable resource of the cluster, and
// every core/v1 Event, into sink, until ctx is done. Objects that exist when
// it starts are not recorded; resources added later (CRDs) are picked up
// within seconds.
func WatchWith(ctx context.Context, cfg *rest.Config, sink Sink, opts Options) error {
	synced := opts.Synced
	cfg = timelineConfig(cfg)
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("unable to create a client for %s: %w", cfg.Host, err)
	}
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return fmt.Errorf("unable to create a discovery client for %s: %w", cfg.Host, err)
	}
	w := &watcher{dyn: dyn, sink: &serialSink{sink: sink}, observe: opts.Observe, revisions: opts.Revisions,
		auditWait: cmp.Or(opts.auditWait, defaultAuditWait), watching: map[schema.GroupResource]*resourceWatch{},
		poke: make(chan struct{}, 1), crdServes: map[schema.GroupResource]served{},
		crdPending: sets.New[schema.GroupResource](), crdCreated: sets.New[schema.GroupResource]()}
	if opts.AuditLog != "" {
		w.audit = followAudit(ctx, opts.AuditLog)
	}
	w.watch(ctx, eventsGVR, w.eventHandler(), nil)
	for {
		w.moveServed(ctx)
		w.discover(ctx, disc)
		if synced != nil {
			cache.WaitForCacheSync(ctx.Done(), w.synced...)
			if w.audit != nil {
				select {
				case <-w.audit.ready:
				case <-ctx.Done():
				}
			}
			synced()
			synced = nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(rediscoverEvery):
		case <-w.poke:
		}
	}
}

// timelineConfig is cfg as the timeline's clients use it: their own rate
// limit, and the apiserver's 429 answered at once (noRetryAfter).
func timelineConfig(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = 100, 200
	cfg.Wrap(noRetryAfter)
	return cfg
}

type watcher struct {
	revisions bool
	audit     *auditLog
	auditWait time.Duration // Options.auditWait
	synced    []cache.InformerSynced
	dyn       dynamic.Interface
	sink      Sink
	observe   func(Change)
	// poke asks for discovery at once (a resource stopped being served),
	// not at the next rediscoverEvery.
	poke chan struct{}
	// watching: the resources watched, each at one version (discover's
	// goroutine only). Every write to an object reaches the watches of
	// each version served, so one is enough: two would tell it twice.
	watching map[schema.GroupResource]*resourceWatch

	// What the CRDs' lines say (crdmove.go): the versions each serves,
	// the resources whose CRD changed since moveServed last looked, and
	// those whose CRD was created after the watch started.
	crdMu      sync.Mutex
	crdServes  map[schema.GroupResource]served
	crdPending sets.Set[schema.GroupResource]
	crdCreated sets.Set[schema.GroupResource]
}

// serialSink makes a sink safe for the informers' concurrent handlers.
type serialSink struct {
	mu   sync.Mutex
	sink Sink
}

func (s *serialSink) Record(e Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sink.Record(e)
}

// discover starts watching resources not watched yet, at the version the
// server prefers. A resource already watched keeps its version while that
// is served (its watch sees every write, in any version); once it is not
// (a CRD dropped it), the watch moves to the preferred version and tells
// what changed in between. Discovery errors for one group (an unavailable
// aggregated API) do not stop the others.
func (w *watcher) discover(ctx context.Context, disc discovery.DiscoveryInterface) {
	lists, err := disc.ServerPreferredResources()
	// A resource watched and now served at no version has vanished (its
	// CRD was deleted), unless its group's discovery failed.
	failed := sets.New[string]()
	var partial *discovery.ErrGroupDiscoveryFailed
	switch {
	case err == nil:
	case errors.As(err, &partial):
		for gv := range partial.Groups {
			failed.Insert(gv.Group)
		}
	default:
		failed = nil // nothing known
	}
	served := sets.New[schema.GroupResource]()
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range list.APIResources {
			gvr := gv.WithResource(r.Name)
			served.Insert(gvr.GroupResource())
			if ignored.Has(gvr.GroupResource()) || !sets.New(r.Verbs...).HasAll("list", "watch") {
				continue
			}
			cur := w.watching[gvr.GroupResource()]
			switch {
			case w.servesNot(gvr):
				// Discovery is a moment behind the CRD's line: moveServed
				// watches the versions the CRD serves.
			case cur == nil:
				w.watch(ctx, gvr, w.objectHandler(r.Kind, gvr), nil)
			case cur.gvr != gvr && cur.gone.Load():
				w.watch(ctx, gvr, w.objectHandler(r.Kind, gvr), cur.stop())
			}
		}
	}
	for gr, rw := range w.watching {
		rw.vanished.Store(failed != nil && !served.Has(gr) && !failed.Has(gr.Group))
	}
}

// rediscover asks WatchWith's loop to discover at once.
func (w *watcher) rediscover() {
	select {
	case w.poke <- struct{}{}:
	default:
	}
}

// watch watches gvr, continuing from prev (see startResourceWatch).
func (w *watcher) watch(ctx context.Context, gvr schema.GroupVersionResource, h cache.ResourceEventHandler, prev map[string]*unstructured.Unstructured) {
	rw := startResourceWatch(ctx, w.dyn, gvr, h, prev, w.rediscover)
	w.watching[gvr.GroupResource()] = rw
	w.synced = append(w.synced, rw.store.hasSynced)
}

// record records e, the line of change c to obj, and tells the observer
// of c (c.Resource empty: none). With revisions, the line carries obj's
// resourceVersion. A line whose time or author the audit log must give is
// recorded once the log has said, or has not within w.auditWait, without
// holding up the lines after it (Order puts them back in order): a
// 'crdlab reset' deletes hundreds of objects at once, by no request the
// audit log would show.
func (w *watcher) record(e Event, c Change, obj *unstructured.Unstructured) {
	e.arrived = time.Now()
	e.Time = e.arrived // until the audit log says when the apiserver answered
	if w.revisions {
		e.Revision, _ = strconv.ParseInt(obj.GetResourceVersion(), 10, 64)
	}
	timed := w.audit != nil && e.Revision > 0
	named := w.audit != nil && e.Verb == Delete && e.Actor == "?"
	// A deletion that waited for finalizers ends with the write that took
	// the last one off: its line names that write's author.
	finalized := "" // the uid of an object whose deletion waited for finalizers
	held := false   // its finalizers held it: the write that took them off is to be named
	if named && c.Old != nil && c.New == nil && obj.GetDeletionTimestamp() != nil {
		finalized = string(obj.GetUID())
		held = len(obj.GetFinalizers()) > 0
	}
	if !timed && !named {
		w.sink.Record(e)
		w.tell(c, &e)
		return
	}
	go func() {
		w.fromAudit(&e, c.Resource.Resource, timed, named, finalized, held)
		w.sink.Record(e)
		w.tell(c, &e)
	}()
}

// fromAudit gives e its time (timed) and its deleter (named) from the
// audit log, looking both up at once until both are found or w.auditWait
// has passed since e arrived: the time, by the revision its response
// carries (no longer once the log has moved on from it), or, for a
// binding, by its Pod, for a deletion that an update completed, by that
// update; the deleter, by the deletion of the object, whose time also
// dates e when nothing else does, or, for the end of a deletion that
// waited for finalizers (finalized: the object's uid), by the author of the
// write that took the last one off.
func (w *watcher) fromAudit(e *Event, resource string, timed, named bool, finalized string, held bool) {
	deadline := e.arrived.Add(w.auditWait)
	if finalized != "" {
		// The write that took the last finalizer off is logged when the
		// deletion it caused is done: later than the watch says so.
		deadline = e.arrived.Add(finalizedWaits * w.auditWait)
	}
	// gaveUp says the wait is over: for the end of a deletion that its
	// finalizers held (held: the object went with them still listed, as
	// the watch tells the last state stored), only once the log has been
	// read past its moment too.
	gaveUp := func() bool {
		now := time.Now()
		if !held || !named {
			return now.After(deadline)
		}
		return now.After(e.arrived.Add(auditMemory)) || now.After(deadline) && w.audit.readPast(e.arrived.Add(finalizedPast))
	}
	var stamp time.Time
	for {
		if timed {
			at, found, passed := w.audit.timeOf(e, resource)
			if found {
				e.Time = at
				if e.writerUnsure {
					if by := w.audit.writerOf(e.Revision); by != "" {
						e.Actor = by
					}
				}
			}
			// A line whose time is found by its revision stops waiting
			// once the log has moved on from it; a binding or a
			// deletion, found otherwise, waits on.
			byRevision := e.Verb != Bind && e.Verb != Delete
			timed = !found && !(byRevision && passed)
		}
		if named {
			if finalized != "" {
				// Not the deletion request: the line of the deletion's
				// start claims it, and may not have yet.
				if by, ok := w.audit.finishedBy(finalized); ok {
					e.Actor, named = by, false
				}
			} else if d, ok := w.audit.claimDeletion(resource, e.Namespace, e.Name); ok {
				e.Actor, stamp, named = d.actor, d.stamp, false
				if w.revisions && e.Time.Equal(e.arrived) {
					e.Time = stamp
				}
			}
		}
		if (!timed && !named) || gaveUp() {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// tell tells the observer, if any, of c with its line e (nil: none).
func (w *watcher) tell(c Change, e *Event) {
	if w.observe == nil || c.Resource.Resource == "" {
		return
	}
	c.Event = e
	w.observe(c)
}

func (w *watcher) objectHandler(kind string, gvr schema.GroupVersionResource) cache.ResourceEventHandler {
	crds := gvr.GroupResource() == crdGR
	return cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, initial bool) {
			u, ok := obj.(*unstructured.Unstructured)
			switch {
			case !ok:
				return
			case initial:
				w.tell(Change{Resource: gvr, Kind: kind, New: u, Initial: true}, nil)
			default:
				w.record(objectEvent(Create, kind, u), Change{Resource: gvr, Kind: kind, New: u}, u)
			}
			if crds {
				w.crdChanged(u, !initial, false)
			}
		},
		UpdateFunc: func(oldObj, newObj any) {
			old, ok1 := oldObj.(*unstructured.Unstructured)
			cur, ok2 := newObj.(*unstructured.Unstructured)
			if !ok1 || !ok2 || old.GetResourceVersion() == cur.GetResourceVersion() {
				return // a resync, not a change
			}
			c := Change{Resource: gvr, Kind: kind, Old: old, New: cur}
			if e, changed := updateEvent(kind, old, cur); changed {
				w.record(e, c, cur)
			} else {
				w.tell(c, nil)
			}
			if crds {
				w.crdChanged(cur, false, false)
			}
		},
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			if u, ok := obj.(*unstructured.Unstructured); ok {
				w.record(objectEvent(Delete, kind, u), Change{Resource: gvr, Kind: kind, Old: u}, u)
				if crds {
					w.crdChanged(u, false, true)
				}
			}
		},
	}
}

func (w *watcher) eventHandler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, initial bool) {
			u, ok := obj.(*unstructured.Unstructured)
			if !ok || initial {
				return
			}
			var ev corev1.Event
			if runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &ev) != nil {
				return
			}
			w.record(fromEvent(&ev), Change{}, u)
		},
	}
}

// fromEvent turns a core/v1 Event into a timeline event about its object.
func fromEvent(ev *corev1.Event) Event {
	actor := ev.ReportingController
	if actor == "" {
		actor = ev.Source.Component
	}
	return Event{
		Time:      time.Now(),
		Actor:     Actor(actor),
		Verb:      Emit,
		Kind:      ev.InvolvedObject.Kind,
		Namespace: ev.InvolvedObject.Namespace,
		Name:      ev.InvolvedObject.Name,
		Detail:    ev.Reason + ": " + ev.Message,
	}
}
