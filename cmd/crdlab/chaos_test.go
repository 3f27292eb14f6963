package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/server"
)

// The fault-injection suite ('make chaos'; one round of it in 'make test').
// A lab runs with --data-dir; a writer creates ConfigMaps and the seed's
// User objects at a steady rate, and a watcher follows them. Each fault
// kills one process with SIGKILL: etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler, then crdlab itself (after which
// the test runs 'crdlab up -d' again on the same data dir). After each, the
// lab must be ready again within recoveryBound, every write answered 2xx
// must be there, the watcher must hold the final state of every object,
// and no process may be left over.

// recoveryBound is the longest a lab may take to serve writes again after
// a fault. Measured on 2 cores: etcd 0.2-0.5 s, kube-apiserver 3-5 s,
// crdlab itself (with the new 'up') 5-8 s.
const recoveryBound = 45 * time.Second

// chaosRoundsEnv sets how many times each fault is injected (default 1).
const chaosRoundsEnv = "CRDLAB_CHAOS_ROUNDS"

var (
	configMaps = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	users      = schema.GroupVersionResource{Group: "auth.ilinux.io", Version: "v1beta1", Resource: "users"}
)

func TestChaos(t *testing.T) {
	rounds := 1
	if v := os.Getenv(chaosRoundsEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: want a positive number", chaosRoundsEnv, v)
		}
		rounds = n
	}
	c := newCLI(t)
	data := filepath.Join(t.TempDir(), "data")
	c.mustRun("up", "-d", "--data-dir", data)
	w := newChaosWorkload(t, c)
	defer w.close()
	w.start()

	faults := []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "crdlab"}
	var report []string
	for round := 1; round <= rounds; round++ {
		for _, fault := range faults {
			w.waitWrites(20) // a steady state before each fault
			var running, recovery time.Duration
			if fault == "crdlab" {
				running, recovery = c.killLab(t, w, data)
			} else {
				running, recovery = c.killProcess(t, w, fault)
			}
			if recovery > recoveryBound {
				t.Errorf("%s: writes succeeded again %s after the kill, bound %s", fault, recovery, recoveryBound)
			}
			acked, found, _ := w.verify(false)
			line := fmt.Sprintf("round %d  %-24s running again %5.2fs, writes %5.2fs  acknowledged %d, found %d",
				round, fault, running.Seconds(), recovery.Seconds(), acked, found)
			report = append(report, line)
			t.Log(line)
			if found != acked {
				t.Errorf("%s: %d acknowledged writes, %d found: acknowledged writes were lost", fault, acked, found)
			}
		}
	}
	w.stop()
	acked, found, extra := w.verify(true)
	report = append(report, fmt.Sprintf("end      %-24s %34s acknowledged %d, found %d (and %d written whose answer was lost)", "writer stopped", "", acked, found, extra))
	fmt.Println("\nchaos: kill -9 of each process of a lab with --data-dir, under a steady writer")
	for _, line := range report {
		fmt.Println(line)
	}
	tree := c.labTree()
	c.mustRun("down")
	expectGone(t, tree, 5*time.Second)
	if left := c.processes(); len(left) != 0 {
		t.Errorf("processes left after down: %v", left)
	}
}

// killProcess kills the lab's process name, checks that the lab says
// degraded until it is back and running after, and returns how long after
// the kill lab.json said running again, and the writer's writes succeeded
// again.
func (c *cli) killProcess(t *testing.T, w *chaosWorkload, name string) (running, writes time.Duration) {
	t.Helper()
	d := control.Dir(c.stateDir)
	victim := c.labProcess(name)
	before := restartsOf(t, d, name)
	mark := w.mark()
	killed := time.Now()
	if err := syscall.Kill(victim.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// lab.json says degraded while the process is down, then running with
	// one more restart.
	sawDegraded := false
	deadline := time.Now().Add(recoveryBound)
	for {
		st, err := d.Status()
		if err != nil {
			t.Fatalf("status after killing %s: %v", name, err)
		}
		if st.State == control.StateDegraded {
			sawDegraded = true
		}
		if st.State == control.StateRunning && restartsIn(st.Health, name) == before+1 {
			running = time.Since(killed)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("lab not running again %s after killing %s: %+v", recoveryBound, name, st.Health)
		}
		time.Sleep(2 * time.Millisecond) // polling a file, tightly, not timing
	}
	if !sawDegraded {
		t.Errorf("lab.json never said degraded after killing %s", name)
	}
	// Running means working: a write made now succeeds.
	if took, err := w.probe(name); err != nil {
		t.Errorf("a write right after lab.json said running again (%s killed): %v", name, err)
	} else {
		t.Logf("%s: lab.json said running again %s after the kill; a write right then took %s", name, running.Round(time.Millisecond), took.Round(time.Millisecond))
	}
	out := c.mustRun("status")
	if want := fmt.Sprintf("%s up, restarts %d", name, before+1); !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
		t.Errorf("status after %s restarted: want %q in\n%s", name, want, out)
	}
	return running, w.recoveredAfter(mark, killed)
}

