package timeline

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/dynamic"
	fakedynamic "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/rest"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
)

func gadget(name, rv string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("ex.io/v1beta1")
	u.SetKind("Gadget")
	u.SetNamespace("default")
	u.SetName(name)
	u.SetResourceVersion(rv)
	return u
}

// told records what a handlerStore tells, a line each.
type told struct{ lines []string }

func (t *told) handler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, initial bool) {
			u := obj.(*unstructured.Unstructured)
			t.lines = append(t.lines, fmt.Sprintf("add %s@%s initial=%t", u.GetName(), u.GetResourceVersion(), initial))
		},
		UpdateFunc: func(old, cur any) {
			o, c := old.(*unstructured.Unstructured), cur.(*unstructured.Unstructured)
			t.lines = append(t.lines, fmt.Sprintf("update %s@%s→%s", c.GetName(), o.GetResourceVersion(), c.GetResourceVersion()))
		},
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				t.lines = append(t.lines, "delete (missed) "+d.Obj.(*unstructured.Unstructured).GetName())
				return
			}
			t.lines = append(t.lines, "delete "+obj.(*unstructured.Unstructured).GetName())
		},
	}
}

func (t *told) take() []string {
	out := t.lines
	t.lines = nil
	slices.Sort(out)
	return out
}

func TestHandlerStore(t *testing.T) {
	var got told
	s := &handlerStore{h: got.handler()}
	step := func(what string, err error, want ...string) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if l := got.take(); !slices.Equal(l, want) {
			t.Errorf("%s told\n  %q\nwant\n  %q", what, l, want)
		}
	}
	if s.hasSynced() {
		t.Fatal("synced before its first list")
	}
	step("the first list", s.Replace([]any{gadget("a", "1"), gadget("b", "2")}, "2"),
		"add a@1 initial=true", "add b@2 initial=true")
	if !s.hasSynced() {
		t.Fatal("not synced after its first list")
	}
	step("a watch's add", s.Add(gadget("c", "3")), "add c@3 initial=false")
	step("a watch's update", s.Update(gadget("a", "4")), "update a@1→4")
	step("an add of one held (a relist's)", s.Add(gadget("c", "5")), "update c@3→5")
	step("a watch's delete", s.Delete(gadget("b", "6")), "delete b")
	// The watch broke; meanwhile a did not change, c changed, d was
	// created, and then c and d deleted: each list is compared.
	step("a relist", s.Replace([]any{gadget("a", "4"), gadget("c", "7"), gadget("d", "8")}, "8"),
		"add d@8 initial=false", "update c@5→7")
	step("a relist", s.Replace([]any{gadget("a", "4")}, "10"), "delete (missed) c", "delete (missed) d")

	// A store that continues another version's watch: nothing is initial.
	s = &handlerStore{h: got.handler(), continued: true, objs: map[string]*unstructured.Unstructured{
		"default/a": gadget("a", "4"), "default/b": gadget("b", "5"), "default/c": gadget("c", "6"),
	}}
	step("the first list of a store that continues", s.Replace([]any{gadget("a", "4"), gadget("b", "9"), gadget("e", "11")}, "11"),
		"add e@11 initial=false", "delete (missed) c", "update b@5→9")
}

// preferring is a discovery client whose preferred resources are set by the test.
type preferring struct {
	*fakediscovery.FakeDiscovery
	mu    sync.Mutex
	lists []*metav1.APIResourceList
}

func (p *preferring) prefer(version string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lists = []*metav1.APIResourceList{{GroupVersion: "ex.io/" + version, APIResources: []metav1.APIResource{
		{Name: "gadgets", Namespaced: true, Kind: "Gadget", Verbs: metav1.Verbs{"get", "list", "watch"}},
	}}}
}

func (p *preferring) ServerPreferredResources() ([]*metav1.APIResourceList, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lists, nil
}

