package controllers_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdlab/crdlab/controllers/webapp"
	"github.com/crdlab/crdlab/lab/timeline"
)

var _ = Describe("the WebApp operator", func() {
	var (
		c   client.Client
		app *webapp.WebApp
		key client.ObjectKey
	)
	BeforeEach(func(ctx context.Context) {
		c = shared.Client()
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "webapp-"}}
		Expect(c.Create(ctx, ns)).To(Succeed())
		app = &webapp.WebApp{
			ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: ns.Name},
			Spec:       webapp.WebAppSpec{Image: "nginx:1.27", Replicas: ptr.To(int32(2)), Port: 8080},
		}
		key = client.ObjectKeyFromObject(app)
		Expect(c.Create(ctx, app)).To(Succeed())
	})

	available := func(ctx context.Context) {
		Eventually(func(g Gomega) {
			got := &webapp.WebApp{}
			g.Expect(c.Get(ctx, key, got)).To(Succeed())
			g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation))
			g.Expect(got.Status.AvailableReplicas).To(Equal(ptr.Deref(got.Spec.Replicas, 1)))
			g.Expect(meta.IsStatusConditionTrue(got.Status.Conditions, webapp.ConditionAvailable)).To(BeTrue())
		}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())
	}

	It("creates a Deployment and a Service it owns, and reports Available", func(ctx context.Context) {
		available(ctx)
		var d appsv1.Deployment
		Expect(c.Get(ctx, key, &d)).To(Succeed())
		Expect(d.Spec.Template.Spec.Containers[0].Image).To(Equal("nginx:1.27"))
		Expect(metav1.IsControlledBy(&d, getApp(ctx, c, key))).To(BeTrue())
		var svc corev1.Service
		Expect(c.Get(ctx, key, &svc)).To(Succeed())
		Expect(svc.Spec.Ports[0].Port).To(Equal(int32(8080)))
		Expect(metav1.IsControlledBy(&svc, getApp(ctx, c, key))).To(BeTrue())

		By("tracing each reconcile pass, the first one creating both")
		passes := traces.For(key.Namespace, key.Name)
		Expect(passes).NotTo(BeEmpty())
		Expect(passes[0].Verb).To(Equal(timeline.Reconcile))
		Expect(passes[0].Actor).To(Equal(webapp.Name))
		Expect(passes[0].Detail).To(And(ContainSubstring("CREATE deployment/shop"), ContainSubstring("CREATE service/shop")))

		By("settling: no write when nothing changed, and no more passes (the operator does not thrash)")
		Eventually(func() string {
			p := traces.For(key.Namespace, key.Name)
			return p[len(p)-1].Detail
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(HavePrefix("no change"))
		n := len(traces.For(key.Namespace, key.Name))
		Consistently(func() int { return len(traces.For(key.Namespace, key.Name)) }).
			WithContext(ctx).WithTimeout(2 * time.Second).Should(Equal(n))
	})

	It("follows a change of its spec", func(ctx context.Context) {
		available(ctx)
		Eventually(func() error { // the operator's status writes may race ours
			got := getApp(ctx, c, key)
			got.Spec.Replicas = ptr.To(int32(4))
			return c.Update(ctx, got)
		}).WithContext(ctx).Should(Succeed())
		available(ctx)
		var d appsv1.Deployment
		Expect(c.Get(ctx, key, &d)).To(Succeed())
		Expect(*d.Spec.Replicas).To(Equal(int32(4)))
	})

	It("brings back a Deployment someone deleted, and undoes an edit of it", func(ctx context.Context) {
		available(ctx)
		var d appsv1.Deployment
		Expect(c.Get(ctx, key, &d)).To(Succeed())
		oldUID := d.UID
		Expect(c.Delete(ctx, &d)).To(Succeed())
		Eventually(func(g Gomega) {
			var back appsv1.Deployment
			g.Expect(c.Get(ctx, key, &back)).To(Succeed())
			g.Expect(back.UID).NotTo(Equal(oldUID))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		available(ctx)

		Eventually(func() error { // the deployment controller's writes may race ours
			if err := c.Get(ctx, key, &d); err != nil {
				return err
			}
			d.Spec.Replicas = ptr.To(int32(7))
			return c.Update(ctx, &d)
		}).WithContext(ctx).Should(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(c.Get(ctx, key, &d)).To(Succeed())
			g.Expect(*d.Spec.Replicas).To(Equal(int32(2)))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
	})

	It("is garbage-collected with what it owns when deleted", func(ctx context.Context) {
		available(ctx)
		Expect(c.Delete(ctx, getApp(ctx, c, key))).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(apierrors.IsNotFound(c.Get(ctx, key, &appsv1.Deployment{}))).To(BeTrue())
			g.Expect(apierrors.IsNotFound(c.Get(ctx, key, &corev1.Service{}))).To(BeTrue())
		}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())
	})

	It("refuses a WebApp that breaks its schema", func(ctx context.Context) {
		bad := &webapp.WebApp{
			ObjectMeta: metav1.ObjectMeta{Name: "bad", Namespace: key.Namespace},
			Spec:       webapp.WebAppSpec{Image: "x", Replicas: ptr.To(int32(1000))},
		}
		err := c.Create(ctx, bad)
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "got %v", err)
		Expect(err.Error()).To(ContainSubstring("spec.replicas"))
	})
})

func getApp(ctx context.Context, c client.Client, key client.ObjectKey) *webapp.WebApp {
	app := &webapp.WebApp{}
	Expect(c.Get(ctx, key, app)).To(Succeed())
	return app
}
