package controller

import (
	"os"
	"os/exec"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdlab/crdlab/lab/labtest"

	webappv1 "example.com/guestbook-operator/api/v1"
)

// demoFailureEnv makes the demonstration spec run (and fail), to show what
// a failing spec prints.
const demoFailureEnv = "GUESTBOOK_DEMO_FAILURE"

func newNamespace(name string) *corev1.Namespace {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	Expect(k8sClient.Create(ctx, ns)).To(Succeed())
	return ns
}

func newGuestbook(ns, name string, replicas int32) *webappv1.Guestbook {
	gb := &webappv1.Guestbook{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       webappv1.GuestbookSpec{Replicas: replicas},
	}
	Expect(k8sClient.Create(ctx, gb)).To(Succeed())
	return gb
}

func podsOf(gb *webappv1.Guestbook) func(g Gomega) []corev1.Pod {
	return func(g Gomega) []corev1.Pod {
		var pods corev1.PodList
		g.Expect(k8sClient.List(ctx, &pods, client.InNamespace(gb.Namespace), client.MatchingLabels{"guestbook": gb.Name})).To(Succeed())
		return pods.Items
	}
}

func running(pods []corev1.Pod) int {
	n := 0
	for _, p := range pods {
		if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
			n++
		}
	}
	return n
}