// TestDiscoverOneWatchPerResource: a resource is watched at one version,
// kept while it is served, and moved to the preferred version once it is
// not, telling what changed in between.
func TestDiscoverOneWatchPerResource(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	v1beta1 := schema.GroupVersionResource{Group: "ex.io", Version: "v1beta1", Resource: "gadgets"}
	v1 := v1beta1.GroupResource().WithVersion("v1")
	a1 := gadget("a", "5")
	a1.SetAPIVersion("ex.io/v1")
	b1 := gadget("b", "7")
	b1.SetAPIVersion("ex.io/v1")
	dyn := fakedynamic.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{v1beta1: "GadgetList", v1: "GadgetList"},
		gadget("a", "5"), a1, b1) // b exists in v1 only: created after v1beta1's watch stopped

	var mu sync.Mutex
	var lines []string
	w := &watcher{dyn: dyn, watching: map[schema.GroupResource]*resourceWatch{}, auditWait: time.Second,
		sink: &serialSink{sink: SinkFunc(func(e Event) {
			mu.Lock()
			defer mu.Unlock()
			lines = append(lines, fmt.Sprintf("%s %s", e.Verb, e.Name))
		})}}
	disc := &preferring{FakeDiscovery: &fakediscovery.FakeDiscovery{}}
	synced := func(rw *resourceWatch) {
		t.Helper()
		if !cache.WaitForCacheSync(ctx.Done(), rw.store.hasSynced) {
			t.Fatal("never synced")
		}
	}

	disc.prefer("v1beta1")
	w.discover(ctx, disc)
	first := w.watching[v1beta1.GroupResource()]
	if first == nil || first.gvr != v1beta1 {
		t.Fatalf("watching %v, want gadgets at v1beta1", w.watching)
	}
	synced(first)

	// v1 preferred, v1beta1 still served: one watch, as it was.
	disc.prefer("v1")
	w.discover(ctx, disc)
	if got := w.watching[v1beta1.GroupResource()]; got != first || len(w.watching) != 1 {
		t.Fatalf("after v1 was preferred: watching %v, want only the v1beta1 watch", w.watching)
	}

	// v1beta1 no longer served: the watch moves to v1 and tells b, created
	// in between, and not a, which did not change.
	first.gone.Store(true)
	w.discover(ctx, disc)
	second := w.watching[v1beta1.GroupResource()]
	if second == nil || second.gvr != v1 || len(w.watching) != 1 {
		t.Fatalf("after v1beta1 was gone: watching %v, want only a v1 watch", w.watching)
	}
	synced(second)
	// What the first list found is told on the watch's own goroutine:
	// stopping the watch waits for it.
	second.stop()
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"CREATE b"}; !slices.Equal(lines, want) {
		t.Errorf("the timeline told %q, want %q", lines, want)
	}
}

// A handler that takes its time does not hold up the store (the reflector
// reading the watch); it is told of every change, in order.
func TestHandlerQueue(t *testing.T) {
	var got told
	release := make(chan struct{})
	slow := got.handler()
	q := newHandlerQueue()
	s := &handlerStore{h: cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			<-release
			slow.OnAdd(obj, false)
		},
		UpdateFunc: slow.OnUpdate,
		DeleteFunc: slow.OnDelete,
	}, deliver: q.add}
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		q.run()
	}()
	for i := range 100 {
		if err := s.Add(gadget("a", fmt.Sprint(i+1))); err != nil { // an add, then updates
			t.Fatal(err)
		}
	}
	if err := s.Delete(gadget("a", "101")); err != nil {
		t.Fatal(err)
	}
	close(release)
	q.close()
	<-ran
	if len(got.lines) != 101 || got.lines[0] != "add a@1 initial=false" || got.lines[1] != "update a@1→2" || got.lines[100] != "delete a" {
		t.Errorf("told %d lines, %q … %q; want an add, 99 updates in order and a delete", len(got.lines), got.lines[:min(2, len(got.lines))], got.lines[max(0, len(got.lines)-1):])
	}
}

// vanishing is a discovery client that serves gadgets at v1beta1, or no
// gadgets (their CRD deleted), or fails for their group.
type vanishing struct {
	*fakediscovery.FakeDiscovery
	mu      sync.Mutex
	served  bool
	failing bool
}

func (v *vanishing) set(served, failing bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.served, v.failing = served, failing
}

func (v *vanishing) ServerPreferredResources() ([]*metav1.APIResourceList, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.failing {
		return nil, &discovery.ErrGroupDiscoveryFailed{Groups: map[schema.GroupVersion]error{{Group: "ex.io", Version: "v1beta1"}: errors.New("unavailable")}}
	}
	if !v.served {
		return nil, nil
	}
	return []*metav1.APIResourceList{{GroupVersion: "ex.io/v1beta1", APIResources: []metav1.APIResource{
		{Name: "gadgets", Namespaced: true, Kind: "Gadget", Verbs: metav1.Verbs{"get", "list", "watch"}},
	}}}, nil
}

