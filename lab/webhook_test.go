package lab_test

import (
	"context"
	"errors"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// testWebhookLabel selects the ConfigMaps the suite's webhook sees; no
// other spec's objects carry it.
const testWebhookLabel = "lab-test.crdlab.dev/webhook"

// testWebhook is a validating webhook configuration as a user's manifest
// has it: a Service, which the lab replaces with its local URL and CA.
func testWebhook() *admissionregistrationv1.ValidatingWebhookConfiguration {
	path := "/validate-configmap"
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: "lab-test"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    "configmaps.lab-test.crdlab.dev",
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Namespace: "system", Name: "webhook-service", Path: &path}},
			Rules:                   []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create}, Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}},
			ObjectSelector:          &metav1.LabelSelector{MatchLabels: map[string]string{testWebhookLabel: "true"}},
			FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
		}},
	}
}

// A user's own webhook: the lab made its serving certificate, chose its
// port on 127.0.0.1 and installed its configuration pointing there; a
// webhook server in the test process is called by the apiserver.
var _ = Describe("a webhook of your own", func() {
	It("is called by the apiserver on 127.0.0.1, with the certificate the lab made", func(ctx context.Context) {
		wh := shared.WebhookInstallOptions()
		Expect(wh.LocalServingHost).To(Equal("127.0.0.1"))
		Expect(wh.LocalServingPort).NotTo(BeZero())
		srv := webhook.NewServer(webhook.Options{Host: wh.LocalServingHost, Port: wh.LocalServingPort, CertDir: wh.LocalServingCertDir})
		srv.Register("/validate-configmap", &admission.Webhook{Handler: admission.HandlerFunc(func(_ context.Context, req admission.Request) admission.Response {
			return admission.Denied("refused by the suite's webhook for " + req.UserInfo.Username)
		})})
		srvCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
		done := make(chan error, 1)
		go func() { done <- srv.Start(srvCtx) }()
		DeferCleanup(func() {
			stop()
			Expect(<-done).To(Or(Succeed(), MatchError(http.ErrServerClosed)))
		})
		Eventually(func() error { return srv.StartedChecker()(nil) }).WithContext(ctx).WithTimeout(10 * time.Second).Should(Succeed())

		c := shared.Client()
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "webhooked", Namespace: "default", Labels: map[string]string{testWebhookLabel: "true"}}}
		err := c.Create(ctx, cm)
		Expect(err).To(HaveOccurred())
		var status apierrors.APIStatus
		Expect(errors.As(err, &status)).To(BeTrue(), "%v", err)
		Expect(err.Error()).To(ContainSubstring("refused by the suite's webhook for"))

		By("objects the webhook does not select are not sent to it")
		plain := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "plain-", Namespace: "default"}}
		Expect(c.Create(ctx, plain)).To(Succeed())
		Expect(c.Delete(ctx, plain)).To(Succeed())
	})
})
