package lab_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/crdlab/crdlab/lab"
	"github.com/crdlab/crdlab/lab/internal/proc"
	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/multicall"
)

// restAfter is when BenchmarkBoot measures memory a second time: a
// point of measure, the same for every row (a lab's components are idle
// some 3–7 s after they start; see lab/internal/kubemain/idlegc.go).
const restAfter = 10 * time.Second

// BenchmarkBoot boots and stops, side by side in each round and in
// rotating order: the reference, plain envtest on standalone etcd and
// kube-apiserver binaries ($CRDLAB_STANDALONE_ASSETS, which 'make bench'
// builds from go.mod's versions with 'make standalone'), what a user of
// setup-envtest runs; plain envtest on this multi-call binary; a lab of
// the same two components; and a full lab (plus controller-manager,
// scheduler, three simulated nodes). It reports median boot and stop
// times, their ratios against the reference, and the resident memory of
// each process, as soon as each is up and again restAfter later.
//
//	make bench
func BenchmarkBoot(b *testing.B) {
	if f := flag.Lookup("test.benchtime"); f != nil {
		// -benchtime Nx: skip the harness's first run of b.N = 1, which
		// would boot everything and run the loops once more.
		if n, err := strconv.Atoi(strings.TrimSuffix(f.Value.String(), "x")); err == nil && b.N < n {
			return
		}
	}
	quiet()
	ctx := context.Background()
	bin, err := multicall.Link(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	standalone := os.Getenv("CRDLAB_STANDALONE_ASSETS")
	if standalone == "" {
		b.Fatal("CRDLAB_STANDALONE_ASSETS must name a folder of standalone etcd and kube-apiserver binaries (make standalone; make bench sets it)")
	}
	cli := os.Getenv("CRDLAB_BINARY") // bin/crdlab: 'crdlab up -d' and 'crdlab down' too
	times := map[string][]time.Duration{}
	rss := map[string][]int64{}
	// recordTree notes a boot's time and the memory of the processes it
	// started: pid's children (pid itself too with self). record does it
	// for the children of this benchmark.
	// memoryOf notes the PSS and RSS of pid's tree (pid itself too with
	// self) under key.
	memoryOf := func(key string, pid int, self bool) {
		tree, err := proc.Tree(pid)
		if err != nil {
			b.Fatal(err)
		}
		if !self {
			tree = tree[1:]
		}
		var total, totalPSS int64
		for _, p := range tree {
			rss[key+"/"+p.Name+"-rss"] = append(rss[key+"/"+p.Name+"-rss"], p.RSS)
			rss[key+"/"+p.Name+"-pss"] = append(rss[key+"/"+p.Name+"-pss"], p.PSS)
			total += p.RSS
			totalPSS += p.PSS
		}
		rss[key+"/children-rss"] = append(rss[key+"/children-rss"], total)
		rss[key+"/children-pss"] = append(rss[key+"/children-pss"], totalPSS)
	}
	// atRest notes the memory of the tree again restAfter later, the row's
	// name with "@rest": memory as a lab left alone holds it, once its
	// boot's garbage is collected (a lab's components return it as soon
	// as they are idle; any process's runtime returns it in time).
	atRest := func(name string, pid int, self bool) {
		b.StopTimer()
		defer b.StartTimer()
		time.Sleep(restAfter)
		memoryOf(name+"@rest", pid, self)
	}
	recordTree := func(name string, start time.Time, pid int, self bool) {
		times[name] = append(times[name], time.Since(start))
		memoryOf(name, pid, self)
	}
	record := func(name string, start time.Time) {
		recordTree(name, start, os.Getpid(), false)
		atRest(name, os.Getpid(), false)
	}
	stopped := func(name string, stop func() error) {
		start := time.Now()
		if err := stop(); err != nil {
			b.Fatal(err)
		}
		times[name+"-stop"] = append(times[name+"-stop"], time.Since(start))
	}
	envtestBoot := func(name, assets string) func() {
		return func() {
			start := time.Now()
			env := &envtest.Environment{BinaryAssetsDirectory: assets}
			if _, err := env.Start(); err != nil {
				b.Fatal(err)
			}
			record(name, start)
			stopped(name, env.Stop)
		}
	}
	labBoot := func(name string, opts lab.Options) func() {
		return func() {
			start := time.Now()
			l, err := lab.Start(ctx, opts)
			if err != nil {
				b.Fatal(err)
			}
			record(name, start)
			stopped(name, l.Stop)
		}
	}
	// What a user types: 'crdlab up -d' until it returns, then 'crdlab
	// down' until it returns; the tree is the lab process and its children.
	cliBoot := func() {
		state := b.TempDir()
		start := time.Now()
		if out, err := exec.Command(cli, "up", "-d", "--state-dir", state).CombinedOutput(); err != nil {
			b.Fatalf("crdlab up -d: %v\n%s", err, out)
		}
		st, err := control.Dir(state).Status()
		if err != nil {
			b.Fatal(err)
		}
		recordTree("cli", start, st.PID, true)
		atRest("cli", st.PID, true)
		stopped("cli", func() error {
			if out, err := exec.Command(cli, "down", "--state-dir", state).CombinedOutput(); err != nil {
				return fmt.Errorf("crdlab down: %w\n%s", err, out)
			}
			return nil
		})
	}
	boots := []func(){
		envtestBoot("envtest-standalone", standalone),
		envtestBoot("envtest-multicall", bin),
		labBoot("apiserver-only", lab.Options{Components: []string{}}),
		labBoot("full", lab.Options{}),
	}
	if cli != "" {
		boots = append(boots, cliBoot)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range boots {
			boots[(i+j)%len(boots)]()
		}
	}
	b.StopTimer()
	ref := median(times["envtest-standalone"]).Seconds()
	refStop := median(times["envtest-standalone-stop"]).Seconds()
	b.ReportMetric(ref, "envtest-standalone-s")
	b.ReportMetric(refStop, "envtest-standalone-stop-s")
	for _, name := range []string{"envtest-multicall", "apiserver-only", "full", "cli"} {
		if len(times[name]) == 0 {
			continue
		}
		s := median(times[name]).Seconds()
		b.ReportMetric(s, name+"-s")
		b.ReportMetric(s/ref, name+"/standalone")
		stop := median(times[name+"-stop"]).Seconds()
		b.ReportMetric(stop, name+"-stop-s")
		b.ReportMetric(stop/refStop, name+"-stop/standalone")
	}
	keys := make([]string, 0, len(rss))
	for k := range rss {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b.ReportMetric(float64(median(rss[k]))/(1<<20), k+"-MiB")
	}

	// The loops of a full lab, once: what plain envtest cannot do at all
	// (it has no controllers), so against the targets.
	l, err := lab.Start(ctx, lab.Options{})
	if err != nil {
		b.Fatal(err)
	}
	// Protobuf, as Kubernetes' own components talk: the benchmark's watches
	// should cost the apiserver as little as the components' do.
	pcfg := l.RESTConfig()
	pcfg.ContentType = runtime.ContentTypeProtobuf
	cs := kubernetes.NewForConfigOrDie(pcfg)
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bench"}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	lat := deleteRecovery(ctx, b, l.Client(), cs, "bench", 30)
	rate := scaleRate(ctx, b, l.Client(), cs, "bench", 1000)
	if err := l.Stop(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(percentile(lat, 50).Seconds()*1000, "recovery-p50-ms")
	b.ReportMetric(rate, "pods-ready/s")

	// The table of docs/boot.md, every figure of this run.
	mib := func(name string) float64 { return float64(median(rss[name+"/children-pss"])) / (1 << 20) }
	refPSS := mib("envtest-standalone")
	fmt.Printf("\n%d rounds, medians; ratios against the reference of this run\n\n", b.N)
	refRest := mib("envtest-standalone@rest")
	fmt.Printf("| | boot | × reference | stop | × reference | PSS of the tree | × reference | PSS at rest (%.0f s later) | × reference |\n", restAfter.Seconds())
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	for _, row := range []struct{ name, label string }{
		{"envtest-standalone", "envtest, standalone binaries (**reference**)"},
		{"envtest-multicall", "envtest, crdlab's multi-call binary (second reference)"},
		{"apiserver-only", "lab, apiserver only (`--components none`)"},
		{"full", "full lab (controller-manager, scheduler, 3 nodes, aggregated API)"},
		{"cli", "`crdlab up -d`, `crdlab down` (full lab, the timeline and web UI; crdlab's own process counted)"},
	} {
		if len(times[row.name]) == 0 {
			continue
		}
		boot, stop := median(times[row.name]).Seconds(), median(times[row.name+"-stop"]).Seconds()
		fmt.Printf("| %s | %.2f s | %.2f× | %.3f s | %.2f× | %.0f MiB | %.2f× | %.0f MiB | %.2f× |\n", row.label, boot, boot/ref, stop, stop/refStop,
			mib(row.name), mib(row.name)/refPSS, mib(row.name+"@rest"), mib(row.name+"@rest")/refRest)
	}
	// Each process's memory: PSS, then RSS, which counts the pages an
	// executable shares with the other processes of the same one in full.
	procs := []string{"crdlab", "etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler"}
	fmt.Printf("\nPSS (RSS) of each process, MiB; PSS at rest\n\n| | %s |\n|---|---|---|---|---|---|\n", strings.Join(procs, " | "))
	for _, name := range []string{"envtest-standalone", "envtest-multicall", "apiserver-only", "full", "cli"} {
		if len(times[name]) == 0 {
			continue
		}
		fmt.Printf("| %s |", name)
		for _, p := range procs {
			pss, ok := rss[name+"/"+p+"-pss"]
			if !ok {
				fmt.Print(" – |")
				continue
			}
			fmt.Printf(" %.0f (%.0f); %.0f |", float64(median(pss))/(1<<20), float64(median(rss[name+"/"+p+"-rss"]))/(1<<20),
				float64(median(rss[name+"@rest/"+p+"-pss"]))/(1<<20))
		}
		fmt.Println()
	}
	fmt.Printf("\n| full lab's loops | this run | target |\n|---|---|---|\n")
	fmt.Printf("| delete a Pod → replacement Ready, p50 (p99) of %d | %.0f ms (%.0f ms) | p50 ≤ 50 ms |\n", len(lat),
		percentile(lat, 50).Seconds()*1000, percentile(lat, 99).Seconds()*1000)
	fmt.Printf("| Deployment 0 → 1000 Pods all Ready | %.0f Pods/s | ≥ 200 Pods/s |\n\n", rate)
}

// deleteRecovery deletes a Pod of a 3-replica Deployment n times and returns
// the time from each delete to a replacement's Ready.
func deleteRecovery(ctx context.Context, b *testing.B, c client.Client, cs kubernetes.Interface, ns string, n int) []time.Duration {
	if err := c.Create(ctx, deployment(ns, "web", 3)); err != nil {
		b.Fatal(err)
	}
	waitReady(ctx, b, cs, ns, "app=web", 3, time.Minute)
	var out []time.Duration
	for i := 0; i < n; i++ {
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			b.Fatal(err)
		}
		victim := pods.Items[0].Name
		w, err := cs.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{LabelSelector: "app=web", ResourceVersion: pods.ResourceVersion})
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if err := cs.CoreV1().Pods(ns).Delete(ctx, victim, metav1.DeleteOptions{}); err != nil {
			b.Fatal(err)
		}
		ready := false
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*corev1.Pod)
			if ok && ev.Type == watch.Modified && p.Name != victim && p.DeletionTimestamp == nil && !readySince(*p).IsZero() && p.CreationTimestamp.Time.After(start.Add(-time.Second)) {
				ready = true
				break
			}
		}
		w.Stop()
		if !ready {
			b.Fatal("watch ended before a replacement was ready")
		}
		out = append(out, time.Since(start))
		waitReady(ctx, b, cs, ns, "app=web", 3, time.Minute)
	}
	return out
}