// TestDeletedCRDTellsItsObjectsDeleted: the apiserver closed the watch of
// a deleted CRD's objects before it sent their deletions (it tears the
// CRD's storage down, and a watch behind loses what it had not sent). The
// timeline tells them deleted once the resource is served at no version,
// and not while its group's discovery only failed; the objects of the CRD
// created again are new.
func TestDeletedCRDTellsItsObjectsDeleted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gvr := schema.GroupVersionResource{Group: "ex.io", Version: "v1beta1", Resource: "gadgets"}
	dyn := fakedynamic.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{gvr: "GadgetList"}, gadget("a", "5"), gadget("b", "6"))
	var mu sync.Mutex
	notFound := false // the list and the watch answer 404
	var watches []*watch.FakeWatcher
	dyn.PrependReactor("list", "gadgets", func(clienttesting.Action) (bool, runtime.Object, error) {
		mu.Lock()
		defer mu.Unlock()
		if notFound {
			return true, nil, apierrors.NewNotFound(gvr.GroupResource(), "")
		}
		return false, nil, nil
	})
	dyn.PrependWatchReactor("gadgets", func(clienttesting.Action) (bool, watch.Interface, error) {
		mu.Lock()
		defer mu.Unlock()
		if notFound {
			return true, nil, apierrors.NewNotFound(gvr.GroupResource(), "")
		}
		fw := watch.NewFake()
		watches = append(watches, fw)
		return true, fw, nil
	})

	lines := make(chan string, 100)
	w := &watcher{dyn: dyn, watching: map[schema.GroupResource]*resourceWatch{}, auditWait: time.Second,
		poke: make(chan struct{}, 1),
		sink: &serialSink{sink: SinkFunc(func(e Event) { lines <- fmt.Sprintf("%s %s", e.Verb, e.Name) })}}
	disc := &vanishing{FakeDiscovery: &fakediscovery.FakeDiscovery{}}
	disc.set(true, false)
	w.discover(ctx, disc)
	rw := w.watching[gvr.GroupResource()]
	if rw == nil || !cache.WaitForCacheSync(ctx.Done(), rw.store.hasSynced) {
		t.Fatal("gadgets not watched")
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("waited 10 s for %s", what)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	waitFor("the watch", func() bool { mu.Lock(); defer mu.Unlock(); return len(watches) == 1 })

	// The CRD deleted: its storage's watch closed without a word of a or b.
	mu.Lock()
	notFound = true
	watches[0].Stop()
	mu.Unlock()
	select {
	case <-w.poke:
	case <-time.After(10 * time.Second):
		t.Fatal("the watch did not ask for discovery when its version stopped being served")
	}
	// Discovery of the group failed: nothing is known, nothing told.
	disc.set(false, true)
	w.discover(ctx, disc)
	if rw.vanished.Load() {
		t.Fatal("gadgets vanished while their group's discovery failed")
	}
	// Served at no version: a and b are told deleted, once.
	disc.set(false, false)
	w.discover(ctx, disc)
	var got []string
	for len(got) < 2 {
		select {
		case l := <-lines:
			got = append(got, l)
		case <-time.After(10 * time.Second):
			t.Fatalf("told %q, want the deletion of a and b", got)
		}
	}
	slices.Sort(got)
	if want := []string{"DELETE a", "DELETE b"}; !slices.Equal(got, want) {
		t.Errorf("told %q, want %q", got, want)
	}

	// The CRD created again, with c: c is told, a and b are not again.
	if err := dyn.Tracker().Delete(gvr, "default", "a"); err != nil {
		t.Fatal(err)
	}
	if err := dyn.Tracker().Delete(gvr, "default", "b"); err != nil {
		t.Fatal(err)
	}
	if err := dyn.Tracker().Create(gvr, gadget("c", "9"), "default"); err != nil {
		t.Fatal(err)
	}
	disc.set(true, false)
	w.discover(ctx, disc)
	mu.Lock()
	notFound = false
	mu.Unlock()
	waitFor("the watch of the CRD created again", func() bool { mu.Lock(); defer mu.Unlock(); return len(watches) == 2 })
	rw.stop()
	close(lines)
	got = nil
	for l := range lines {
		got = append(got, l)
	}
	if want := []string{"CREATE c"}; !slices.Equal(got, want) {
		t.Errorf("after the CRD was created again, told %q, want %q", got, want)
	}
}

