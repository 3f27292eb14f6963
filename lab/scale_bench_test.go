//go:build linux

package lab_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/crdlab/crdlab/lab"
	"github.com/crdlab/crdlab/lab/kubelet"
)

// BenchmarkScale runs, one after the other in the same run, the same
// control plane of a lab (etcd, kube-apiserver, kube-controller-manager,
// kube-scheduler, the lab's flags) with two node simulators: crdlab's
// simulated kubelets (the nodes component, in this process), and KWOK's
// controller ($CRDLAB_KWOK_BINARY, built by 'make bench-scale' from the Go
// module sigs.k8s.io/kwok, with the stages kwokctl gives it by default,
// read from $CRDLAB_KWOK_STAGES, its module's kustomize/stage), started
// with the components as the nodes are, on Node objects this benchmark
// creates. Each row: $CRDLAB_BENCH_SCALE_NODES nodes (1,000) Ready, a
// Deployment 0 → $CRDLAB_BENCH_SCALE_PODS Pods (10,000) Ready and back to
// none, then a Job of $CRDLAB_BENCH_SCALE_JOB Pods (0: none) run to
// completion and deleted. It prints docs/scale.md's tables: the times and
// rates, kube-apiserver's request latency over the Pods' phases (its
// apiserver_request_duration_seconds histogram), each process's PSS with
// every Pod Ready and its CPU seconds over the row, and crdlab's figures
// as ratios of KWOK's.
//
//	make bench-scale    # BENCH_SCALE_PODS=1000 for a short run
func BenchmarkScale(b *testing.B) {
	quiet()
	kwokBinary, stages := os.Getenv("CRDLAB_KWOK_BINARY"), os.Getenv("CRDLAB_KWOK_STAGES")
	if kwokBinary == "" || stages == "" {
		b.Fatal("CRDLAB_KWOK_BINARY must name the kwok binary and CRDLAB_KWOK_STAGES its module's kustomize/stage folder (make bench-scale sets both)")
	}
	size := scaleSize{
		nodes: envCount(b, "CRDLAB_BENCH_SCALE_NODES", 1000),
		pods:  envCount(b, "CRDLAB_BENCH_SCALE_PODS", 10000),
		job:   envCount(b, "CRDLAB_BENCH_SCALE_JOB", 0),
	}
	kwok := &kwokSimulator{binary: kwokBinary, stages: stages, dir: b.TempDir()}
	fmt.Printf("\n%d nodes; a Deployment 0 → %d Pods → 0; a Job of %d Pods. %d CPUs, load average %s.\n",
		size.nodes, size.pods, size.job, runtime.NumCPU(), loadavg())
	prof := newProfiler(b)
	crdlab := runScaleRow(b, "crdlab", size, nil, nil, prof)
	crdlab.print()
	switch peer := os.Getenv("CRDLAB_BENCH_SCALE_PEER"); peer {
	case "", "kwok":
	case "none": // crdlab's row alone: its figures, no ratios
		b.ReportMetric(crdlab.rate(crdlab.up), "crdlab-pods-up/s")
		return
	default:
		b.Fatalf("CRDLAB_BENCH_SCALE_PEER=%q: want kwok (KWOK's controller, the default) or none (crdlab's row alone)", peer)
	}
	peer := runScaleRow(b, "KWOK "+kwok.version(b), size, kwok, crdlab, prof)
	peer.print()
	printScaleTables(size, crdlab, peer)
	b.ReportMetric(crdlab.rate(crdlab.up), "crdlab-pods-up/s")
	b.ReportMetric(peer.rate(peer.up), "kwok-pods-up/s")
	b.ReportMetric(crdlab.rate(crdlab.up)/peer.rate(peer.up), "crdlab/kwok-up")
	b.ReportMetric(crdlab.rate(crdlab.down)/peer.rate(peer.down), "crdlab/kwok-down")
}

// scaleSize is what a row of BenchmarkScale runs.
type scaleSize struct{ nodes, pods, job int }

// envCount reads a count from the environment variable name, def if unset.
func envCount(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		b.Fatalf("%s=%q: want a count", name, v)
	}
	return n
}

