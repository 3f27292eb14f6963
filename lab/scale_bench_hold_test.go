//go:build linux

package lab_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"

	"github.com/crdlab/crdlab/lab"
	"github.com/crdlab/crdlab/lab/internal/proc"
	"github.com/crdlab/crdlab/lab/multicall"
)

// BenchmarkScaleHold holds $CRDLAB_BENCH_SCALE_HOLD Pods (100,000) Ready on
// $CRDLAB_BENCH_SCALE_NODES nodes (1,000) of crdlab's simulated kubelets,
// the control plane of BenchmarkScale's rows, then measures the PSS of
// each process when every Pod is Ready and while they are held, every
// 30 s for $CRDLAB_BENCH_SCALE_HOLD_FOR (2m). The Pods are
// $CRDLAB_BENCH_SCALE_HOLD_APPS Deployments' (100), each in a namespace
// of its own, as a cluster of 100,000 Pods holds many applications: one
// Deployment of 100,000 in one namespace costs kube-scheduler a match of
// every Pod's labels for each Pod it places (the default topology
// spreading counts, on every node, the Pods of the same namespace that
// match its selector), and kube-controller-manager a pass over all of
// them at each sync of the one ReplicaSet; in two cores' time it did
// not finish (docs/scale.md). It measures memory, not a peer: KWOK's row
// is left to BenchmarkScale's 10,000.
//
//	BENCH_SCALE_HOLD=100000 make bench-scale
func BenchmarkScaleHold(b *testing.B) {
	quiet()
	nodes := envCount(b, "CRDLAB_BENCH_SCALE_NODES", 1000)
	pods := envCount(b, "CRDLAB_BENCH_SCALE_HOLD", 100000)
	apps := max(1, envCount(b, "CRDLAB_BENCH_SCALE_HOLD_APPS", 100))
	fmt.Printf("\n%d nodes; %d Deployments, each in its own namespace, 0 → %d Pods in all, held. %d CPUs, load average %s.\n",
		nodes, apps, pods, runtime.NumCPU(), loadavg())
	ctx := context.Background()
	r := &scaleRow{name: "crdlab", pods: pods, loadBefore: loadavg()}
	start := time.Now()
	// This process holds the simulated kubelets as crdlab up's does, and
	// collects its heap as crdlab up's does (docs/boot.md, Memory): busy
	// at Go's default, more tightly while idle.
	multicall.TuneGC()
	prof := newProfiler(b)
	l, err := lab.Start(ctx, lab.Options{
		Components:     []string{lab.ControllerManager, lab.Scheduler, lab.Nodes},
		Nodes:          nodes,
		StartTimeout:   5 * time.Minute,
		APIServerFlags: prof.apiServerFlags(),
	})
	if err != nil {
		b.Fatal(err)
	}
	multicall.BootDone() // the lab is ready, as server.Options.Ready says it
	defer func() {
		if err := l.Stop(); err != nil {
			b.Fatal(err)
		}
	}()
	cfg := l.RESTConfig()
	cfg.ContentType = k8sruntime.ContentTypeProtobuf
	cs := kubernetes.NewForConfigOrDie(cfg)
	waitNodesSchedulable(ctx, b, cs, nodes, 5*time.Minute)
	r.boot = time.Since(start)
	nsOf := func(i int) string { return fmt.Sprintf("hold-%d", i) }
	for i := range apps {
		ns := nsOf(i)
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		if _, err := cs.AppsV1().Deployments(ns).Create(ctx, deployment(ns, "hold", 0), metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	t0 := time.Now()
	for i := range apps {
		share := pods / apps
		if i < pods%apps {
			share++
		}
		scaleDeployment(ctx, b, cs, nsOf(i), "hold", share)
	}
	r.up = r.waitPods(ctx, b, cs, metav1.NamespaceAll, "app=hold", pods, phaseTimeout(pods), "0 → %d Pods", t0)
	ready := time.Now()
	r.procs = snapshot(b)
	r.loadAfter = loadavg()
	pss, cpu := r.total()
	fmt.Printf("crdlab: %d nodes schedulable %.1f s after start; %d Pods Ready in %.0f s (%.1f Pods/s); %.0f MiB PSS in all when Ready, %.0f CPU s; load %s → %s\n",
		nodes, r.boot.Seconds(), pods, r.up.Seconds(), r.rate(r.up), mib(pss), cpu, r.loadBefore, r.loadAfter)
	for _, n := range r.notes {
		fmt.Printf("crdlab: %s\n", n)
	}
	held := holdSamples(b, ready, r.procs, envDuration(b, "CRDLAB_BENCH_SCALE_HOLD_FOR", 2*time.Minute))
	printHeld(pods, held, loadavg())
	last := held[len(held)-1].procs
	prof.heap(ctx, b, l, "crdlab", "held")
	printPSSKinds(b)
	if mem, err := os.ReadFile("/proc/meminfo"); err == nil {
		var total, avail int64
		_, _ = fmt.Sscanf(string(mem), "MemTotal: %d kB\nMemFree: %d kB\nMemAvailable: %d kB", &total, new(int64), &avail)
		fmt.Printf("\nthe machine: %.1f GiB of memory, %.1f GiB available with the Pods held\n", float64(total)/(1<<20), float64(avail)/(1<<20))
	}
	b.ReportMetric(r.rate(r.up), "pods-up/s")
	b.ReportMetric(mib(pss), "MiB-ready")
	b.ReportMetric(mib(sumPSS(last)), "MiB-held")
}

// holdSample is each process's PSS and CPU seconds, at a moment after
// every Pod was Ready.
type holdSample struct {
	after time.Duration // since every Pod was Ready
	procs map[string]procStat
}

// holdSamples holds the Pods for d after ready, when the processes were
// at first (their snapshot then), and takes a snapshot every 30 s and
// at the end: a process's Go heap is returned to the system some time
// after the work that grew it (its collector's pace, the lab's idle
// collection), so the PSS of Pods held is not the PSS of the moment
// they became Ready.
func holdSamples(b *testing.B, ready time.Time, first map[string]procStat, d time.Duration) []holdSample {
	samples := []holdSample{{procs: first}}
	end := ready.Add(d)
	tick := time.NewTicker(30 * time.Second)
	defer tick.Stop()
	timer := time.NewTimer(time.Until(end))
	defer timer.Stop()
	for {
		select {
		case <-tick.C:
			if time.Until(end) < time.Second {
				continue
			}
		case <-timer.C:
			return append(samples, holdSample{after: time.Since(ready), procs: snapshot(b)})
		}
		samples = append(samples, holdSample{after: time.Since(ready), procs: snapshot(b)})
	}
}

// printHeld prints each process's PSS in each sample, and its CPU
// seconds from the first sample to the last: what holding the Pods cost.
func printHeld(pods int, held []holdSample, load string) {
	last := held[len(held)-1]
	fmt.Printf("\nheld: %.0f MiB PSS in all %.0f s after every Pod was Ready; load %s\n", mib(sumPSS(last.procs)), last.after.Seconds(), load)
	fmt.Printf("\n| process | PSS with %d Pods held, MiB: when Ready", pods)
	for _, s := range held[1:] {
		fmt.Printf(" | +%.0f s", s.after.Seconds())
	}
	fmt.Printf(" | CPU s held |\n|---|---|%s---|\n", strings.Repeat("---|", len(held)-1))
	row := func(name string, pss func(map[string]procStat) int64, cpu float64) {
		fmt.Printf("| %s", name)
		for _, s := range held {
			fmt.Printf(" | %.0f", mib(pss(s.procs)))
		}
		fmt.Printf(" | %.1f |\n", cpu)
	}
	var cpu float64
	for _, name := range scaleProcs {
		if p, ok := last.procs[name]; ok {
			c := p.cpu - held[0].procs[name].cpu
			cpu += c
			row(name, func(m map[string]procStat) int64 { return m[name].pss }, c)
		}
	}
	row("all", sumPSS, cpu)
}

func sumPSS(procs map[string]procStat) (pss int64) {
	for _, p := range procs {
		pss += p.pss
	}
	return pss
}

// envDuration is the duration in the environment variable name, or def.
func envDuration(b *testing.B, name string, def time.Duration) time.Duration {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		b.Fatalf("%s=%q: want a duration (2m)", name, v)
	}
	return d
}

// printPSSKinds prints what each process's PSS is made of: anonymous
// memory (its heap) and mapped files (etcd's data file is mapped whole,
// and each page it has read counts).
func printPSSKinds(b *testing.B) {
	tree, err := proc.Tree(os.Getpid())
	if err != nil {
		b.Fatal(err)
	}
	fmt.Printf("\n| process | PSS held, MiB | of it anonymous | of it mapped files |\n|---|---|---|---|\n")
	for i, p := range tree {
		name := p.Name
		if i == 0 {
			name = benchProcess
		}
		fmt.Printf("| %s | %.0f | %.0f | %.0f |\n", name, mib(p.PSS), mib(p.PSSAnon), mib(p.PSSFile))
	}
}