// scaleRate scales a Deployment from 0 to n and returns Pods Ready per second.
func scaleRate(ctx context.Context, b *testing.B, c client.Client, cs kubernetes.Interface, ns string, n int32) float64 {
	d := deployment(ns, "scale", 0)
	if err := c.Create(ctx, d); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if _, err := cs.AppsV1().Deployments(ns).Patch(ctx, "scale", "application/merge-patch+json",
		[]byte(fmt.Sprintf(`{"spec":{"replicas":%d}}`, n)), metav1.PatchOptions{}); err != nil {
		b.Fatal(err)
	}
	waitReady(ctx, b, cs, ns, "app=scale", int(n), 5*time.Minute)
	rate := float64(n) / time.Since(start).Seconds()
	_ = cs.AppsV1().Deployments(ns).Delete(ctx, "scale", metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)})
	return rate
}

// waitReady waits until exactly n Pods match selector in ns, every one
// Ready and none being deleted. It follows a watch, not a poll: listing 1000
// Pods every few hundred milliseconds would take the apiserver's CPU from
// the scale-up it measures, and a watch sees the last Pod turn Ready when
// it does.
func waitReady(ctx context.Context, b *testing.B, cs kubernetes.Interface, ns, selector string, n int, timeout time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		b.Fatal(err)
	}
	ready := map[string]bool{} // every Pod that matches; true when Ready and not deleting
	see := func(p *corev1.Pod) { ready[p.Name] = p.DeletionTimestamp == nil && !readySince(*p).IsZero() }
	done := func() bool {
		count := 0
		for _, r := range ready {
			if r {
				count++
			}
		}
		return count == n && len(ready) == n
	}
	for i := range pods.Items {
		see(&pods.Items[i])
	}
	rv := pods.ResourceVersion
	for !done() {
		w, err := cs.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{LabelSelector: selector, ResourceVersion: rv, AllowWatchBookmarks: true})
		if err != nil {
			b.Fatalf("%d pods %s in %s not ready within %s: %v", n, selector, ns, timeout, err)
		}
		for ev := range w.ResultChan() {
			if ev.Type == watch.Error {
				b.Fatalf("watching pods %s in %s: %v", selector, ns, apierrors.FromObject(ev.Object))
			}
			p, ok := ev.Object.(*corev1.Pod)
			if !ok {
				continue
			}
			rv = p.ResourceVersion
			switch ev.Type {
			case watch.Deleted:
				delete(ready, p.Name)
			case watch.Added, watch.Modified:
				see(p)
			}
			if done() {
				break
			}
		}
		w.Stop() // done, or the apiserver ended the watch: watch again from rv
		if err := ctx.Err(); err != nil {
			b.Fatalf("%d pods %s in %s not ready within %s: %d seen, %v", n, selector, ns, timeout, len(ready), err)
		}
	}
}

func median[T int64 | time.Duration](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func percentile(xs []time.Duration, p int) time.Duration {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	if i > 0 {
		i--
	}
	return s[i]
}

// quiet silences the loggers of what a benchmark runs in this process:
// controller-runtime's (envtest's) and klog (the aggregated API server's).
func quiet() {
	ctrllog.SetLogger(logr.Discard())
	klog.SetLogger(logr.Discard())
}
