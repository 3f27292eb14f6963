package timeline

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
)

// relistBackoff is how long a resource's watch waits before its next
// list or watch after failures in a row (failures). A shared informer
// waits 0.8 s the first time, doubling up to 30 s (reset only after two
// quiet minutes): a CRD deleted and created again a few times, as a lesson
// does, left the timeline blind to its objects for half a minute, and a
// learner's write reached it as a CREATE long after (or never as theirs).
// While the version is not served (a deleted CRD), the list itself is
// tried again every notServedPoll, without counting as a failure: a
// real cluster's 404 list four times a second costs it little.
var relistBackoff = wait.Backoff{Duration: 100 * time.Millisecond, Factor: 2, Jitter: 0.2, Steps: 8, Cap: time.Second}

// noReflectorDelay: the reflector restarts a watch at once, whatever ended
// it; the list and the watch wait instead, after failures only (see
// resourceWatch.failures). The reflector's own backoff grows with every
// restart and is reset only every two minutes, and the apiserver ends a
// CRD's watches each time it replaces the CRD's storage (its spec changed,
// or the CRD was created again): it closes them, answers 429 while the new
// storage's cache starts, and 410 to a resourceVersion older than that
// cache, each a restart. A lesson that changed its CRD a few times had its
// objects unwatched for two seconds and more after each change, and an
// object created and deleted meanwhile never reached the timeline (a list
// shows what is, not what happened): the course-paths test's known defect,
// bob's deletion not named.
var noReflectorDelay = wait.Backoff{}

// notServedPoll is how often a resource's list is tried again while its
// version is not served.
const notServedPoll = 250 * time.Millisecond

// A watch just started (moved to a version its CRD has just begun to
// serve: see crdmove.go), or whose CRD has just said it serves the
// watch's version again (hurry), tries its list again every newWatchPoll
// for newWatchQuick: the apiserver serves a new CRD's objects a moment
// after its line says so, and a learner's object created and deleted
// within notServedPoll would never be seen.
const (
	newWatchPoll  = 20 * time.Millisecond
	newWatchQuick = 2 * time.Second
)

// resourceWatch watches one resource of the cluster at one version: a
// reflector whose lists and watches wait relistBackoff after failures,
// into a handlerStore that tells the timeline of each change.
type resourceWatch struct {
	gvr    schema.GroupVersionResource
	store  *handlerStore
	cancel context.CancelFunc
	done   chan struct{}
	// gone: the version's last list or watch said it is not served (404): the CRD
	// was deleted, or no longer serves this version.
	gone atomic.Bool
	// vanished: discovery serves the resource at no version (its CRD was
	// deleted), set by the watcher's discover.
	vanished atomic.Bool
	// failures: the lists and watches that failed since the last that
	// worked (a list, or a watch that sent an event): the next waits
	// relistBackoff's delay for as many. A 404 (the version not served:
	// polled, see notServedPoll) and a 410 (a resourceVersion older than
	// the apiserver's cache: a relist, at once) are answers that worked;
	// a 429, an error, and a watch that ends with no event but errors are
	// failures.
	failures atomic.Int32
	// busy: the 429s in a row since the last other answer (see
	// busyBackoff), counted apart from failures.
	busy atomic.Int32
	// quickUntil: until then (unix nanoseconds) a list of a version not
	// served is tried again every newWatchPoll; wake cuts short the wait
	// (hurry).
	quickUntil atomic.Int64
	wake       chan struct{}
}

// hurry tries the list of a version not served again at once, then every
// newWatchPoll for newWatchQuick: its CRD says it is served.
func (rw *resourceWatch) hurry() {
	rw.quickUntil.Store(time.Now().Add(newWatchQuick).UnixNano())
	select {
	case rw.wake <- struct{}{}:
	default:
	}
}

