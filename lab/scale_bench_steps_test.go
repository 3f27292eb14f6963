//go:build linux

package lab_test

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"

	"github.com/crdlab/crdlab/lab"
)

// kwokLimits are the bounds of KWOK's own benchmark (test/e2e/benchmark.go
// in sigs.k8s.io/kwok) for its three steps: 5,000 nodes Ready, 10,000 Pods
// Running, the 10,000 deleted.
var kwokLimits = [3]time.Duration{60 * time.Second, 60 * time.Second, 90 * time.Second}

// kwokScaleLabel is the label kwokctl scale puts on what it creates, the
// value being the name scaled (pkg/kwokctl/scale).
const kwokScaleLabel = "kwok.x-k8s.io/kwokctl-scale"

// BenchmarkScaleSteps runs KWOK's own benchmark, its three steps, on
// crdlab's simulated nodes and on KWOK's controller, one after the other
// on the same control plane, each on a fresh lab: $CRDLAB_BENCH_SCALE_NODES
// nodes (5,000) Ready; $CRDLAB_BENCH_SCALE_PODS bare Pods (10,000), each
// naming its node, created and Running; the Pods deleted. Its client does
// what kwokctl scale does: one create (or delete) after the other, in JSON,
// not rate limited. The control plane is as KWOK's benchmark runs it:
// kube-apiserver and kube-controller-manager, no kube-scheduler (the Pods
// name their node). It prints docs/scale.md's table: each step's time,
// KWOK's limit for it, both rows and their ratio.
//
//	make bench-scale BENCH_SCALE_STEPS=kwok
func BenchmarkScaleSteps(b *testing.B) {
	quiet()
	kwokBinary, stages := os.Getenv("CRDLAB_KWOK_BINARY"), os.Getenv("CRDLAB_KWOK_STAGES")
	if kwokBinary == "" || stages == "" {
		b.Fatal("CRDLAB_KWOK_BINARY must name the kwok binary and CRDLAB_KWOK_STAGES its module's kustomize/stage folder (make bench-scale sets both)")
	}
	size := scaleSize{
		nodes: envCount(b, "CRDLAB_BENCH_SCALE_NODES", 5000),
		pods:  envCount(b, "CRDLAB_BENCH_SCALE_PODS", 10000),
	}
	if size.nodes < 1 {
		b.Fatal("CRDLAB_BENCH_SCALE_NODES: want at least one node")
	}
	fmt.Printf("\nKWOK's benchmark: %d nodes Ready; %d bare Pods Running; deleted. %d CPUs, load average %s.\n",
		size.nodes, size.pods, runtime.NumCPU(), loadavg())
	prof := newProfiler(b)
	crdlab := runStepsRow(b, "crdlab", size, nil, prof)
	crdlab.print()
	kwok := &kwokSimulator{binary: kwokBinary, stages: stages, dir: b.TempDir(), nodeCreators: 1}
	peer := runStepsRow(b, "KWOK "+kwok.version(b), size, kwok, prof)
	peer.print()
	printStepsTable(size, crdlab, peer)
	for i, name := range []string{"nodes", "pods-running", "pods-deleted"} {
		b.ReportMetric(crdlab.steps[i].Seconds(), "crdlab-"+name+"-s")
		b.ReportMetric(peer.steps[i].Seconds(), "kwok-"+name+"-s")
	}
}

// stepsRow is what BenchmarkScaleSteps measured of one node simulator.
type stepsRow struct {
	*scaleRow
	steps   [3]time.Duration // nodes Ready, Pods Running, Pods deleted
	tooMany int              // requests kube-apiserver answered 429
}

func (r *stepsRow) print() {
	pss, cpu := r.total()
	fmt.Printf("%s: nodes Ready %.1f s after kube-apiserver; %d Pods Running in %.1f s, deleted in %.1f s; %.0f MiB PSS, %.0f CPU s; %d requests answered 429; load %s → %s\n",
		r.name, r.steps[0].Seconds(), r.pods, r.steps[1].Seconds(), r.steps[2].Seconds(), mib(pss), cpu, r.tooMany, r.loadBefore, r.loadAfter)
	for _, n := range r.notes {
		fmt.Printf("%s: %s\n", r.name, n)
	}
}

