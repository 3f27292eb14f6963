package lab_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdlab/crdlab/lab/kubelet"
)

// Pods steer their simulated lives with annotations.
var _ = Describe("the simulated kubelet", func() {
	pod := func(name string, policy corev1.RestartPolicy, annotations map[string]string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Annotations: annotations},
			Spec: corev1.PodSpec{
				RestartPolicy: policy,
				Containers:    []corev1.Container{{Name: "main", Image: "busybox"}},
			},
		}
	}
	get := func(ctx context.Context, g Gomega, p *corev1.Pod) *corev1.Pod {
		got := &corev1.Pod{}
		g.Expect(shared.Client().Get(ctx, client.ObjectKeyFromObject(p), got)).To(Succeed())
		return got
	}
	create := func(ctx context.Context, p *corev1.Pod) {
		Expect(shared.Client().Create(ctx, p)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { _ = shared.Client().Delete(ctx, p) })
	}

	It("runs a Pod to completion after its run time", func(ctx context.Context) {
		p := pod("runs-2s", corev1.RestartPolicyNever, map[string]string{kubelet.AnnotationRunTime: "2s"})
		create(ctx, p)
		Eventually(func(g Gomega) {
			g.Expect(get(ctx, g, p).Status.Phase).To(Equal(corev1.PodRunning))
		}).WithContext(ctx).Should(Succeed())
		Eventually(func(g Gomega) {
			got := get(ctx, g, p)
			g.Expect(got.Status.Phase).To(Equal(corev1.PodSucceeded))
			term := got.Status.ContainerStatuses[0].State.Terminated
			g.Expect(term).NotTo(BeNil())
			g.Expect(term.ExitCode).To(BeZero())
			g.Expect(term.FinishedAt.Sub(got.Status.StartTime.Time)).To(BeNumerically(">=", time.Second))
		}).WithContext(ctx).WithTimeout(15 * time.Second).Should(Succeed())
	})

	It("fails a Pod that asks to fail", func(ctx context.Context) {
		p := pod("fails", corev1.RestartPolicyNever, map[string]string{kubelet.AnnotationBehavior: kubelet.BehaviorFail})
		create(ctx, p)
		Eventually(func(g Gomega) {
			got := get(ctx, g, p)
			g.Expect(got.Status.Phase).To(Equal(corev1.PodFailed))
			g.Expect(got.Status.ContainerStatuses[0].State.Terminated.ExitCode).To(Equal(int32(1)))
		}).WithContext(ctx).WithTimeout(15 * time.Second).Should(Succeed())
	})

	It("crash-loops a Pod that asks to", func(ctx context.Context) {
		p := pod("crashes", corev1.RestartPolicyAlways, map[string]string{kubelet.AnnotationBehavior: kubelet.BehaviorCrashLoop})
		create(ctx, p)
		Eventually(func(g Gomega) {
			cs := get(ctx, g, p).Status.ContainerStatuses
			g.Expect(cs).To(HaveLen(1))
			g.Expect(cs[0].RestartCount).To(BeNumerically(">=", 1))
			g.Expect(cs[0].Ready).To(BeFalse())
			g.Expect(cs[0].State.Waiting).NotTo(BeNil())
			g.Expect(cs[0].State.Waiting.Reason).To(Equal("CrashLoopBackOff"))
		}).WithContext(ctx).WithTimeout(15 * time.Second).Should(Succeed())
	})

	It("keeps a never-ready Pod running but not Ready", func(ctx context.Context) {
		p := pod("never-ready", corev1.RestartPolicyAlways, map[string]string{kubelet.AnnotationBehavior: kubelet.BehaviorNeverReady})
		create(ctx, p)
		Consistently(func(g Gomega) {
			got := get(ctx, g, p)
			g.Expect(readySince(*got).IsZero()).To(BeTrue())
		}).WithContext(ctx).WithTimeout(2 * time.Second).Should(Succeed())
		Expect(get(ctx, Default, p).Status.Phase).To(Equal(corev1.PodRunning))
	})
})