var _ = Describe("Guestbook controller", func() {
	It("runs the Guestbook's frontends as Pods on the lab's nodes", func() {
		gb := newGuestbook("default", "frontends", 3)
		Eventually(func(g Gomega) int { return running(podsOf(gb)(g)) }).WithTimeout(time.Minute).Should(Equal(3))
		Eventually(func(g Gomega) int32 {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(gb), gb)).To(Succeed())
			return gb.Status.ReadyReplicas
		}).WithTimeout(time.Minute).Should(Equal(int32(3)))
	})

	It("has its Deployment and Pods garbage-collected when the Guestbook is deleted", func() {
		gb := newGuestbook("default", "short-lived", 2)
		dep := &appsv1.Deployment{}
		Eventually(func() error { return k8sClient.Get(ctx, client.ObjectKeyFromObject(gb), dep) }).WithTimeout(30 * time.Second).Should(Succeed())
		Eventually(func(g Gomega) int { return running(podsOf(gb)(g)) }).WithTimeout(time.Minute).Should(Equal(2))

		Expect(k8sClient.Delete(ctx, gb)).To(Succeed())
		// envtest has no garbage collector: there, the Deployment would stay.
		Eventually(func() bool { return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(gb), dep)) }).
			WithTimeout(time.Minute).Should(BeTrue())
		Eventually(func(g Gomega) []corev1.Pod { return podsOf(gb)(g) }).WithTimeout(time.Minute).Should(BeEmpty())
	})

	It("lets a namespace deletion complete", func() {
		ns := newNamespace("doomed")
		newGuestbook(ns.Name, "inside", 1)
		Expect(k8sClient.Delete(ctx, ns)).To(Succeed())
		// envtest has no namespace controller: there, it stays Terminating forever.
		Eventually(func() bool { return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(ns), ns)) }).
			WithTimeout(time.Minute).Should(BeTrue())
	})

	It("gets Pods of a stopped node replaced on the other nodes", func() {
		gb := newGuestbook("default", "survivor", 2)
		Eventually(func(g Gomega) int { return running(podsOf(gb)(g)) }).WithTimeout(time.Minute).Should(Equal(2))
		victim := podsOf(gb)(Default)[0]
		dead := victim.Spec.NodeName

		By("stopping node " + dead + ", as if its machine died")
		Expect(testEnv.StopNode(ctx, dead)).To(Succeed())
		// The node lifecycle controller marks it NotReady after about 16s and
		// evicts its Pods 10s later; the ReplicaSet replaces them elsewhere.
		Eventually(func(g Gomega) {
			pods := podsOf(gb)(g)
			g.Expect(running(pods)).To(Equal(2))
			for _, p := range pods {
				if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
					g.Expect(p.Spec.NodeName).NotTo(Equal(dead))
				}
			}
		}).WithTimeout(2 * time.Minute).WithPolling(time.Second).Should(Succeed())
		// Reset, in AfterEach, starts the node again.
	})

	Context("between specs", Ordered, func() {
		It("leaves a namespace behind", func() {
			newNamespace("leftover")
			newGuestbook("leftover", "gb", 1)
		})
		It("finds it gone: Reset ran in between", func() {
			err := k8sClient.Get(ctx, client.ObjectKey{Name: "leftover"}, &corev1.Namespace{})
			Expect(apierrors.IsNotFound(err)).To(BeTrue(), "namespace leftover after Reset: %v", err)
			var all webappv1.GuestbookList
			Expect(k8sClient.List(ctx, &all)).To(Succeed())
			Expect(all.Items).To(BeEmpty())
		})
	})

	It("demo: a failing assertion prints the spec's timeline", func() {
		if os.Getenv(demoFailureEnv) == "" {
			Skip("run by the next spec, with " + demoFailureEnv + "=1")
		}
		gb := newGuestbook("default", "demo", 1)
		Eventually(func(g Gomega) int { return running(podsOf(gb)(g)) }).WithTimeout(time.Minute).Should(Equal(1))
		// The controller has written the Guestbook's status: its pass is on
		// the timeline too.
		Eventually(func(g Gomega) int32 {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(gb), gb)).To(Succeed())
			return gb.Status.ReadyReplicas
		}).WithTimeout(time.Minute).Should(Equal(int32(1)))
		Expect(podsOf(gb)(Default)).To(HaveLen(99), "the demonstration fails here on purpose")
	})

	It("prints the timeline when a spec fails", func() {
		if os.Getenv(demoFailureEnv) != "" {
			Skip("the demonstration itself")
		}
		// This test binary again, on the same lab (no boot), focused on the
		// demonstration spec, which fails.
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=TestControllers", "-ginkgo.focus=demo", "-ginkgo.no-color")
		cmd.Env = append(os.Environ(), demoFailureEnv+"=1", labtest.AttachEnv+"="+testEnv.StateDir())
		out, err := cmd.CombinedOutput()
		Expect(err).To(HaveOccurred(), "the demonstration must fail:\n%s", out)
		Expect(string(out)).To(ContainSubstring("the demonstration fails here on purpose"))
		Expect(string(out)).To(ContainSubstring("timeline of the lab during the spec (who did what):"))
		// Who did what: the operator made the Deployment, the controllers and
		// the scheduler the rest.
		Expect(string(out)).To(MatchRegexp(`CREATE\s+guestbook/demo`))
		Expect(string(out)).To(MatchRegexp(`CREATE\s+deployment/demo`))
		Expect(string(out)).To(MatchRegexp(`replicaset\s+CREATE\s+pod/demo-`))
		Expect(string(out)).To(MatchRegexp(`scheduler\s+BIND`))
		// And the suite's own controller, traced (labtest/trace): its passes
		// on the Guestbook, each with what woke it and what it wrote. (This
		// suite's manager runs the controller too, on the same lab: both
		// reconcile the demo, in the same lane.)
		Expect(string(out)).To(MatchRegexp(`guestbook\s+RECONCILE\s+guestbook/demo\s+CREATE deployment/demo; woken by guestbook/demo created; in `))
		Expect(string(out)).To(MatchRegexp(`guestbook\s+RECONCILE\s+guestbook/demo\s+[^\n]*STATUS guestbook/demo[^\n]*; woken by `))
		Expect(string(out)).To(MatchRegexp(`guestbook\s+RECONCILE\s+guestbook/demo\s+[^\n]*; woken by [^\n]*deployment/demo (created|status or metadata updated)`))
	})
})