// killLab kills the crdlab process itself, checks that nothing of it is
// left, starts 'crdlab up -d' again on the same data dir and returns how
// long after the kill the new lab was ready, and writes succeeded again.
func (c *cli) killLab(t *testing.T, w *chaosWorkload, data string) (running, writes time.Duration) {
	t.Helper()
	tree := c.labTree()
	mark := w.mark()
	killed := time.Now()
	if err := syscall.Kill(tree[0].PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	expectGone(t, tree, 5*time.Second)
	c.mustRun("up", "-d", "--data-dir", data)
	running = time.Since(killed)
	w.reconnect() // a new lab: new certificates, a new port
	return running, w.recoveredAfter(mark, killed)
}

// labProcess returns the running lab's process called name.
func (c *cli) labProcess(name string) server.Process {
	c.t.Helper()
	tree := c.labTree()
	for _, p := range tree {
		if p.Name == name {
			return p
		}
	}
	c.t.Fatalf("no %s in the lab's processes %v", name, tree)
	return server.Process{}
}

func restartsOf(t *testing.T, d control.Dir, name string) int {
	t.Helper()
	st, err := d.Status()
	if err != nil {
		t.Fatal(err)
	}
	return restartsIn(st.Health, name)
}

func restartsIn(h control.Health, name string) int {
	for _, p := range h.Processes {
		if p.Name == name {
			return p.Restarts
		}
	}
	return -1
}

// chaosWorkload writes and watches objects in one namespace of a lab.
type chaosWorkload struct {
	t  *testing.T
	c  *cli
	ns string

	mu       sync.Mutex
	client   dynamic.Interface
	acked    map[string]bool // "resource/name" answered 2xx
	unknown  map[string]bool // no answer (refused, timed out, 5xx)
	success  []time.Time     // when each acknowledged write was answered
	watched  map[string]bool // what the watcher holds
	stopW    context.CancelFunc
	wg       sync.WaitGroup
	informer context.CancelFunc
	synced   func() bool
	n        int
	probes   int
}

func newChaosWorkload(t *testing.T, c *cli) *chaosWorkload {
	w := &chaosWorkload{t: t, c: c, ns: "chaos", acked: map[string]bool{}, unknown: map[string]bool{}}
	c.kubectl("", "create", "namespace", w.ns)
	w.reconnect()
	return w
}

// reconnect makes the clients anew from the lab's kubeconfig, and a new
// watcher, which lists and then watches.
func (w *chaosWorkload) reconnect() {
	w.t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", control.Dir(w.c.stateDir).Kubeconfig())
	if err != nil {
		w.t.Fatal(err)
	}
	cfg.Timeout = 10 * time.Second
	cfg.QPS, cfg.Burst = 1000, 1000
	cli, err := dynamic.NewForConfig(cfg)
	if err != nil {
		w.t.Fatal(err)
	}
	w.mu.Lock()
	w.client = cli
	if w.informer != nil {
		w.informer()
	}
	w.watched = map[string]bool{}
	w.mu.Unlock()

	ctx, cancel := context.WithCancel(context.Background())
	f := dynamicinformer.NewFilteredDynamicSharedInformerFactory(cli, 0, w.ns, nil)
	for _, gvr := range []schema.GroupVersionResource{configMaps, users} {
		inf := f.ForResource(gvr).Informer()
		_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc: func(obj any) { w.see(gvr, obj, true) },
			DeleteFunc: func(obj any) {
				if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
					obj = d.Obj
				}
				w.see(gvr, obj, false)
			},
		})
	}
	f.Start(ctx.Done())
	w.mu.Lock()
	w.informer = cancel
	w.synced = func() bool {
		for _, ok := range f.WaitForCacheSync(ctx.Done()) {
			if !ok {
				return false
			}
		}
		return true
	}
	w.mu.Unlock()
}

