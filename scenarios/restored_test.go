package scenarios_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crdlab/crdlab/scenarios"
)

// expectRestored, with the lab's WebApp operator as the learner's
// controller: it owns shop's Deployment, so the Deployment the check
// deletes comes back while it runs; stopped, it does not, and the check
// says what to look at.
var _ = Describe("a task's expectRestored check", func() {
	It("holds when a running controller puts the object back, and says why not when none does", func(ctx context.Context) {
		parse := func(kind, steps string) *scenarios.Scenario {
			GinkgoHelper()
			s, err := scenarios.Parse("restored.yaml", []byte("apiVersion: crdlab.dev/v1alpha1\nkind: "+kind+
				"\nmetadata: {name: restored}\nspec:\n  title: shop's Deployment comes back\n  steps:\n"+steps), nil)
			Expect(err).NotTo(HaveOccurred())
			return s
		}
		lesson := parse("Lesson", `
  - task:
      text: Keep shop's Deployment.
      hints: [crdlab controller start webapp-operator]
      check:
      - expectRestored: {apiVersion: apps/v1, kind: Deployment, name: shop, within: 5s}
`)
		task := lesson.Spec.Steps[0].Task
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "crdlab-restored-"}}
		Expect(shared.Client().Create(ctx, ns)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(shared.Client().Delete(ctx, ns)).To(Succeed()) })
		play := func() *scenarios.Player {
			GinkgoHelper()
			p, err := scenarios.NewPlayer(lesson, target(), ns.Name)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(p.Close)
			return p
		}

		p := play()
		setup := parse("Scenario", `
  - apply:
      object: {apiVersion: samples.crdlab.dev/v1alpha1, kind: WebApp, metadata: {name: shop}, spec: {image: "nginx:1.27", replicas: 1}}
  - expect:
      object: {apiVersion: apps/v1, kind: Deployment, metadata: {name: shop}}
`)
		Expect(p.Do(ctx, setup, setup.Spec.Steps)).To(Succeed())
		Eventually(func() bool { ok, _ := p.Check(ctx, task); return ok }).
			WithContext(ctx).WithTimeout(time.Minute).WithPolling(250 * time.Millisecond).Should(BeTrue())

		stop := parse("Scenario", "  - lab: {stopController: webapp-operator}\n")
		p = play()
		Expect(p.Do(ctx, stop, stop.Spec.Steps)).To(Succeed())
		last := ""
		Eventually(func() string {
			ok, why := p.Check(ctx, task)
			Expect(ok).To(BeFalse(), "the Deployment came back with its controller stopped")
			last = why
			return why
		}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(250*time.Millisecond).Should(
			ContainSubstring("deployment/shop: deleted by this check, and not back within 5s"), func() string { return last })
		Expect(last).To(ContainSubstring("Owns"))
	}, NodeTimeout(3*time.Minute))
})
