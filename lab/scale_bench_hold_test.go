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
// the control plane of BenchmarkScale's rows, then measures the PSS of
// each process with every Pod Ready. The Pods are
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