func (w *chaosWorkload) see(gvr schema.GroupVersionResource, obj any, present bool) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.watched != nil {
		w.watched[gvr.Resource+"/"+u.GetName()] = present
	}
}

// start runs the writer: one object every 20 ms, ConfigMaps and Users in
// turn, each recorded as acknowledged when the apiserver answered 2xx.
func (w *chaosWorkload) start() {
	ctx, cancel := context.WithCancel(context.Background())
	w.stopW = cancel
	w.wg.Go(func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for ctx.Err() == nil {
			// Stopping the writer does not cancel the write in flight:
			// stop waits for its answer, so that the final list sees
			// whatever it stored (a canceled create can still be stored
			// after the list, and the watcher then holds an object the
			// list lacks). cfg.Timeout bounds it.
			w.write(context.WithoutCancel(ctx))
			select {
			case <-ctx.Done():
			case <-tick.C:
			}
		}
	})
}

func (w *chaosWorkload) write(ctx context.Context) {
	w.mu.Lock()
	w.n++
	n, cli := w.n, w.client
	w.mu.Unlock()
	name := fmt.Sprintf("obj-%05d", n)
	gvr := configMaps
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name},
		"data":     map[string]any{"n": strconv.Itoa(n)},
	}}
	if n%2 == 0 {
		gvr = users
		obj = &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "auth.ilinux.io/v1beta1", "kind": "User",
			"metadata": map[string]any{"name": name},
			"spec":     map[string]any{"userID": int64(1 + n%65535), "groups": []any{"chaos"}},
		}}
	}
	key := gvr.Resource + "/" + name
	began := time.Now()
	_, err := cli.Resource(gvr).Namespace(w.ns).Create(ctx, obj, metav1.CreateOptions{})
	if os.Getenv("CHAOS_DEBUG") != "" && time.Since(began) > 300*time.Millisecond {
		w.t.Logf("%s %s took %s: %v", began.Format("15:04:05.000"), key, time.Since(began), err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case err == nil:
		w.acked[key] = true
		w.success = append(w.success, time.Now())
	case ctx.Err() != nil:
	case apierrors.IsInvalid(err) || apierrors.IsBadRequest(err):
		w.t.Errorf("the writer's %s is invalid: %v", key, err)
	default:
		w.unknown[key] = true // it may or may not have been stored
		if os.Getenv("CHAOS_DEBUG") != "" {
			w.t.Logf("%s %s: %v", time.Now().Format("15:04:05.000"), key, err)
		}
	}
}

// probe creates one ConfigMap, outside the writer's count, and says how
// long the apiserver took to answer.
func (w *chaosWorkload) probe(fault string) (time.Duration, error) {
	w.mu.Lock()
	cli := w.client
	w.probes++
	name := fmt.Sprintf("probe-%s-%d", fault, w.probes)
	w.mu.Unlock()
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name},
	}}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := cli.Resource(configMaps).Namespace("default").Create(ctx, obj, metav1.CreateOptions{}) // not among the writer's
	return time.Since(start), err
}

// mark returns how many writes were acknowledged so far.
func (w *chaosWorkload) mark() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.success)
}

// waitWrites waits until n more writes are acknowledged.
func (w *chaosWorkload) waitWrites(n int) {
	w.t.Helper()
	w.recoveredAfter(w.mark()+n-1, time.Now())
}

// recoveredAfter waits for the first write acknowledged after mark and
// returns how long after since it was answered.
func (w *chaosWorkload) recoveredAfter(mark int, since time.Time) time.Duration {
	w.t.Helper()
	deadline := time.Now().Add(2 * recoveryBound)
	for {
		w.mu.Lock()
		if len(w.success) > mark {
			at := w.success[mark]
			w.mu.Unlock()
			return at.Sub(since)
		}
		w.mu.Unlock()
		if time.Now().After(deadline) {
			w.t.Fatalf("no write succeeded within %s", 2*recoveryBound)
		}
		time.Sleep(5 * time.Millisecond) // polling a counter, not timing
	}
}

