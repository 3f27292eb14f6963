package v1

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	webappv1 "example.com/guestbook-operator/api/v1"
)

var _ = Describe("Guestbook webhooks, called by the lab's apiserver", func() {
	It("defaults the image of a Guestbook that names none", func() {
		g := &webappv1.Guestbook{ObjectMeta: metav1.ObjectMeta{Name: "defaulted", Namespace: "default"}, Spec: webappv1.GuestbookSpec{Replicas: 1}}
		Expect(k8sClient.Create(ctx, g)).To(Succeed())
		Expect(g.Spec.Image).To(Equal(DefaultImage), "the object the apiserver stored, as Create returned it")
		Expect(testEnv.TimelineSince(mark)).To(ContainSubstring("your webhooks        ALLOWED  guestbook/defaulted  mguestbook-v1.kb.io: default create of v1"))
	})

	It("refuses a Guestbook of too many frontends, with the webhook's message", func() {
		g := &webappv1.Guestbook{ObjectMeta: metav1.ObjectMeta{Name: "crowded", Namespace: "default"}, Spec: webappv1.GuestbookSpec{Replicas: MaxReplicas + 1}}
		err := k8sClient.Create(ctx, g)
		Expect(err).To(MatchError(ContainSubstring(`admission webhook "vguestbook-v1.kb.io" denied the request: spec.replicas 11: a guestbook runs at most 10 frontends`)))
		Expect(testEnv.TimelineSince(mark)).To(ContainSubstring("your webhooks        DENIED  guestbook/crowded  vguestbook-v1.kb.io: validate create of v1, asked by admin: denied: spec.replicas 11: a guestbook runs at most 10 frontends"))
	})
})