// runStepsRow starts a lab of kube-controller-manager and crdlab's nodes,
// or, if sim is set, of kube-controller-manager and sim's nodes, and runs
// KWOK's three steps on it; prof profiles steps 2 and 3.
func runStepsRow(b *testing.B, name string, size scaleSize, sim *kwokSimulator, prof *profiler) *stepsRow {
	ctx := context.Background()
	r := &stepsRow{scaleRow: &scaleRow{name: name, pods: size.pods, loadBefore: loadavg()}}
	selfCPU := cpuSeconds(b, os.Getpid())
	var apiReady time.Time
	opts := lab.Options{
		Components:     []string{lab.ControllerManager, lab.Nodes},
		Nodes:          size.nodes,
		StartTimeout:   4 * kwokLimits[0],
		APIServerFlags: prof.apiServerFlags(),
		Progress: func(p lab.Progress) {
			if p.Phase == lab.PhaseAPIServerReady {
				apiReady = time.Now()
			}
		},
	}
	if sim != nil {
		opts.Components = opts.Components[:1]
		opts.Alongside = func(ctx context.Context, l *lab.Lab) (lab.Operators, error) {
			return nil, sim.start(ctx, l, size.nodes)
		}
	}
	l, stop := startBenchLab(ctx, b, name, opts, sim)
	defer stop()
	cs := kwokctlClient(l)
	metrics := kubernetes.NewForConfigOrDie(l.RESTConfig()).CoreV1().RESTClient()
	// Step 1: every node Ready, as KWOK's benchmark counts them (its
	// STATUS in kubectl get nodes), from the moment kube-apiserver serves:
	// crdlab's nodes register then; KWOK's are created then, one after
	// the other, as kwokctl scale node creates them.
	ready := func(n *corev1.Node) bool { return nodeReady(n) == corev1.ConditionTrue }
	r.steps[0] = time.Since(apiReady)
	if good, done := waitNodesWhere(ctx, b, cs, size.nodes, ready, 4*kwokLimits[0]); done {
		r.steps[0] = time.Since(apiReady)
	} else {
		r.steps[0] += 4 * kwokLimits[0]
		r.notes = append(r.notes, fmt.Sprintf("step 1, %d nodes Ready: not done %s later, %d of them Ready: the time is at least the figure",
			size.nodes, 4*kwokLimits[0], good))
	}
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}

	// Step 2: the Pods, created one after the other, each naming a node;
	// until every one is Running.
	selector := kwokScaleLabel + "=fake-pod"
	rowName := strings.ToLower(strings.Fields(name)[0]) // crdlab, kwok: the profiles' names
	stopProfile := prof.start(ctx, b, l, rowName, "running")
	t0 := time.Now()
	created := make(chan error, 1)
	go labelled(ctx, "client", func() { created <- createBarePods(ctx, cs, size.pods, nodes.Items) })
	labelled(ctx, "watch", func() {
		r.steps[1] = r.waitPodsWhere(ctx, b, cs, metav1.NamespaceDefault, selector, size.pods, isRunning, 4*kwokLimits[1], "step 2, %d Pods Running", t0)
	})
	stopProfile()
	if err := <-created; err != nil {
		b.Fatal(err)
	}
	r.procs = snapshot(b)

	// Step 3: the Pods deleted as kwokctl scale pod --replicas 0 does: a
	// list, then a delete of each (graceful, the node simulator confirms),
	// one after the other; until none is left.
	before, beforeSeconds, _ := scrapeRequests(ctx, b, metrics)
	stopProfile = prof.start(ctx, b, l, rowName, "deleted")
	t0 = time.Now()
	deleted := make(chan error, 1)
	var deletes roundTrips
	go labelled(ctx, "client", func() { deleted <- deletePods(ctx, cs, selector, &deletes) })
	labelled(ctx, "watch", func() {
		r.steps[2] = r.waitPodsWhere(ctx, b, cs, metav1.NamespaceDefault, selector, 0, isRunning, 4*kwokLimits[2], "step 3, %d Pods deleted", t0)
	})
	stopProfile()
	if err := <-deleted; err != nil {
		b.Fatal(err)
	}
	for name, p := range snapshot(b) { // CPU over the row
		q := r.procs[name]
		q.cpu = p.cpu
		if name == benchProcess {
			q.cpu -= selfCPU
		}
		r.procs[name] = q
	}
	after, afterSeconds, tooMany := scrapeRequests(ctx, b, metrics)
	r.tooMany = tooMany
	r.notes = append(r.notes, "step 3, kube-apiserver's busiest requests: "+after.minus(before).busiest(6, r.steps[2]))
	const podDeletes = "DELETE pods"
	served, took := after.minus(before)[podDeletes], afterSeconds.minus(beforeSeconds)[podDeletes]
	r.notes = append(r.notes, fmt.Sprintf("step 3, the client's %d deletes took %.1f ms each, from its request to kube-apiserver's answer; kube-apiserver served each of its %.0f Pod deletes (the client's and the node simulator's) in %.1f ms",
		deletes.n, deletes.mean().Seconds()*1000, served, took/max(served, 1)*1000))
	r.loadAfter = loadavg()
	return r
}

