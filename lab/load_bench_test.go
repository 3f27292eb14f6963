package lab_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/crdlab/crdlab/lab"
	"github.com/crdlab/crdlab/lab/internal/proc"
)

// Load: how many objects it takes before a lab stops being responsive.
const (
	loadUsers    = 10000
	loadWatchers = 50
	loadWriters  = 16
)

var usersGVR = schema.GroupVersionResource{Group: "auth.ilinux.io", Version: "v1beta1", Resource: "users"}

// BenchmarkUsers creates 10,000 of the seed's User objects while 50
// watchers follow them and a prober reads one object every 50 ms, side by
// side on the reference (plain envtest on standalone etcd and
// kube-apiserver, $CRDLAB_STANDALONE_ASSETS) and on a full lab (whose
// controller-manager, garbage collector and quota controller watch them
// too). It reports create rate, create-to-event latency at the watchers,
// the prober's latency during the load, full and paginated list times,
// and the apiserver's and etcd's memory after, each with its ratio to the
// reference.
//
//	make bench
func BenchmarkUsers(b *testing.B) {
	quiet()
	standalone := os.Getenv("CRDLAB_STANDALONE_ASSETS")
	if standalone == "" {
		b.Fatal("CRDLAB_STANDALONE_ASSETS must name a folder of standalone etcd and kube-apiserver binaries (make standalone; make bench sets it)")
	}
	crd := "../fixtures/crds/users.auth.ilinux.io.yaml"
	results := map[string]loadResult{}
	for i := 0; i < b.N; i++ {
		env := &envtest.Environment{BinaryAssetsDirectory: standalone, CRDDirectoryPaths: []string{crd}, ErrorIfCRDPathMissing: true}
		cfg, err := env.Start()
		if err != nil {
			b.Fatal(err)
		}
		results["envtest-standalone"] = runUserLoad(b, cfg)
		if err := env.Stop(); err != nil {
			b.Fatal(err)
		}

		l, err := lab.Start(context.Background(), lab.Options{CRDDirectoryPaths: []string{crd}})
		if err != nil {
			b.Fatal(err)
		}
		results["full"] = runUserLoad(b, l.RESTConfig())
		if err := l.Stop(); err != nil {
			b.Fatal(err)
		}
	}
	ref := results["envtest-standalone"]
	for _, name := range []string{"envtest-standalone", "full"} {
		r := results[name]
		metrics := []struct {
			unit       string
			value, ref float64
		}{
			{"creates/s", r.createRate, ref.createRate},
			{"event-p50-ms", ms(r.eventP50), ms(ref.eventP50)},
			{"event-p99-ms", ms(r.eventP99), ms(ref.eventP99)},
			{"probe-p99-ms", ms(r.probeP99), ms(ref.probeP99)},
			{"list-all-ms", ms(r.listAll), ms(ref.listAll)},
			{"list-paged-ms", ms(r.listPaged), ms(ref.listPaged)},
			{"apiserver-rss-MiB", mib(r.apiserverRSS), mib(ref.apiserverRSS)},
			{"etcd-rss-MiB", mib(r.etcdRSS), mib(ref.etcdRSS)},
			{"apiserver-pss-MiB", mib(r.apiserverPSS), mib(ref.apiserverPSS)},
			{"etcd-pss-MiB", mib(r.etcdPSS), mib(ref.etcdPSS)},
		}
		for _, m := range metrics {
			b.ReportMetric(m.value, name+"-"+m.unit)
			if name != "envtest-standalone" && m.ref != 0 {
				b.ReportMetric(m.value/m.ref, name+"-"+m.unit+"/standalone")
			}
		}
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
func mib(n int64) float64        { return float64(n) / (1 << 20) }

type loadResult struct {
	createRate            float64
	eventP50, eventP99    time.Duration
	probeP99              time.Duration
	listAll, listPaged    time.Duration
	apiserverRSS, etcdRSS int64
	apiserverPSS, etcdPSS int64
}

func runUserLoad(b *testing.B, cfg *rest.Config) loadResult {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = -1, 0 // no client-side throttling: the server is measured
	kube := kubernetes.NewForConfigOrDie(cfg)
	dyn := dynamic.NewForConfigOrDie(cfg)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "load-"}}
	ns, err := kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
	if err != nil {
		b.Fatal(err)
	}
	users := dyn.Resource(usersGVR).Namespace(ns.Name)

	// Every 10th object's send time, to measure create → watch event.
	var sent sync.Map
	var (
		mu     sync.Mutex
		delays []time.Duration
		seen   atomic.Int64
	)
	var watchers sync.WaitGroup
	for range loadWatchers {
		w, err := users.Watch(ctx, metav1.ListOptions{})
		if err != nil {
			b.Fatal(err)
		}
		watchers.Go(func() {
			defer w.Stop()
			got := 0
			for e := range w.ResultChan() {
				if e.Type != watch.Added {
					continue
				}
				now := time.Now()
				got++
				seen.Add(1)
				if u, ok := e.Object.(*unstructured.Unstructured); ok {
					if at, ok := sent.Load(u.GetName()); ok {
						mu.Lock()
						delays = append(delays, now.Sub(at.(time.Time)))
						mu.Unlock()
					}
				}
				if got == loadUsers {
					return
				}
			}
		})
	}

	// The prober: one GET every 50 ms, as a user's kubectl would, while the load runs.
	var probes []time.Duration
	probeDone := make(chan struct{})
	probeCtx, stopProbe := context.WithCancel(ctx)
	go func() {
		defer close(probeDone)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-probeCtx.Done():
				return
			case <-tick.C:
			}
			start := time.Now()
			if _, err := kube.CoreV1().Namespaces().Get(probeCtx, ns.Name, metav1.GetOptions{}); err == nil {
				probes = append(probes, time.Since(start))
			}
		}
	}()

	var next atomic.Int64
	var writers sync.WaitGroup
	start := time.Now()
	for range loadWriters {
		writers.Go(func() {
			for {
				n := next.Add(1)
				if n > loadUsers {
					return
				}
				name := fmt.Sprintf("user-%05d", n)
				if n%10 == 0 {
					sent.Store(name, time.Now())
				}
				u := &unstructured.Unstructured{Object: map[string]any{
					"apiVersion": "auth.ilinux.io/v1beta1", "kind": "User",
					"metadata": map[string]any{"name": name},
					"spec": map[string]any{
						"userID": 1 + n%65535, "groups": []any{"load"},
						"email": name + "@example.com",
					},
				}}
				if _, err := users.Create(ctx, u, metav1.CreateOptions{}); err != nil {
					b.Errorf("create %s: %v", name, err)
					return
				}
			}
		})
	}
	writers.Wait()
	created := time.Since(start)
	done := make(chan struct{})
	go func() { watchers.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		b.Errorf("the watchers saw %d of %d events within 2 minutes", seen.Load(), loadUsers*loadWatchers)
	}
	stopProbe()
	<-probeDone

	r := loadResult{createRate: float64(loadUsers) / created.Seconds(), probeP99: percentile(probes, 99)}
	mu.Lock()
	r.eventP50, r.eventP99 = percentile(delays, 50), percentile(delays, 99)
	mu.Unlock()
	var lists, paged []time.Duration
	for range 5 {
		t0 := time.Now()
		list, err := users.List(ctx, metav1.ListOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if len(list.Items) != loadUsers {
			b.Fatalf("list: %d users, want %d", len(list.Items), loadUsers)
		}
		lists = append(lists, time.Since(t0))
		t0 = time.Now()
		opts := metav1.ListOptions{Limit: 500}
		for {
			page, err := users.List(ctx, opts)
			if err != nil {
				b.Fatal(err)
			}
			if opts.Continue = page.GetContinue(); opts.Continue == "" {
				break
			}
		}
		paged = append(paged, time.Since(t0))
	}
	r.listAll, r.listPaged = median(lists), median(paged)
	tree, err := proc.Tree(os.Getpid())
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range tree[1:] {
		switch p.Name {
		case "kube-apiserver":
			r.apiserverRSS, r.apiserverPSS = p.RSS, p.PSS
		case "etcd":
			r.etcdRSS, r.etcdPSS = p.RSS, p.PSS
		}
	}
	return r
}