// startResourceWatch watches gvr until ctx is done or the watch is
// stopped, telling h of each change. prev, if not nil, are the objects a
// watch of another version of the resource held when it stopped: the
// first list is compared with them (a change made in between is told),
// not told as objects found at the start. notServed, if not nil, is
// called when the version stops being served (a list or watch finds it
// 404 after it was served), for the watcher to look at discovery again.
//
// While the version is not served and the resource has vanished (see
// vanished), the objects the watch held are told deleted: the apiserver
// deletes a CRD's objects before the CRD, but it may close the watches of
// the CRD's storage before they have sent every deletion (a watch that is
// behind loses what it has not sent), and no list would ever show them
// gone.
func startResourceWatch(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource,
	h cache.ResourceEventHandler, prev map[string]*unstructured.Unstructured, notServed func()) *resourceWatch {
	ctx, cancel := context.WithCancel(ctx)
	q := newHandlerQueue()
	rw := &resourceWatch{gvr: gvr, cancel: cancel, done: make(chan struct{}), wake: make(chan struct{}, 1),
		store: &handlerStore{h: h, objs: prev, continued: prev != nil, deliver: q.add}}
	client := dyn.Resource(gvr)
	rw.quickUntil.Store(time.Now().Add(newWatchQuick).UnixNano())
	setGone := func(err error) {
		gone := apierrors.IsNotFound(err)
		if !rw.gone.Swap(gone) && gone && notServed != nil {
			notServed()
		}
	}
	lw := &cache.ListWatch{
		// A list of a version not served (404) is tried again quietly
		// until it is served: the reflector would log each failure.
		// The reflector runs no watch meanwhile, and calls the store
		// only once the list returns: forget is alone with the store.
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			for {
				if err := rw.pause(ctx); err != nil {
					return nil, err
				}
				l, err := client.List(ctx, o)
				setGone(err)
				rw.count(err)
				if !apierrors.IsNotFound(err) {
					return l, err
				}
				if rw.vanished.Load() {
					rw.store.forget()
				}
				poll := notServedPoll
				if time.Now().UnixNano() < rw.quickUntil.Load() {
					poll = newWatchPoll
				}
				select {
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-time.After(poll):
				case <-rw.wake:
				}
			}
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			if err := rw.pause(ctx); err != nil {
				return nil, err
			}
			wi, err := client.Watch(ctx, o)
			setGone(err)
			if err != nil {
				rw.count(err)
				return nil, err
			}
			return rw.counted(wi), nil
		},
	}
	backoff := noReflectorDelay
	r := cache.NewReflectorWithOptions(cache.ToListWatcherWithWatchListSemantics(lw, dyn), &unstructured.Unstructured{}, rw.store, cache.ReflectorOptions{
		Name: "timeline " + gvr.String(), TypeDescription: gvr.String(), Backoff: &backoff,
	})
	told := make(chan struct{})
	go func() {
		defer close(told)
		q.run()
	}()
	go func() {
		defer close(rw.done)
		r.RunWithContext(ctx)
		q.close()
		<-told
	}()
	return rw
}

// stop stops the watch and returns the objects it held, once h has been
// told of every change it saw.
func (rw *resourceWatch) stop() map[string]*unstructured.Unstructured {
	rw.cancel()
	<-rw.done
	return rw.store.held()
}

// handlerStore is a reflector's store that tells h of each change, as a
// shared informer tells its handlers: the objects of the first list are
// initial (unless the store continues another's); a later list (after the
// watch broke) is compared with what the store held, so that a change made
// meanwhile is told once, as an add, an update or a delete. The reflector
// calls it from one goroutine; h is called in the same order, through
// deliver.
type handlerStore struct {
	h         cache.ResourceEventHandler
	continued bool // objs are another watch's: nothing is initial
	// deliver calls a call of h: on a goroutine of a handlerQueue's, so
	// that a slow handler never holds up the reading of the watch (the
	// apiserver closes a watch that is not read); nil: at once.
	deliver func(func())

	mu     sync.Mutex
	objs   map[string]*unstructured.Unstructured
	synced atomic.Bool
}

var _ cache.ReflectorStore = &handlerStore{}

func (s *handlerStore) hasSynced() bool { return s.synced.Load() }

// tell calls call, a call of h, through deliver.
func (s *handlerStore) tell(call func()) {
	if s.deliver == nil {
		call()
		return
	}
	s.deliver(call)
}

