package controllers_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/crdlab/crdlab/controllers/redis"
	"github.com/crdlab/crdlab/controllers/webapp"
	"github.com/crdlab/crdlab/lab/full"
	"github.com/crdlab/crdlab/lab/timeline"
)

// BenchmarkWebApps creates n WebApps at once and times until all are
// Available, against the reference of n plain Deployments (what each WebApp
// makes) created at once in the same lab, and counts the operator's
// reconcile passes per WebApp.
//
//	make bench
func BenchmarkWebApps(b *testing.B) {
	const n = 200
	ctx := context.Background()
	l, passes := benchLab(ctx, b)
	defer func() {
		if err := l.Stop(); err != nil {
			b.Error(err)
		}
	}()
	c := l.Client()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		deployNS, appNS := fmt.Sprintf("deploy-%d", i), fmt.Sprintf("apps-%d", i)
		for _, ns := range []string{deployNS, appNS} {
			if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
				b.Fatal(err)
			}
		}
		ref := createAll(ctx, b, n, func(j int) client.Object {
			labels := map[string]string{"app": fmt.Sprint("d", j)}
			return &appsv1.Deployment{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("d", j), Namespace: deployNS},
				Spec: appsv1.DeploymentSpec{
					Replicas: ptr.To(int32(1)),
					Selector: &metav1.LabelSelector{MatchLabels: labels},
					Template: corev1.PodTemplateSpec{
						ObjectMeta: metav1.ObjectMeta{Labels: labels},
						Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
					},
				},
			}
		}, c, func() (int, error) {
			var list appsv1.DeploymentList
			if err := c.List(ctx, &list, client.InNamespace(deployNS)); err != nil {
				return 0, err
			}
			ready := 0
			for _, d := range list.Items {
				if d.Status.AvailableReplicas == 1 {
					ready++
				}
			}
			return ready, nil
		})
		before := passes.Load()
		apps := createAll(ctx, b, n, func(j int) client.Object {
			return &webapp.WebApp{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("w", j), Namespace: appNS},
				Spec:       webapp.WebAppSpec{Image: "nginx", Replicas: ptr.To(int32(1))},
			}
		}, c, func() (int, error) {
			var list webapp.WebAppList
			if err := c.List(ctx, &list, client.InNamespace(appNS)); err != nil {
				return 0, err
			}
			ready := 0
			for _, a := range list.Items {
				if meta.IsStatusConditionTrue(a.Status.Conditions, webapp.ConditionAvailable) {
					ready++
				}
			}
			return ready, nil
		})
		b.ReportMetric(n/ref.Seconds(), "deployments-ready/s")
		b.ReportMetric(n/apps.Seconds(), "webapps-ready/s")
		b.ReportMetric(ref.Seconds()/apps.Seconds(), "webapps/deployments-rate")
		b.ReportMetric(float64(passes.Load()-before)/n, "reconciles/webapp")
	}
}

// BenchmarkRedisClusters creates n RedisClusters of 3 shards × 1 replica at
// once and times until all are Ready, against the reference of n plain
// StatefulSets of 6 Pods (what each cluster runs) created at once in the
// same lab, and counts the operator's reconcile passes per cluster.
//
//	make bench
func BenchmarkRedisClusters(b *testing.B) {
	const n = 50
	ctx := context.Background()
	l, passes := benchLab(ctx, b)
	defer func() {
		if err := l.Stop(); err != nil {
			b.Error(err)
		}
	}()
	c := l.Client()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		stsNS, rcNS := fmt.Sprintf("sts-%d", i), fmt.Sprintf("redis-%d", i)
		for _, ns := range []string{stsNS, rcNS} {
			if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
				b.Fatal(err)
			}
		}
		ref := createAll(ctx, b, n, func(j int) client.Object {
			labels := map[string]string{"app": fmt.Sprint("s", j)}
			return &appsv1.StatefulSet{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("s", j), Namespace: stsNS},
				Spec: appsv1.StatefulSetSpec{
					Replicas:            ptr.To(int32(6)),
					PodManagementPolicy: appsv1.ParallelPodManagement,
					Selector:            &metav1.LabelSelector{MatchLabels: labels},
					Template: corev1.PodTemplateSpec{
						ObjectMeta: metav1.ObjectMeta{Labels: labels},
						Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "redis", Image: "redis:7.2"}}},
					},
				},
			}
		}, c, func() (int, error) {
			var list appsv1.StatefulSetList
			if err := c.List(ctx, &list, client.InNamespace(stsNS)); err != nil {
				return 0, err
			}
			ready := 0
			for _, s := range list.Items {
				if s.Status.ReadyReplicas == 6 {
					ready++
				}
			}
			return ready, nil
		})
		before := passes.Load()
		clusters := createAll(ctx, b, n, func(j int) client.Object {
			return &redis.RedisCluster{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("r", j), Namespace: rcNS},
				Spec:       redis.RedisClusterSpec{Shards: 3, ReplicasPerShard: 1, Version: "7.2"},
			}
		}, c, func() (int, error) {
			var list redis.RedisClusterList
			if err := c.List(ctx, &list, client.InNamespace(rcNS)); err != nil {
				return 0, err
			}
			ready := 0
			for _, r := range list.Items {
				if r.Status.Phase == redis.PhaseReady {
					ready++
				}
			}
			return ready, nil
		})
		b.ReportMetric(n/ref.Seconds(), "statefulsets-ready/s")
		b.ReportMetric(n/clusters.Seconds(), "redisclusters-ready/s")
		b.ReportMetric(ref.Seconds()/clusters.Seconds(), "redisclusters/statefulsets-rate")
		b.ReportMetric(float64(passes.Load()-before)/n, "reconciles/rediscluster")
	}
}

// benchLab starts a full lab with the sample CRDs and operators, counting
// the operators' reconcile passes.
func benchLab(ctx context.Context, b *testing.B) (*full.Lab, *atomic.Int64) {
	ctrllog.SetLogger(logr.Discard())
	passes := &atomic.Int64{}
	l, err := full.Start(ctx, full.Options{
		Trace: timeline.SinkFunc(func(e timeline.Event) {
			if e.Kind == "RedisCluster" || e.Kind == "WebApp" {
				passes.Add(1)
			}
		}),
	})
	if err != nil {
		b.Fatal(err)
	}
	return l, passes
}

// createAll creates n objects at once (16 writers) and returns the time until
// ready() counts n.
func createAll(ctx context.Context, b *testing.B, n int, newObj func(int) client.Object, c client.Client, ready func() (int, error)) time.Duration {
	start := time.Now()
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := int(next.Add(1)) - 1; j < n; j = int(next.Add(1)) - 1 {
				if err := c.Create(ctx, newObj(j)); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		got, err := ready()
		if err != nil {
			b.Fatal(err)
		}
		if got == n {
			return time.Since(start)
		}
		time.Sleep(200 * time.Millisecond)
	}
	b.Fatalf("not all %d ready within 5 minutes", n)
	return 0
}