// runScaleRow starts a lab of the components and nodes, with crdlab's
// simulated kubelets or, if sim is set, with sim started alongside the
// components instead, and measures one row. Given ref, crdlab's row, each
// Pod phase is bounded by twice ref's time for it (at least 3 minutes):
// a peer that is not done by then is at most half as fast, and its row
// gives that bound (the run stays within make bench-scale's 15 minutes).
// prof profiles the Deployment's scale-up and scale-down.
func runScaleRow(b *testing.B, name string, size scaleSize, sim *kwokSimulator, ref *scaleRow, prof *profiler) *scaleRow {
	ctx := context.Background()
	debug.FreeOSMemory() // what the row before left on this process's heap
	r := &scaleRow{name: name, pods: size.pods, jobPods: size.job, loadBefore: loadavg()}
	selfCPU := cpuSeconds(b, os.Getpid())
	var apiReady time.Time
	opts := lab.Options{
		Components:     []string{lab.ControllerManager, lab.Scheduler, lab.Nodes},
		Nodes:          size.nodes,
		StartTimeout:   5 * time.Minute,
		APIServerFlags: prof.apiServerFlags(),
		// Start is called on this goroutine and reports apiserver-ready
		// before it starts the components: no other goroutine writes it.
		Progress: func(p lab.Progress) {
			if p.Phase == lab.PhaseAPIServerReady {
				apiReady = time.Now()
			}
		},
	}
	if sim != nil {
		opts.Components = opts.Components[:2] // the same lab, its nodes left to the peer
		opts.Alongside = func(ctx context.Context, l *lab.Lab) (lab.Operators, error) {
			return nil, sim.start(ctx, l, size.nodes)
		}
	}
	start := time.Now()
	l, stop := startBenchLab(ctx, b, name, opts, sim)
	defer stop()
	cfg := l.RESTConfig()
	cfg.ContentType = k8sruntime.ContentTypeProtobuf
	cs := kubernetes.NewForConfigOrDie(cfg)
	metrics := kubernetes.NewForConfigOrDie(l.RESTConfig()).CoreV1().RESTClient() // text from /metrics
	waitNodesSchedulable(ctx, b, cs, size.nodes, 5*time.Minute)
	r.boot, r.nodes = time.Since(start), time.Since(apiReady)

	before := scrapeLatency(ctx, b, metrics)
	ns := "scale"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	if _, err := cs.AppsV1().Deployments(ns).Create(ctx, deployment(ns, "scale", 0), metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	upBound, downBound := phaseTimeout(size.pods), phaseTimeout(size.pods)
	if ref != nil {
		upBound, downBound = peerBound(ref.up), peerBound(ref.down)
	}
	rowName := strings.ToLower(strings.Fields(name)[0]) // crdlab, kwok: the profiles' names
	stopProfile := prof.start(ctx, b, l, rowName, "up")
	t0 := time.Now()
	scaleDeployment(ctx, b, cs, ns, "scale", size.pods)
	labelled(ctx, "watch", func() { r.up = r.waitPods(ctx, b, cs, ns, "app=scale", size.pods, upBound, "0 → %d Pods", t0) })
	stopProfile()
	r.procs = snapshot(b)
	stopProfile = prof.start(ctx, b, l, rowName, "down")
	t0 = time.Now()
	scaleDeployment(ctx, b, cs, ns, "scale", 0)
	labelled(ctx, "watch", func() { r.down = r.waitPods(ctx, b, cs, ns, "app=scale", 0, downBound, "%d → 0 Pods", t0) })
	stopProfile()
	if size.job > 0 {
		r.jobRun, r.jobGone = runJob(ctx, b, cs, ns, size.job, phaseTimeout(size.job))
	}
	r.latency = scrapeLatency(ctx, b, metrics).minus(before)
	for name, p := range snapshot(b) { // CPU over the row: the children started in it
		q := r.procs[name]
		q.cpu = p.cpu
		if name == benchProcess {
			q.cpu -= selfCPU
		}
		r.procs[name] = q
	}
	r.loadAfter = loadavg()
	return r
}

// phaseTimeout bounds a phase of n Pods: 20 Pods a second, at least 3 minutes.
func phaseTimeout(n int) time.Duration {
	return max(3*time.Minute, time.Duration(n)*time.Second/20)
}

// peerBound bounds a phase of the peer's by what it took crdlab: twice as long,
// at least 3 minutes.
func peerBound(took time.Duration) time.Duration { return max(3*time.Minute, 2*took) }

func scaleDeployment(ctx context.Context, b *testing.B, cs kubernetes.Interface, ns, name string, replicas int) {
	if _, err := cs.AppsV1().Deployments(ns).Patch(ctx, name, "application/merge-patch+json",
		fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, replicas), metav1.PatchOptions{}); err != nil {
		b.Fatalf("scale deployment %s/%s to %d: %v", ns, name, replicas, err)
	}
}

// deleteBackground is the propagation that leaves the Pods to the garbage
// collector, as kubectl delete does.
var deleteBackground = metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)}

// runJob runs a Job of n Pods at once to completion (each Pod done as
// soon as it runs, as KWOK's pod-complete stage does it), then deletes it
// and waits until its Pods are gone.
func runJob(ctx context.Context, b *testing.B, cs kubernetes.Interface, ns string, n int, timeout time.Duration) (run, gone time.Duration) {
	labels := map[string]string{"app": "batch"}
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "batch", Namespace: ns},
		Spec: batchv1.JobSpec{
			Completions: ptr.To(int32(n)),
			Parallelism: ptr.To(int32(n)),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: map[string]string{kubelet.AnnotationRunTime: "0s"}},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers:    []corev1.Container{{Name: "main", Image: "busybox"}},
				},
			},
		},
	}
	t0 := time.Now()
	if _, err := cs.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	var succeeded int32
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		j, err := cs.BatchV1().Jobs(ns).Get(ctx, job.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		succeeded = j.Status.Succeeded
		return int(succeeded) >= n, nil
	})
	if err != nil {
		b.Fatalf("job %s/%s: %d of %d Pods succeeded after %s: %v", ns, job.Name, succeeded, n, timeout, err)
	}
	run = time.Since(t0)
	t0 = time.Now()
	if err := cs.BatchV1().Jobs(ns).Delete(ctx, job.Name, deleteBackground); err != nil {
		b.Fatal(err)
	}
	waitReady(ctx, b, cs, ns, "app=batch", 0, timeout)
	return run, time.Since(t0)
}