func (s *handlerStore) held() map[string]*unstructured.Unstructured {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.objs
}

func (s *handlerStore) Add(obj any) error    { return s.put(obj) }
func (s *handlerStore) Update(obj any) error { return s.put(obj) }
func (s *handlerStore) Resync() error        { return nil }

// keyOf returns obj as an object, its managedFields compacted (the
// reflector decoded it for this store alone), and its key; nil if it is none.
func keyOf(obj any) (*unstructured.Unstructured, string, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, "", nil
	}
	compactManagedFields(u)
	key, err := cache.MetaNamespaceKeyFunc(u)
	return u, key, err
}

func (s *handlerStore) put(obj any) error {
	u, key, err := keyOf(obj)
	if u == nil || err != nil {
		return err
	}
	s.mu.Lock()
	if s.objs == nil {
		s.objs = map[string]*unstructured.Unstructured{}
	}
	old, had := s.objs[key]
	s.objs[key] = u
	s.mu.Unlock()
	if had {
		s.tell(func() { s.h.OnUpdate(old, u) })
	} else {
		s.tell(func() { s.h.OnAdd(u, false) })
	}
	return nil
}

func (s *handlerStore) Delete(obj any) error {
	u, key, err := keyOf(obj)
	if u == nil || err != nil {
		return err
	}
	s.mu.Lock()
	delete(s.objs, key)
	s.mu.Unlock()
	s.tell(func() { s.h.OnDelete(u) })
	return nil
}

// Replace takes a list: the first (of a store that continues none) is
// initial; any other is compared with what the store held.
func (s *handlerStore) Replace(list []any, _ string) error {
	next := make(map[string]*unstructured.Unstructured, len(list))
	for _, obj := range list {
		u, key, err := keyOf(obj)
		if err != nil {
			return err
		}
		if u != nil {
			next[key] = u
		}
	}
	s.mu.Lock()
	prev := s.objs
	s.objs = next
	s.mu.Unlock()
	initial := !s.synced.Load() && !s.continued
	for key, u := range next {
		old, had := prev[key]
		switch {
		case !had:
			s.tell(func() { s.h.OnAdd(u, initial) })
		case old.GetResourceVersion() != u.GetResourceVersion():
			s.tell(func() { s.h.OnUpdate(old, u) })
		}
	}
	s.tellGone(prev, next)
	s.synced.Store(true)
	return nil
}

// tellGone tells the deletion of each object of prev that next lacks,
// seen by no watch: its final state is the one held.
func (s *handlerStore) tellGone(prev, next map[string]*unstructured.Unstructured) {
	for key, old := range prev {
		if _, ok := next[key]; !ok {
			s.tell(func() { s.h.OnDelete(cache.DeletedFinalStateUnknown{Key: key, Obj: old}) })
		}
	}
}

// forget tells the deletion of every object the store holds, as a list
// that found none would: the resource is served no more (see
// startResourceWatch). The reflector must not be using the store.
func (s *handlerStore) forget() {
	s.mu.Lock()
	prev := s.objs
	s.objs = nil
	s.mu.Unlock()
	s.tellGone(prev, nil)
}

// handlerQueue runs calls in the order added, on the goroutine that runs
// run, without bound: as a shared informer's queue, it lets the reflector
// read the watch while the handler is busy.
type handlerQueue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	calls  []func()
	closed bool
}

func newHandlerQueue() *handlerQueue {
	q := &handlerQueue{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

func (q *handlerQueue) add(call func()) {
	q.mu.Lock()
	q.calls = append(q.calls, call)
	q.mu.Unlock()
	q.cond.Signal()
}

// close makes run return once it has made every call added.
func (q *handlerQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.cond.Signal()
}

func (q *handlerQueue) run() {
	for {
		q.mu.Lock()
		for len(q.calls) == 0 && !q.closed {
			q.cond.Wait()
		}
		calls, closed := q.calls, q.closed
		q.calls = nil
		q.mu.Unlock()
		for _, call := range calls {
			call()
		}
		if closed && len(calls) == 0 {
			return
		}
	}
}