// requestCounts are kube-apiserver's requests by verb and resource
// ("PUT leases", "PATCH pods/status"), from its apiserver_request_total,
// or the seconds it took to serve them, from the sum of its
// apiserver_request_duration_seconds.
type requestCounts map[string]float64

// scrapeRequests reads the requests kube-apiserver served since it
// started, the seconds it took to serve them, and how many it answered
// 429 Too Many Requests: with priority and fairness off, those over its
// in-flight limits.
func scrapeRequests(ctx context.Context, b *testing.B, c rest.Interface) (counts, seconds requestCounts, tooMany int) {
	raw, err := c.Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		b.Fatalf("kube-apiserver /metrics: %v", err)
	}
	counts, seconds = requestCounts{}, requestCounts{}
	refused := 0.0
	for line := range strings.SplitSeq(string(raw), "\n") {
		into, total := counts, true
		rest, ok := strings.CutPrefix(line, "apiserver_request_total{")
		if !ok {
			into, total = seconds, false
			rest, ok = strings.CutPrefix(line, "apiserver_request_duration_seconds_sum{")
		}
		if !ok {
			continue
		}
		labels, value, ok := strings.Cut(rest, "} ")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil {
			b.Fatalf("kube-apiserver /metrics: unreadable line %q", line)
		}
		if total && metricLabel(labels, "code") == "429" {
			refused += v
		}
		key := metricLabel(labels, "verb") + " " + metricLabel(labels, "resource")
		if sub := metricLabel(labels, "subresource"); sub != "" {
			key += "/" + sub
		}
		into[key] += v
	}
	return counts, seconds, int(refused)
}

// busiest says the n most requested verbs and resources of c over d.
func (c requestCounts) busiest(n int, d time.Duration) string {
	keys := make([]string, 0, len(c))
	for k, v := range c {
		if v > 0 {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b string) int { return cmp.Compare(c[b], c[a]) })
	var out []string
	for _, k := range keys[:min(n, len(keys))] {
		out = append(out, fmt.Sprintf("%s %.0f (%.0f/s)", k, c[k], c[k]/d.Seconds()))
	}
	return strings.Join(out, ", ")
}

// minus is the requests of c that were not yet in earlier.
func (c requestCounts) minus(earlier requestCounts) requestCounts {
	out := requestCounts{}
	for k, v := range c {
		out[k] = v - earlier[k]
	}
	return out
}

// kwokctlClient is a client of l as kwokctl scale's: JSON, no client-side
// rate limit (pkg/utils/client: a FakeAlwaysRateLimiter).
func kwokctlClient(l *lab.Lab) kubernetes.Interface {
	cfg := l.RESTConfig()
	cfg.RateLimiter = flowcontrol.NewFakeAlwaysRateLimiter()
	return kubernetes.NewForConfigOrDie(cfg)
}

