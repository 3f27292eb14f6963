package lab_test

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/crdlab/crdlab/lab"
)

// BenchmarkBoot boots plain envtest (envtest's defaults, the same etcd and
// kube-apiserver binaries) and a lab side by side, alternating which goes
// first, and reports the median boot time of each, their ratio, and the
// resident memory of the lab's process tree once booted.
//
//	make bench
func BenchmarkBoot(b *testing.B) {
	ctx := context.Background()
	bin, err := lab.LinkComponents(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	var plain, crdlab []time.Duration
	var etcdRSS, apiRSS []int64
	bootPlain := func() {
		start := time.Now()
		env := &envtest.Environment{BinaryAssetsDirectory: bin}
		if _, err := env.Start(); err != nil {
			b.Fatal(err)
		}
		plain = append(plain, time.Since(start))
		if err := env.Stop(); err != nil {
			b.Fatal(err)
		}
	}
	bootLab := func() {
		start := time.Now()
		l, err := lab.Start(ctx, lab.Options{})
		if err != nil {
			b.Fatal(err)
		}
		crdlab = append(crdlab, time.Since(start))
		tree, err := lab.Tree(os.Getpid())
		if err != nil {
			b.Fatal(err)
		}
		for _, p := range tree {
			switch p.Name {
			case lab.Etcd:
				etcdRSS = append(etcdRSS, p.RSS)
			case lab.KubeAPIServer:
				apiRSS = append(apiRSS, p.RSS)
			}
		}
		if err := l.Stop(); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%2 == 0 {
			bootPlain()
			bootLab()
		} else {
			bootLab()
			bootPlain()
		}
	}
	b.StopTimer()
	p, c := median(plain), median(crdlab)
	b.ReportMetric(p.Seconds(), "envtest-s")
	b.ReportMetric(c.Seconds(), "crdlab-s")
	b.ReportMetric(c.Seconds()/p.Seconds(), "crdlab/envtest")
	e, a := median(etcdRSS), median(apiRSS)
	b.ReportMetric(float64(e)/(1<<20), "etcd-MB")
	b.ReportMetric(float64(a)/(1<<20), "apiserver-MB")
	b.ReportMetric(float64(e+a)/(1<<20), "tree-MB")
}

func median[T int64 | time.Duration](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