// verify lists both resources and compares: every write acknowledged
// before the list must be in it, and the watcher must come to hold
// everything the list holds (with final, once the writer stopped: exactly
// that). It returns the writes acknowledged before the list, how many of
// them were found, and how many listed objects were written without an
// answer (refused connections or timeouts after the write was stored).
func (w *chaosWorkload) verify(final bool) (acked, found, extra int) {
	w.t.Helper()
	w.mu.Lock()
	cli, synced := w.client, w.synced
	ackedKeys := maps.Clone(w.acked)
	w.mu.Unlock()
	if !synced() {
		w.t.Fatal("the watcher never synced")
	}
	ctx := context.Background()
	listed := map[string]bool{}
	for _, gvr := range []schema.GroupVersionResource{configMaps, users} {
		var list *unstructured.UnstructuredList
		var err error
		deadline := time.Now().Add(recoveryBound)
		for {
			list, err = cli.Resource(gvr).Namespace(w.ns).List(ctx, metav1.ListOptions{})
			if err == nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(50 * time.Millisecond) // the lab is recovering; retried until the deadline
		}
		if err != nil {
			w.t.Fatalf("list %s: %v", gvr.Resource, err)
		}
		for _, item := range list.Items {
			listed[gvr.Resource+"/"+item.GetName()] = true
		}
	}
	for k := range ackedKeys {
		if listed[k] {
			found++
		} else {
			w.t.Errorf("acknowledged write %s not found", k)
		}
	}
	w.mu.Lock()
	for k := range listed {
		if !w.acked[k] {
			extra++
		}
	}
	w.mu.Unlock()
	// The watcher catches up with what the list saw, in a bounded time.
	deadline := time.Now().Add(recoveryBound)
	for {
		w.mu.Lock()
		var differ []string
		for k := range listed {
			if !w.watched[k] {
				differ = append(differ, "missing "+k)
			}
		}
		for k, present := range w.watched {
			if final && present && !listed[k] {
				differ = append(differ, "not listed "+k)
			}
		}
		w.mu.Unlock()
		if len(differ) == 0 {
			break
		}
		if time.Now().After(deadline) {
			slices.Sort(differ)
			w.t.Errorf("the watcher and the list differ on %d objects after %s: %v", len(differ), recoveryBound, differ[:min(5, len(differ))])
			break
		}
		time.Sleep(10 * time.Millisecond) // polling the watcher's state
	}
	return len(ackedKeys), found, extra
}

// stop stops the writer; close stops the watcher.
func (w *chaosWorkload) stop() {
	w.stopW()
	w.wg.Wait()
}

// close stops the watcher.
func (w *chaosWorkload) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.informer != nil {
		w.informer()
	}
}

// An ephemeral lab whose etcd comes back without its data (its data dir
// removed under it) says so, and stays degraded: nothing brings the
// objects back, and pretending otherwise would hide it.
func TestEtcdDataLossIsReported(t *testing.T) {
	c := newCLI(t)
	c.mustRun("up", "-d", "--components", "none")
	data := control.Dir(c.stateDir).EtcdData()
	if _, err := os.Stat(filepath.Join(data, "member")); err != nil {
		t.Skipf("the lab's etcd does not run on %s (no etcd template?): %v", data, err)
	}
	if err := os.RemoveAll(filepath.Join(data, "member")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(c.labProcess("etcd").PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(recoveryBound)
	for {
		st, err := control.Dir(c.stateDir).Status()
		if err != nil {
			t.Fatal(err)
		}
		if restartsIn(st.Health, "etcd") == 1 && len(st.Problems) > 0 {
			if st.State != control.StateDegraded {
				t.Errorf("state %q with problems %v, want degraded", st.State, st.Problems)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no problem reported %s after etcd came back empty: %+v", recoveryBound, st.Health)
		}
		time.Sleep(10 * time.Millisecond) // polling a file
	}
	out, _ := c.run("status")
	for _, want := range []string{"degraded", "problem:", "etcd restarted without its data", "objects written before the crash are lost"} {
		if !strings.Contains(out, want) {
			t.Errorf("status does not say %q:\n%s", want, out)
		}
	}
	c.mustRun("down")
}
