// Package bench measures, side by side in one run, what a suite pays
// between specs and before its first one, with crdlab's labtest and with
// what its user would do instead: a fresh envtest per spec on standalone
// etcd and kube-apiserver binaries (KUBEBUILDER_ASSETS, 'make bench' gives
// crdlab's bin/standalone), or deleting a namespace per spec.
//
//	make bench
package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/crdlab/crdlab/lab/labtest"

	webappv1 "example.com/guestbook-operator/api/v1"
)

var crdPaths = []string{filepath.Join("..", "..", "config", "crd", "bases")}

func init() {
	_ = webappv1.AddToScheme(scheme.Scheme)
	logf.SetLogger(logr.Discard()) // envtest logs through it
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// startLab starts a lab of its own for the benchmark.
func startLab(b *testing.B) (*labtest.Environment, client.Client) {
	b.Helper()
	env := &labtest.Environment{CRDDirectoryPaths: crdPaths, ErrorIfCRDPathMissing: true}
	cfg, err := env.Start()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = env.Stop() })
	c, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		b.Fatal(err)
	}
	return env, c
}

// referenceAssets is the folder of standalone etcd and kube-apiserver.
func referenceAssets(b *testing.B) string {
	dir := os.Getenv("KUBEBUILDER_ASSETS")
	if dir == "" {
		b.Fatal("KUBEBUILDER_ASSETS must name standalone etcd and kube-apiserver binaries ('make bench' sets it)")
	}
	return dir
}

// populate makes what a spec leaves: 10 namespaces of 20 objects each
// (10 ConfigMaps, 5 Secrets, 5 Guestbooks), 200 objects.
func populate(b *testing.B, ctx context.Context, c client.Client, round int) []string {
	b.Helper()
	var namespaces []string
	for n := range 10 {
		ns := fmt.Sprintf("spec-%d-%d", round, n)
		namespaces = append(namespaces, ns)
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			b.Fatal(err)
		}
		for i := range 10 {
			if err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("cm-", i), Namespace: ns}, Data: map[string]string{"k": "v"}}); err != nil {
				b.Fatal(err)
			}
		}
		for i := range 5 {
			if err := c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("s-", i), Namespace: ns}, StringData: map[string]string{"k": "v"}}); err != nil {
				b.Fatal(err)
			}
			if err := c.Create(ctx, &webappv1.Guestbook{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("gb-", i), Namespace: ns}, Spec: webappv1.GuestbookSpec{Replicas: 0}}); err != nil {
				b.Fatal(err)
			}
		}
	}
	return namespaces
}

// BenchmarkBetweenSpecs measures, in each round, a Reset of a lab holding
// 200 objects in 10 namespaces, deleting those 10 namespaces until they are
// gone, and a fresh envtest (start with the CRDs installed, then stop), the
// three ways a suite starts each spec clean. It reports the medians and the
// ratios of Reset against the others.
func BenchmarkBetweenSpecs(b *testing.B) {
	ctx := context.Background()
	assets := referenceAssets(b)
	env, c := startLab(b)
	times := map[string][]time.Duration{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		populate(b, ctx, c, 2*i)
		b.StartTimer()
		start := time.Now()
		if err := env.Reset(ctx, labtest.ResetOptions{}); err != nil {
			b.Fatal(err)
		}
		times["reset"] = append(times["reset"], time.Since(start))
		b.StopTimer()

		namespaces := populate(b, ctx, c, 2*i+1)
		start = time.Now()
		for _, ns := range namespaces {
			if err := c.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
				b.Fatal(err)
			}
		}
		for _, ns := range namespaces {
			err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
				return apierrors.IsNotFound(c.Get(ctx, client.ObjectKey{Name: ns}, &corev1.Namespace{})), nil
			})
			if err != nil {
				b.Fatalf("namespace %s not deleted: %v", ns, err)
			}
		}
		times["namespace-delete"] = append(times["namespace-delete"], time.Since(start))

		start = time.Now()
		fresh := &envtest.Environment{BinaryAssetsDirectory: assets, CRDDirectoryPaths: crdPaths, ErrorIfCRDPathMissing: true}
		if _, err := fresh.Start(); err != nil {
			b.Fatal(err)
		}
		if err := fresh.Stop(); err != nil {
			b.Fatal(err)
		}
		times["envtest-fresh"] = append(times["envtest-fresh"], time.Since(start))
		b.StartTimer()
	}
	b.StopTimer()
	reset := median(times["reset"])
	b.ReportMetric(float64(reset.Microseconds())/1000, "reset-ms")
	for _, ref := range []string{"namespace-delete", "envtest-fresh"} {
		m := median(times[ref])
		b.ReportMetric(float64(m.Microseconds())/1000, ref+"-ms")
		b.ReportMetric(reset.Seconds()/m.Seconds(), "reset/"+ref)
	}
}

// BenchmarkAttach measures, in each round, the time from Start to a first
// spec's first request when attaching to a running lab, and envtest's boot
// (standalone binaries, the same CRDs), and reports the medians and ratio.
func BenchmarkAttach(b *testing.B) {
	ctx := context.Background()
	assets := referenceAssets(b)
	running, _ := startLab(b)
	times := map[string][]time.Duration{}
	first := func(c client.Client) {
		if err := c.List(ctx, &webappv1.GuestbookList{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		attached := &labtest.Environment{AttachTo: running.StateDir(), CRDDirectoryPaths: crdPaths, ErrorIfCRDPathMissing: true}
		cfg, err := attached.Start()
		if err != nil {
			b.Fatal(err)
		}
		c, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
		if err != nil {
			b.Fatal(err)
		}
		first(c)
		times["attach"] = append(times["attach"], time.Since(start))
		_ = attached.Stop()

		b.StopTimer()
		start = time.Now()
		fresh := &envtest.Environment{BinaryAssetsDirectory: assets, CRDDirectoryPaths: crdPaths, ErrorIfCRDPathMissing: true}
		cfg, err = fresh.Start()
		if err != nil {
			b.Fatal(err)
		}
		c, err = client.New(cfg, client.Options{Scheme: scheme.Scheme})
		if err != nil {
			b.Fatal(err)
		}
		first(c)
		times["envtest-boot"] = append(times["envtest-boot"], time.Since(start))
		if err := fresh.Stop(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.StopTimer()
	attach, boot := median(times["attach"]), median(times["envtest-boot"])
	b.ReportMetric(float64(attach.Microseconds())/1000, "attach-ms")
	b.ReportMetric(float64(boot.Microseconds())/1000, "envtest-boot-ms")
	b.ReportMetric(attach.Seconds()/boot.Seconds(), "attach/envtest-boot")
}
