package controllers_test

import (
	"context"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdlab/crdlab/controllers/redis"
)

var _ = Describe("the Redis operator", func() {
	var (
		c   client.Client
		rc  *redis.RedisCluster
		key client.ObjectKey
	)
	BeforeEach(func(ctx context.Context) {
		c = shared.Client()
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "redis-"}}
		Expect(c.Create(ctx, ns)).To(Succeed())
		rc = &redis.RedisCluster{
			ObjectMeta: metav1.ObjectMeta{Name: "cache", Namespace: ns.Name},
			Spec:       redis.RedisClusterSpec{Shards: 3, ReplicasPerShard: 1, Version: "7.2"},
		}
		key = client.ObjectKeyFromObject(rc)
		Expect(c.Create(ctx, rc)).To(Succeed())
	})

	// ready waits for the cluster to be Ready with shards × 2 Running Pods.
	ready := func(ctx context.Context, shards int32) {
		GinkgoHelper()
		Eventually(func(g Gomega) {
			got := getCluster(ctx, c, key)
			g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation))
			g.Expect(got.Status.Phase).To(Equal(redis.PhaseReady))
			g.Expect(meta.IsStatusConditionTrue(got.Status.Conditions, redis.ConditionReady)).To(BeTrue())
			g.Expect(got.Status.Shards).To(Equal(shards))
			g.Expect(got.Status.ReadyNodes).To(Equal(2 * shards))
			g.Expect(runningPods(ctx, c, key)).To(Equal(int(2 * shards)))
		}).WithContext(ctx).WithTimeout(90 * time.Second).Should(Succeed())
	}

	It("reaches Ready with 6 Running Pods and owns a StatefulSet, two Services and a ConfigMap", func(ctx context.Context) {
		ready(ctx, 3)
		owner := getCluster(ctx, c, key)
		Expect(owner.Finalizers).To(ContainElement(redis.Finalizer))
		Expect(owner.Status.Selector).To(Equal("app.kubernetes.io/instance=cache,app.kubernetes.io/name=redis"))
		var sts appsv1.StatefulSet
		Expect(c.Get(ctx, key, &sts)).To(Succeed())
		Expect(*sts.Spec.Replicas).To(Equal(int32(6)))
		Expect(sts.Spec.ServiceName).To(Equal("cache-headless"))
		Expect(metav1.IsControlledBy(&sts, owner)).To(BeTrue())
		var headless, svc corev1.Service
		Expect(c.Get(ctx, client.ObjectKey{Namespace: key.Namespace, Name: "cache-headless"}, &headless)).To(Succeed())
		Expect(headless.Spec.ClusterIP).To(Equal(corev1.ClusterIPNone))
		Expect(metav1.IsControlledBy(&headless, owner)).To(BeTrue())
		Expect(c.Get(ctx, key, &svc)).To(Succeed())
		Expect(svc.Spec.ClusterIP).NotTo(Equal(corev1.ClusterIPNone))
		Expect(metav1.IsControlledBy(&svc, owner)).To(BeTrue())
		var cm corev1.ConfigMap
		Expect(c.Get(ctx, client.ObjectKey{Namespace: key.Namespace, Name: "cache-config"}, &cm)).To(Succeed())
		Expect(cm.Data["slots"]).To(Equal(redis.SlotMap("cache", 3, 2)))
		Expect(metav1.IsControlledBy(&cm, owner)).To(BeTrue())

		By("tracing the passes with what woke them, and settling")
		passes := traces.For(key.Namespace, key.Name)
		Expect(passes[0].Detail).To(ContainSubstring("woken by rediscluster/cache created"))
		Eventually(func() string {
			p := traces.For(key.Namespace, key.Name)
			return p[len(p)-1].Detail
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(HavePrefix("no change"))
	})

	It("scales through the scale subresource (kubectl scale) and a spec edit, in a safe order", func(ctx context.Context) {
		ready(ctx, 3)
		mark := len(traces.For(key.Namespace, key.Name))

		By("scale subresource to 4 shards: Pods first, slots once they are ready")
		scale := &autoscalingv1.Scale{Spec: autoscalingv1.ScaleSpec{Replicas: 4}}
		Expect(c.SubResource("scale").Update(ctx, getCluster(ctx, c, key), client.WithSubResourceBody(scale))).To(Succeed())
		ready(ctx, 4)
		grew := strings.Join(details(traces.For(key.Namespace, key.Name)[mark:]), "\n")
		Expect(strings.Index(grew, "UPDATE statefulset/cache")).To(BeNumerically("<", strings.Index(grew, "UPDATE configmap/cache-config")),
			"the slot map changed before the new Pods were ready:\n%s", grew)
		Expect(getCluster(ctx, c, key).Spec.Shards).To(Equal(int32(4)))

		By("a spec edit to 5 shards")
		Eventually(func() error {
			got := getCluster(ctx, c, key)
			got.Spec.Shards = 5
			return c.Update(ctx, got)
		}).WithContext(ctx).Should(Succeed())
		ready(ctx, 5)

		By("back to 3: slots moved off the last shards before their Pods go")
		mark = len(traces.For(key.Namespace, key.Name))
		Expect(c.SubResource("scale").Update(ctx, getCluster(ctx, c, key),
			client.WithSubResourceBody(&autoscalingv1.Scale{Spec: autoscalingv1.ScaleSpec{Replicas: 3}}))).To(Succeed())
		ready(ctx, 3)
		shrank := strings.Join(details(traces.For(key.Namespace, key.Name)[mark:]), "\n")
		Expect(strings.Index(shrank, "UPDATE configmap/cache-config")).To(BeNumerically("<", strings.Index(shrank, "UPDATE statefulset/cache")),
			"Pods went before their slots were moved:\n%s", shrank)
	})

	It("refuses an invalid topology and changes to immutable fields with the CEL rules' messages", func(ctx context.Context) {
		small := &redis.RedisCluster{
			ObjectMeta: metav1.ObjectMeta{Name: "tiny", Namespace: key.Namespace},
			Spec:       redis.RedisClusterSpec{Shards: 2},
		}
		err := c.Create(ctx, small)
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "got %v", err)
		Expect(err.Error()).To(ContainSubstring("a Redis Cluster needs at least 3 shards"))

		err = c.SubResource("scale").Update(ctx, getCluster(ctx, c, key),
			client.WithSubResourceBody(&autoscalingv1.Scale{Spec: autoscalingv1.ScaleSpec{Replicas: 1}}))
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "got %v", err)
		Expect(err.Error()).To(ContainSubstring("at least 3 shards"))

		for field, edit := range map[string]func(*redis.RedisCluster){
			"replicasPerShard is immutable": func(r *redis.RedisCluster) { r.Spec.ReplicasPerShard = 2 },
			"version is immutable":          func(r *redis.RedisCluster) { r.Spec.Version = "7.4" },
		} {
			got := getCluster(ctx, c, key)
			edit(got)
			err := c.Update(ctx, got)
			if apierrors.IsConflict(err) { // the operator wrote in between
				got = getCluster(ctx, c, key)
				edit(got)
				err = c.Update(ctx, got)
			}
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "%s: got %v", field, err)
			Expect(err.Error()).To(ContainSubstring(field))
		}
	})

	It("runs a RedisBackup as a Job and records the result", func(ctx context.Context) {
		b := &redis.RedisBackup{
			ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: key.Namespace},
			Spec:       redis.RedisBackupSpec{ClusterName: "cache"},
		}
		Expect(c.Create(ctx, b)).To(Succeed()) // before the cluster is Ready: it waits
		Eventually(func(g Gomega) {
			g.Expect(c.Get(ctx, client.ObjectKeyFromObject(b), b)).To(Succeed())
			g.Expect(b.Status.Phase).To(Equal(redis.BackupSucceeded))
		}).WithContext(ctx).WithTimeout(90 * time.Second).Should(Succeed())
		Expect(b.Status.Location).To(Equal("/backups/" + key.Namespace + "/cache/nightly.rdb"))
		Expect(b.Status.Shards).To(Equal(int32(3)))
		Expect(b.Status.CompletionTime).NotTo(BeNil())
		var job batchv1.Job
		Expect(c.Get(ctx, client.ObjectKey{Namespace: key.Namespace, Name: "nightly-backup"}, &job)).To(Succeed())
		Expect(metav1.IsControlledBy(&job, b)).To(BeTrue())
		Expect(job.Status.Succeeded).To(Equal(int32(1)))

		By("a spec edit of a backup is refused")
		b.Spec.ClusterName = "other"
		err := c.Update(ctx, b)
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "got %v", err)
		Expect(err.Error()).To(ContainSubstring("spec is immutable"))
	})

	It("when deleted, deletes its backups through its finalizer and everything it owns through the garbage collector", func(ctx context.Context) {
		ready(ctx, 3)
		b := &redis.RedisBackup{
			ObjectMeta: metav1.ObjectMeta{Name: "b1", Namespace: key.Namespace},
			Spec:       redis.RedisBackupSpec{ClusterName: "cache"},
		}
		Expect(c.Create(ctx, b)).To(Succeed())
		Expect(c.Delete(ctx, getCluster(ctx, c, key))).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(apierrors.IsNotFound(c.Get(ctx, key, &redis.RedisCluster{}))).To(BeTrue(), "cluster still there")
			g.Expect(apierrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(b), &redis.RedisBackup{}))).To(BeTrue(), "backup still there")
			g.Expect(apierrors.IsNotFound(c.Get(ctx, key, &appsv1.StatefulSet{}))).To(BeTrue(), "statefulset still there")
			g.Expect(apierrors.IsNotFound(c.Get(ctx, key, &corev1.Service{}))).To(BeTrue(), "service still there")
			g.Expect(apierrors.IsNotFound(c.Get(ctx, client.ObjectKey{Namespace: key.Namespace, Name: "cache-headless"}, &corev1.Service{}))).To(BeTrue())
			g.Expect(apierrors.IsNotFound(c.Get(ctx, client.ObjectKey{Namespace: key.Namespace, Name: "cache-config"}, &corev1.ConfigMap{}))).To(BeTrue())
			var pods corev1.PodList
			g.Expect(c.List(ctx, &pods, client.InNamespace(key.Namespace))).To(Succeed())
			g.Expect(pods.Items).To(BeEmpty())
		}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())
	})
})

func getCluster(ctx context.Context, c client.Client, key client.ObjectKey) *redis.RedisCluster {
	GinkgoHelper()
	rc := &redis.RedisCluster{}
	Expect(c.Get(ctx, key, rc)).To(Succeed())
	return rc
}

// runningPods counts the cluster's Running Pods.
func runningPods(ctx context.Context, c client.Client, key client.ObjectKey) int {
	var pods corev1.PodList
	Expect(c.List(ctx, &pods, client.InNamespace(key.Namespace), client.MatchingLabels{"app.kubernetes.io/instance": key.Name, "app.kubernetes.io/name": "redis"})).To(Succeed())
	n := 0
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp.IsZero() {
			n++
		}
	}
	return n
}
