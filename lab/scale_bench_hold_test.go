//go:build linux

package lab_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"

	"github.com/crdlab/crdlab/lab"
)

// BenchmarkScaleHold holds $CRDLAB_BENCH_SCALE_HOLD Pods (100,000) Ready on
// $CRDLAB_BENCH_SCALE_NODES nodes (1,000) of crdlab's simulated kubelets,
// the control plane of BenchmarkScale's rows: a Deployment scaled from 0,
// then the PSS of each process with every Pod Ready. It measures memory,
// not a peer: a row of 100,000 Pods takes well over make bench-scale's 15
// minutes on two cores, so KWOK's row is left to BenchmarkScale's 10,000.
//
//	BENCH_SCALE_HOLD=100000 make bench-scale
func BenchmarkScaleHold(b *testing.B) {
	quiet()
	nodes := envCount(b, "CRDLAB_BENCH_SCALE_NODES", 1000)
	pods := envCount(b, "CRDLAB_BENCH_SCALE_HOLD", 100000)
	fmt.Printf("\n%d nodes; a Deployment 0 → %d Pods, held. %d CPUs, load average %s.\n", nodes, pods, runtime.NumCPU(), loadavg())
	ctx := context.Background()
	r := &scaleRow{name: "crdlab", pods: pods, loadBefore: loadavg()}
	start := time.Now()
	l, err := lab.Start(ctx, lab.Options{
		Components:   []string{lab.ControllerManager, lab.Scheduler, lab.Nodes},
		Nodes:        nodes,
		StartTimeout: 5 * time.Minute,
	})
	if err != nil {
		b.Fatal(err)
	}
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
	ns := "hold"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	if _, err := cs.AppsV1().Deployments(ns).Create(ctx, deployment(ns, "hold", 0), metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	t0 := time.Now()
	scaleDeployment(ctx, b, cs, ns, "hold", pods)
	r.up = r.waitPods(ctx, b, cs, ns, "app=hold", pods, phaseTimeout(pods), "0 → %d Pods", t0)
	r.procs = snapshot(b)
	r.loadAfter = loadavg()
	pss, cpu := r.total()
	fmt.Printf("crdlab: %d nodes schedulable %.1f s after start; %d Pods Ready in %.0f s (%.1f Pods/s); held: %.0f MiB PSS in all, %.0f CPU s; load %s → %s\n",
		nodes, r.boot.Seconds(), pods, r.up.Seconds(), r.rate(r.up), mib(pss), cpu, r.loadBefore, r.loadAfter)
	for _, n := range r.notes {
		fmt.Printf("crdlab: %s\n", n)
	}
	fmt.Printf("\n| process | PSS with %d Pods held, MiB |\n|---|---|\n", pods)
	for _, name := range scaleProcs {
		if p, ok := r.procs[name]; ok {
			fmt.Printf("| %s | %.0f |\n", name, mib(p.pss))
		}
	}
	fmt.Printf("| all | %.0f |\n", mib(pss))
	if mem, err := os.ReadFile("/proc/meminfo"); err == nil {
		var total, avail int64
		_, _ = fmt.Sscanf(string(mem), "MemTotal: %d kB\nMemFree: %d kB\nMemAvailable: %d kB", &total, new(int64), &avail)
		fmt.Printf("\nthe machine: %.1f GiB of memory, %.1f GiB available with the Pods held\n", float64(total)/(1<<20), float64(avail)/(1<<20))
	}
	b.ReportMetric(r.rate(r.up), "pods-up/s")
	b.ReportMetric(mib(pss), "MiB-held")
}