// TestRestartsTheApiserverAsksForCostNoWait: each time the apiserver
// replaces a CRD's storage it ends the watches of its objects (closes them,
// answers 429 while the new storage's cache starts, then 410 to a
// resourceVersion older than that cache). The reflector's own backoff grew
// with each such restart, to a second and more, and what was created and
// deleted while the resource was unwatched never reached the timeline: the
// watch must be open again at once, cycle after cycle, and tell what
// happens then.
func TestRestartsTheApiserverAsksForCostNoWait(t *testing.T) {
	ctx, gvr, dyn := fakeGadgets(t)
	var mu sync.Mutex
	var script []func() (watch.Interface, error) // the next watch requests' answers
	opened := make(chan *watch.FakeWatcher, 1)   // a watch the reflector reads
	dyn.PrependWatchReactor("gadgets", func(clienttesting.Action) (bool, watch.Interface, error) {
		mu.Lock()
		defer mu.Unlock()
		if len(script) > 0 {
			answer := script[0]
			script = script[1:]
			w, err := answer()
			return true, w, err
		}
		fw := watch.NewFake()
		opened <- fw
		return true, fw, nil
	})
	lines := make(chan string, 100)
	h := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { lines <- "add " + obj.(*unstructured.Unstructured).GetName() },
		DeleteFunc: func(obj any) { lines <- "delete " + obj.(*unstructured.Unstructured).GetName() },
	}
	rw := startResourceWatch(ctx, dyn, gvr, h, nil, nil)
	defer rw.stop()

	// How long a restart may take: the reflector's backoff reached a
	// second at the third cycle, two waits a cycle.
	const restartWithin = 1500 * time.Millisecond
	initializing := func() (watch.Interface, error) {
		return nil, apierrors.NewTooManyRequests("storage is (re)initializing", 1)
	}
	tooOld := func() (watch.Interface, error) {
		fw := watch.NewFakeWithChanSize(1, false)
		fw.Error(&apierrors.NewResourceExpired("too old resource version: 5 (9)").ErrStatus)
		return fw, nil
	}
	told := func(want string) {
		t.Helper()
		select {
		case got := <-lines:
			if got != want {
				t.Fatalf("told %q, want %q", got, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("not told %q", want)
		}
	}
	var fw *watch.FakeWatcher
	select {
	case fw = <-opened:
	case <-time.After(10 * time.Second):
		t.Fatal("the first watch never opened")
	}
	for i := range 6 {
		name := fmt.Sprintf("g%d", i)
		fw.Add(gadget(name, strconv.Itoa(10+2*i)))
		fw.Delete(gadget(name, strconv.Itoa(11+2*i)))
		told("add " + name)
		told("delete " + name)

		// The storage replaced: the watch closed, the new cache starting,
		// then older than the resourceVersion.
		mu.Lock()
		script = append(script, initializing, tooOld)
		mu.Unlock()
		closed := time.Now()
		fw.Stop()
		select {
		case fw = <-opened:
		case <-time.After(restartWithin):
			t.Fatalf("cycle %d: the watch was not open again %s after the apiserver closed it", i+1, restartWithin)
		}
		t.Logf("cycle %d: open again after %s", i+1, time.Since(closed).Round(time.Millisecond))
	}
}

// TestFailuresWait: the reflector waits for nothing of its own, so a list
// that keeps failing (a conversion webhook down) waits relistBackoff's
// growing delay before each new try, not a moment.
func TestFailuresWait(t *testing.T) {
	ctx, gvr, dyn := fakeGadgets(t)
	lists := make(chan time.Time, 100)
	dyn.PrependReactor("list", "gadgets", func(clienttesting.Action) (bool, runtime.Object, error) {
		lists <- time.Now()
		return true, nil, apierrors.NewInternalError(errors.New("conversion webhook for ex.io/v1beta1 failed"))
	})
	rw := startResourceWatch(ctx, dyn, gvr, cache.ResourceEventHandlerFuncs{}, nil, nil)
	defer rw.stop()
	var at []time.Time
	for len(at) < 4 {
		select {
		case t := <-lists:
			at = append(at, t)
		case <-time.After(10 * time.Second):
			t.Fatalf("%d lists in 10 s, want 4", len(at))
		}
	}
	// 100, 200 and 400 ms, each up to a fifth longer.
	if waited, least := at[3].Sub(at[0]), 700*time.Millisecond; waited < least {
		t.Errorf("4 failing lists in %s, want %s or more between the first and the fourth", waited, least)
	}
}

// TestFailuresCounted: what a list or watch is answered counts as a
// failure or resets them; a 429 is neither. A 404 (a CRD deleted, polled until it is
// created again) and a 410 are answers that worked: counted as failures,
// they left the list of the CRD created again waiting a second.
func TestFailuresCounted(t *testing.T) {
	gr := schema.GroupResource{Group: "ex.io", Resource: "gadgets"}
	for _, c := range []struct {
		answer error
		want   int32
	}{
		{nil, 0},
		{apierrors.NewNotFound(gr, ""), 0},
		{apierrors.NewResourceExpired("too old resource version: 5 (9)"), 0},
		{apierrors.NewTooManyRequests("storage is (re)initializing", 1), 3}, // busy, counted apart (TestBusyWaitsLittle)
		{apierrors.NewInternalError(errors.New("conversion webhook failed")), 4},
	} {
		rw := &resourceWatch{}
		rw.failures.Store(3)
		rw.count(c.answer)
		if got := rw.failures.Load(); got != c.want {
			t.Errorf("after %v: %d failures, want %d", c.answer, got, c.want)
		}
	}

	// A watch: an event resets them, a watch of errors only is one more.
	for _, c := range []struct {
		name   string
		events []watch.Event
		want   int32
	}{
		{"an event", []watch.Event{{Type: watch.Added, Object: gadget("a", "5")}}, 0},
		{"a 410", []watch.Event{{Type: watch.Error, Object: &apierrors.NewResourceExpired("too old").ErrStatus}}, 0},
		{"errors only", []watch.Event{{Type: watch.Error, Object: &apierrors.NewInternalError(errors.New("conversion")).ErrStatus}}, 4},
		{"nothing", nil, 4},
	} {
		rw := &resourceWatch{}
		rw.failures.Store(3)
		fw := watch.NewFakeWithChanSize(len(c.events), false)
		for _, e := range c.events {
			fw.Action(e.Type, e.Object)
		}
		fw.Stop()
		for range rw.counted(fw).ResultChan() {
		}
		if got := rw.failures.Load(); got != c.want {
			t.Errorf("%s: %d failures, want %d", c.name, got, c.want)
		}
	}
}

// fakeGadgets is a fake apiserver's client serving ex.io/v1beta1 gadgets,
// and a context that ends with the test.
func fakeGadgets(t *testing.T) (context.Context, schema.GroupVersionResource, *fakedynamic.FakeDynamicClient) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	gvr := schema.GroupVersionResource{Group: "ex.io", Version: "v1beta1", Resource: "gadgets"}
	return ctx, gvr, fakedynamic.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{gvr: "GadgetList"})
}

