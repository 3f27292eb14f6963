package controllers_test

import (
	"context"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdlab/crdlab/controllers/webapp"
	webappv1 "github.com/crdlab/crdlab/controllers/webapp/v1"
	"github.com/crdlab/crdlab/lab/timeline"
)

var _ = Describe("the WebApp's webhooks", func() {
	var (
		c  client.Client
		ns string
	)
	BeforeEach(func(ctx context.Context) {
		c = shared.Client()
		n := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "webhooks-"}}
		Expect(c.Create(ctx, n)).To(Succeed())
		ns = n.Name
	})

	webhookCalls := func(name, verb string) []timeline.Event {
		traces.mu.Lock()
		defer traces.mu.Unlock()
		var out []timeline.Event
		for _, e := range traces.events {
			if e.Namespace == ns && e.Name == name && e.Actor == webapp.WebhookName && e.Verb == verb {
				out = append(out, e)
			}
		}
		return out
	}

	It("converts between v1alpha1 and v1: both list the same object, and the conversion is on the timeline", func(ctx context.Context) {
		alpha := &webapp.WebApp{
			ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: ns},
			Spec:       webapp.WebAppSpec{Image: "nginx:1.27", Replicas: ptr.To(int32(1)), Port: 8080},
		}
		Expect(c.Create(ctx, alpha)).To(Succeed())
		var v1list webappv1.WebAppList
		Expect(c.List(ctx, &v1list, client.InNamespace(ns))).To(Succeed())
		Expect(v1list.Items).To(HaveLen(1))
		Expect(v1list.Items[0].Spec.Container).To(Equal(webappv1.Container{Image: "nginx:1.27", Port: 8080}))
		var alphaList webapp.WebAppList
		Expect(c.List(ctx, &alphaList, client.InNamespace(ns))).To(Succeed())
		Expect(alphaList.Items).To(HaveLen(1))
		Expect(alphaList.Items[0].UID).To(Equal(v1list.Items[0].UID))
		Expect(alphaList.Items[0].Spec.Port).To(Equal(int32(8080)))
		Eventually(func() []timeline.Event { return webhookCalls("shop", "CONVERT") }).WithContext(ctx).Should(
			ContainElement(HaveField("Detail", HavePrefix("v1alpha1 → v1"))))
	})

	It("defaults the name label, refuses a port taken in the namespace, and says so on the timeline", func(ctx context.Context) {
		shop := &webappv1.WebApp{
			ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: ns},
			Spec:       webappv1.WebAppSpec{Container: webappv1.Container{Image: "nginx", Port: 8080}},
		}
		Expect(c.Create(ctx, shop)).To(Succeed())
		Expect(shop.Labels).To(HaveKeyWithValue(webapp.NameLabel, "shop"))

		cart := &webappv1.WebApp{
			ObjectMeta: metav1.ObjectMeta{Name: "cart", Namespace: ns},
			Spec:       webappv1.WebAppSpec{Container: webappv1.Container{Image: "nginx", Port: 8080}},
		}
		err := c.Create(ctx, cart)
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "%v", err)
		Expect(err.Error()).To(ContainSubstring("spec.container.port: Duplicate value: \"8080 is already used by webapp/shop in namespace " + ns))
		Eventually(func() []timeline.Event { return webhookCalls("cart", "DENIED") }).WithContext(ctx).Should(
			ContainElement(HaveField("Detail", ContainSubstring("already used by webapp/shop"))))
		cart.Spec.Container.Port = 8081
		Expect(c.Create(ctx, cart)).To(Succeed())
		calls := webhookCalls("shop", "ALLOWED")
		Expect(calls).NotTo(BeEmpty())
		Expect(strings.Join(details(calls), "\n")).To(ContainSubstring(`"path":"/metadata/labels"`))
	})
})