// waitPods waits as waitReady does, and returns the time since start. A
// phase that timed out does not fail the benchmark: it returns timeout,
// so that its rate is an upper bound, and the row notes how far it got.
func (r *scaleRow) waitPods(ctx context.Context, b *testing.B, cs kubernetes.Interface, ns, selector string, n int, timeout time.Duration, phase string, start time.Time) time.Duration {
	return r.waitPodsWhere(ctx, b, cs, ns, selector, n, isReady, timeout, phase, start)
}

// isReady and isRunning are what waitPodsWhere can wait for of each Pod:
// Ready (a Deployment's count), or in phase Running (what kubectl get
// shows as STATUS Running, KWOK's benchmark's count).
func isReady(p *corev1.Pod) bool   { return !readySince(*p).IsZero() }
func isRunning(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning }

// waitPodsWhere waits, as waitPods does, until exactly n Pods of the
// selector are there, none being deleted and each as cond says.
func (r *scaleRow) waitPodsWhere(ctx context.Context, b *testing.B, cs kubernetes.Interface, ns, selector string, n int, cond func(*corev1.Pod) bool, timeout time.Duration, phase string, start time.Time) time.Duration {
	wctx, cancel := context.WithTimeout(ctx, timeout-time.Since(start))
	defer cancel()
	// ready: each Pod, by namespace and name (Pods of Deployments alike
	// in two namespaces can have the same name), and whether it is as
	// cond says; good counts those as they change, not by a pass over all
	// of them at each event (100,000 Pods).
	ready := map[string]bool{}
	good := 0
	set := func(p *corev1.Pod, deleted bool) {
		key := p.Namespace + "/" + p.Name
		if ready[key] {
			good--
		}
		if deleted {
			delete(ready, key)
			return
		}
		v := p.DeletionTimestamp == nil && cond(p)
		ready[key] = v
		if v {
			good++
		}
	}
	done := func() bool { return good == n && len(ready) == n }
	// list takes every Pod afresh, as a reflector does when its watch
	// falls out of the apiserver's window (410 Gone): watching again from
	// the same version would be refused at once, again and again.
	list := func() string {
		pods, err := cs.CoreV1().Pods(ns).List(wctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil && wctx.Err() != nil {
			return "" // timed out: noted below
		}
		if err != nil {
			b.Fatal(err)
		}
		clear(ready)
		good = 0
		for i := range pods.Items {
			set(&pods.Items[i], false)
		}
		return pods.ResourceVersion
	}
	rv := list()
	for !done() && wctx.Err() == nil {
		w, err := cs.CoreV1().Pods(ns).Watch(wctx, metav1.ListOptions{LabelSelector: selector, ResourceVersion: rv, AllowWatchBookmarks: true})
		if err != nil {
			break
		}
		relist := false
		for ev := range w.ResultChan() {
			if ev.Type == watch.Error {
				relist = true
				break
			}
			p, ok := ev.Object.(*corev1.Pod)
			if !ok {
				continue
			}
			rv = p.ResourceVersion
			switch ev.Type {
			case watch.Deleted:
				set(p, true)
			case watch.Added, watch.Modified:
				set(p, false)
			}
			if done() {
				break
			}
		}
		w.Stop()
		if relist && !done() && wctx.Err() == nil {
			rv = list()
		}
	}
	if done() {
		return time.Since(start)
	}
	if ctx.Err() != nil {
		b.Fatal(ctx.Err())
	}
	r.notes = append(r.notes, fmt.Sprintf(phase+": not done after %s, %d Pods there, %d of them done: its figure is that bound (the time at least, the rate at most)",
		r.pods, timeout.Round(time.Second), len(ready), good))
	return timeout
}

// startBenchLab starts a row's lab, and returns how to stop it and sim
// (its last lines told if the row failed).
func startBenchLab(ctx context.Context, b *testing.B, name string, opts lab.Options, sim *kwokSimulator) (*lab.Lab, func()) {
	b.Helper()
	l, err := lab.Start(ctx, opts)
	if err != nil {
		b.Fatalf("%s: %v", name, err)
	}
	return l, func() {
		if sim != nil {
			sim.stop(b)
			if b.Failed() {
				b.Logf("%s, its last lines:\n%s", sim.log(), tail(sim.log(), 30))
			}
		}
		if err := l.Stop(); err != nil {
			b.Fatal(err)
		}
	}
}