// TestTheApiserversRetryAfterIsNotWaited: a CRD's new storage answers 429
// with Retry-After: 1 while its watch cache starts, and client-go slept
// that second inside the request, ten times at most, before the watch
// could try again: what a lesson did meanwhile never reached the
// timeline. The timeline's client returns the 429 at once, having asked
// once.
func TestTheApiserversRetryAfterIsNotWaited(t *testing.T) {
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		asked.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"storage is (re)initializing","reason":"TooManyRequests","code":429}`))
	}))
	defer srv.Close()
	dyn, err := dynamic.NewForConfig(timelineConfig(&rest.Config{Host: srv.URL}))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = dyn.Resource(schema.GroupVersionResource{Group: "ex.io", Version: "v1beta1", Resource: "gadgets"}).
		List(context.Background(), metav1.ListOptions{})
	took := time.Since(start)
	if !apierrors.IsTooManyRequests(err) {
		t.Fatalf("list: %v, want the apiserver's 429", err)
	}
	if n := asked.Load(); n != 1 || took > 500*time.Millisecond {
		t.Errorf("the list asked %d times in %s: want once, at once (client-go waits each Retry-After itself)", n, took.Round(time.Millisecond))
	}
}

// TestBusyWaitsLittle: 429s in a row (a CRD's storage starting) wait
// busyBackoff's 10 ms, doubling, not relistBackoff's 100 ms, and are no
// failures; any other answer ends them.
func TestBusyWaitsLittle(t *testing.T) {
	rw := &resourceWatch{}
	busy := apierrors.NewTooManyRequests("storage is (re)initializing", 1)
	rw.count(busy)
	start := time.Now()
	if err := rw.pause(context.Background()); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 60*time.Millisecond {
		t.Errorf("after one 429 the watch waited %s, want about 10 ms", took.Round(time.Millisecond))
	}
	if f := rw.failures.Load(); f != 0 {
		t.Errorf("a 429 counted as %d failures, want none", f)
	}
	rw.count(nil)
	if b := rw.busy.Load(); b != 0 {
		t.Errorf("after a list that worked, %d 429s are still counted", b)
	}
}