// createBarePods creates fake-pod-000000 on, n Pods of kwokctl's Pod
// template (a busybox container, restartPolicy Always), one after the
// other. KWOK's benchmark puts all on one node; here Pod i names node
// i mod len(nodes), in both rows: a crdlab node, as a kubelet, runs no
// more Pods than its capacity (400) and its podCIDR's addresses (509).
func createBarePods(ctx context.Context, cs kubernetes.Interface, n int, nodes []corev1.Node) error {
	for i := range n {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name:      fmt.Sprintf("fake-pod-%06d", i),
				Namespace: metav1.NamespaceDefault,
				Labels:    map[string]string{kwokScaleLabel: "fake-pod"},
			},
			Spec: corev1.PodSpec{
				NodeName:   nodes[i%len(nodes)].Name,
				Containers: []corev1.Container{{Name: "container-0", Image: "busybox"}},
			},
		}
		if _, err := cs.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{FieldValidation: "Ignore"}); err != nil {
			return fmt.Errorf("create pod %s: %w", pod.Name, err)
		}
	}
	return nil
}

// roundTrips are the client's requests of a step: how many, and the time
// from each request to its answer, summed.
type roundTrips struct {
	n     int
	total time.Duration
}

func (t *roundTrips) add(d time.Duration) { t.n, t.total = t.n+1, t.total+d }

func (t *roundTrips) mean() time.Duration { return t.total / time.Duration(max(t.n, 1)) }

// deletePods deletes the Pods of the selector in the default namespace,
// one after the other, with the default (graceful) options, and adds each
// delete's round trip to trips. A Pod gone since the list (evicted from a
// node seen NotReady on a loaded machine) is passed over, as kwokctl logs
// such an error and goes on.
func deletePods(ctx context.Context, cs kubernetes.Interface, selector string, trips *roundTrips) error {
	pods, err := cs.CoreV1().Pods(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return err
	}
	for i := range pods.Items {
		t0 := time.Now()
		err := cs.CoreV1().Pods(metav1.NamespaceDefault).Delete(ctx, pods.Items[i].Name, metav1.DeleteOptions{})
		trips.add(time.Since(t0))
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete pod %s: %w", pods.Items[i].Name, err)
		}
	}
	return nil
}

// printStepsTable prints docs/scale.md's table of KWOK's benchmark.
func printStepsTable(size scaleSize, crdlab, peer *stepsRow) {
	labels := []string{
		fmt.Sprintf("%d nodes Ready, s", size.nodes),
		fmt.Sprintf("%d Pods Running, s", size.pods),
		fmt.Sprintf("%d Pods deleted, s", size.pods),
		"PSS of every process, MiB",
		"CPU seconds of every process",
		"requests answered 429",
	}
	values := func(r *stepsRow) []float64 {
		pss, cpu := r.total()
		return []float64{r.steps[0].Seconds(), r.steps[1].Seconds(), r.steps[2].Seconds(), mib(pss), cpu, float64(r.tooMany)}
	}
	fmt.Printf("\n%d CPUs. Ratio: crdlab's figure over KWOK's (below 1: less time, memory, CPU).\n\n", runtime.NumCPU())
	fmt.Printf("| | %s |\n|---|%s\n", strings.Join(labels, " | "), strings.Repeat("---|", len(labels)))
	fmt.Printf("| KWOK's limit (test/e2e/benchmark.go) | %s | %s | %s | | | |\n",
		number(kwokLimits[0].Seconds()), number(kwokLimits[1].Seconds()), number(kwokLimits[2].Seconds()))
	for _, r := range []*stepsRow{crdlab, peer} {
		fmt.Printf("| %s |", r.name)
		for _, v := range values(r) {
			fmt.Printf(" %s |", number(v))
		}
		fmt.Println()
	}
	fmt.Print("| **crdlab / KWOK** |")
	c, p := values(crdlab), values(peer)
	for i := range c {
		if p[i] == 0 {
			fmt.Print(" – |")
			continue
		}
		fmt.Printf(" %.2f× |", c[i]/p[i])
	}
	fmt.Println()
	for _, r := range []*stepsRow{crdlab, peer} {
		for _, n := range r.notes {
			fmt.Printf("\n%s: %s\n", r.name, n)
		}
	}
	fmt.Println()
}
