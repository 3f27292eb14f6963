package lab_test

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdlab/crdlab/lab/timeline"
)

// Workloads behave as in a real cluster: the lab's controller-manager,
// scheduler and simulated kubelet make Pods come and go.
var _ = Describe("workloads in a full lab", func() {
	var (
		c  client.Client
		ns string
	)
	BeforeEach(func(ctx context.Context) {
		c = shared.Client()
		n := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "wl-"}}
		Expect(c.Create(ctx, n)).To(Succeed())
		ns = n.Name
	})

	It("runs a Deployment's Pods on simulated nodes and reports them available", func(ctx context.Context) {
		d := deployment(ns, "web", 3)
		Expect(c.Create(ctx, d)).To(Succeed())
		Eventually(func(g Gomega) {
			pods := runningReadyPods(ctx, g, c, ns, "web")
			g.Expect(pods).To(HaveLen(3))
			for _, p := range pods {
				g.Expect(nodeNames()).To(ContainElement(p.Spec.NodeName))
				// From its node's podCIDR, as a cluster's node IPAM gives it.
				var node corev1.Node
				g.Expect(c.Get(ctx, client.ObjectKey{Name: p.Spec.NodeName}, &node)).To(Succeed())
				cidr, err := netip.ParsePrefix(node.Spec.PodCIDR)
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(node.Spec.PodCIDRs).To(Equal([]string{node.Spec.PodCIDR}))
				g.Expect(cidr.Contains(netip.MustParseAddr(p.Status.PodIP))).To(BeTrue(), "Pod %s at %s, node %s's podCIDR %s", p.Name, p.Status.PodIP, node.Name, cidr)
				g.Expect(p.Status.StartTime).NotTo(BeNil())
				g.Expect(p.Status.ContainerStatuses).To(HaveLen(1))
			}
			g.Expect(c.Get(ctx, client.ObjectKeyFromObject(d), d)).To(Succeed())
			g.Expect(d.Status.AvailableReplicas).To(Equal(int32(3)))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
	})

	It("replaces a deleted Pod, and the events say who did what", func(ctx context.Context) {
		Expect(c.Create(ctx, deployment(ns, "web", 3))).To(Succeed())
		var victim corev1.Pod
		Eventually(func(g Gomega) {
			pods := runningReadyPods(ctx, g, c, ns, "web")
			g.Expect(pods).To(HaveLen(3))
			victim = pods[0]
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())

		Expect(c.Delete(ctx, &victim)).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(&victim), &corev1.Pod{}))
		}).WithContext(ctx).WithTimeout(15*time.Second).Should(BeTrue(), "deleted pod stuck terminating")
		Eventually(func(g Gomega) {
			pods := runningReadyPods(ctx, g, c, ns, "web")
			g.Expect(pods).To(HaveLen(3))
			for _, p := range pods {
				g.Expect(p.Name).NotTo(Equal(victim.Name))
			}
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())

		Eventually(func(g Gomega) {
			var events corev1.EventList
			g.Expect(c.List(ctx, &events, client.InNamespace(ns))).To(Succeed())
			reasons := map[string]string{}
			for _, e := range events.Items {
				reasons[e.Reason] = e.ReportingController + e.Source.Component
			}
			g.Expect(reasons).To(HaveKeyWithValue("SuccessfulCreate", ContainSubstring("replicaset-controller")))
			g.Expect(reasons).To(HaveKeyWithValue("Scheduled", ContainSubstring("default-scheduler")))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
	})

	It("follows a scale up and down", func(ctx context.Context) {
		d := deployment(ns, "web", 1)
		Expect(c.Create(ctx, d)).To(Succeed())
		for _, n := range []int32{10, 2} {
			Eventually(func() error {
				if err := c.Get(ctx, client.ObjectKeyFromObject(d), d); err != nil {
					return err
				}
				d.Spec.Replicas = ptr.To(n)
				return c.Update(ctx, d)
			}).WithContext(ctx).Should(Succeed())
			Eventually(func(g Gomega) {
				g.Expect(runningReadyPods(ctx, g, c, ns, "web")).To(HaveLen(int(n)))
				g.Expect(livePods(ctx, g, c, ns, "web")).To(HaveLen(int(n)))
			}).WithContext(ctx).WithTimeout(60*time.Second).Should(Succeed(), "scaling to %d", n)
		}
	})

	It("collects a deleted Deployment's ReplicaSets and Pods, and finishes deleting a namespace", func(ctx context.Context) {
		d := deployment(ns, "web", 2)
		Expect(c.Create(ctx, d)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(runningReadyPods(ctx, g, c, ns, "web")).To(HaveLen(2))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		Expect(c.Delete(ctx, d)).To(Succeed())
		Eventually(func(g Gomega) {
			var rs appsv1.ReplicaSetList
			g.Expect(c.List(ctx, &rs, client.InNamespace(ns))).To(Succeed())
			g.Expect(rs.Items).To(BeEmpty())
			var pods corev1.PodList
			g.Expect(c.List(ctx, &pods, client.InNamespace(ns))).To(Succeed())
			g.Expect(pods.Items).To(BeEmpty())
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())

		Expect(c.Create(ctx, deployment(ns, "left-behind", 2))).To(Succeed())
		Expect(c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: ns}})).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(runningReadyPods(ctx, g, c, ns, "left-behind")).To(HaveLen(2))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		Expect(c.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(c.Get(ctx, nameOf(ns), &corev1.Namespace{}))
		}).WithContext(ctx).WithTimeout(60*time.Second).Should(BeTrue(), "namespace %s never finished deleting", ns)
	})

	It("completes a Job", func(ctx context.Context) {
		job := &batchv1.Job{
			ObjectMeta: metav1.ObjectMeta{Name: "once", Namespace: ns},
			Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "main", Image: "busybox"}},
			}}},
		}
		Expect(c.Create(ctx, job)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(c.Get(ctx, client.ObjectKeyFromObject(job), job)).To(Succeed())
			g.Expect(job.Status.Succeeded).To(Equal(int32(1)))
			g.Expect(hasJobCondition(job, batchv1.JobComplete)).To(BeTrue())
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
	})

	It("brings a StatefulSet's Pods up in order with stable names", func(ctx context.Context) {
		labels := map[string]string{"app": "db"}
		sts := &appsv1.StatefulSet{
			ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: ns},
			Spec: appsv1.StatefulSetSpec{
				ServiceName: "db",
				Replicas:    ptr.To(int32(3)),
				Selector:    &metav1.LabelSelector{MatchLabels: labels},
				Template:    podTemplate(labels),
			},
		}
		Expect(c.Create(ctx, sts)).To(Succeed())
		var pods []corev1.Pod
		Eventually(func(g Gomega) {
			pods = runningReadyPodsBy(ctx, g, c, ns, labels)
			g.Expect(pods).To(HaveLen(3))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		byName := map[string]corev1.Pod{}
		for _, p := range pods {
			byName[p.Name] = p
		}
		Expect(byName).To(HaveKey("db-0"))
		Expect(byName).To(HaveKey("db-1"))
		Expect(byName).To(HaveKey("db-2"))
		// OrderedReady: each Pod is created only once the one before is Ready.
		for i := 1; i < 3; i++ {
			prev, cur := byName[fmt.Sprintf("db-%d", i-1)], byName[fmt.Sprintf("db-%d", i)]
			Expect(cur.CreationTimestamp.Time).NotTo(BeTemporally("<", readySince(prev).Truncate(time.Second)))
		}
	})

	It("gives a Service EndpointSlices with the ready Pod IPs", func(ctx context.Context) {
		Expect(c.Create(ctx, deployment(ns, "api", 2))).To(Succeed())
		svc := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: ns},
			Spec: corev1.ServiceSpec{
				Selector: map[string]string{"app": "api"},
				Ports:    []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}},
			},
		}
		Expect(c.Create(ctx, svc)).To(Succeed())
		Eventually(func(g Gomega) {
			pods := runningReadyPods(ctx, g, c, ns, "api")
			g.Expect(pods).To(HaveLen(2))
			var want []string
			for _, p := range pods {
				want = append(want, p.Status.PodIP)
			}
			var slices discoveryv1.EndpointSliceList
			g.Expect(c.List(ctx, &slices, client.InNamespace(ns),
				client.MatchingLabels{discoveryv1.LabelServiceName: "api"})).To(Succeed())
			var got []string
			for _, s := range slices.Items {
				for _, ep := range s.Endpoints {
					if ep.Conditions.Ready != nil && *ep.Conditions.Ready {
						got = append(got, ep.Addresses...)
					}
				}
			}
			g.Expect(got).To(ConsistOf(want))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
	})

	It("marks a stopped node NotReady and replaces its Pods on the other nodes", func(ctx context.Context) {
		Expect(c.Create(ctx, deployment(ns, "web", 6))).To(Succeed())
		var victim string
		Eventually(func(g Gomega) {
			pods := runningReadyPods(ctx, g, c, ns, "web")
			g.Expect(pods).To(HaveLen(6))
			victim = pods[0].Spec.NodeName
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())

		Expect(shared.StopNode(ctx, victim)).To(Succeed())
		DeferCleanup(func(ctx context.Context) {
			Expect(shared.StartNode(ctx, victim)).To(Succeed())
			Eventually(func(g Gomega) {
				var node corev1.Node
				g.Expect(c.Get(ctx, nameOf(victim), &node)).To(Succeed())
				g.Expect(nodeReady(&node)).To(Equal(corev1.ConditionTrue))
				g.Expect(node.Spec.Taints).To(BeEmpty())
			}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())
		})
		Eventually(func(g Gomega) {
			var node corev1.Node
			g.Expect(c.Get(ctx, nameOf(victim), &node)).To(Succeed())
			g.Expect(nodeReady(&node)).NotTo(Equal(corev1.ConditionTrue))
		}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())
		Eventually(func(g Gomega) {
			pods := runningReadyPods(ctx, g, c, ns, "web")
			g.Expect(pods).To(HaveLen(6))
			for _, p := range pods {
				g.Expect(p.Spec.NodeName).NotTo(Equal(victim))
			}
		}).WithContext(ctx).WithTimeout(90 * time.Second).Should(Succeed())
	}, NodeTimeout(4*time.Minute))
})

func podTemplate(labels map[string]string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "nginx"}}},
	}
}

func deployment(ns, name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: podTemplate(labels),
		},
	}
}

// livePods lists the Pods of app that are not being deleted.
func livePods(ctx context.Context, g Gomega, c client.Client, ns, app string) []corev1.Pod {
	var list corev1.PodList
	g.Expect(c.List(ctx, &list, client.InNamespace(ns), client.MatchingLabels{"app": app})).To(Succeed())
	var live []corev1.Pod
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil {
			live = append(live, p)
		}
	}
	return live
}

func runningReadyPods(ctx context.Context, g Gomega, c client.Client, ns, app string) []corev1.Pod {
	return runningReadyPodsBy(ctx, g, c, ns, map[string]string{"app": app})
}

// runningReadyPodsBy lists the Running, Ready, not deleted Pods matching labels.
func runningReadyPodsBy(ctx context.Context, g Gomega, c client.Client, ns string, labels map[string]string) []corev1.Pod {
	var list corev1.PodList
	g.Expect(c.List(ctx, &list, client.InNamespace(ns), client.MatchingLabels(labels))).To(Succeed())
	var out []corev1.Pod
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning && !readySince(p).IsZero() {
			out = append(out, p)
		}
	}
	return out
}

// readySince is when the Pod became Ready, or zero if it is not.
func readySince(p corev1.Pod) time.Time {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			return c.LastTransitionTime.Time
		}
	}
	return time.Time{}
}

func nodeReady(n *corev1.Node) corev1.ConditionStatus {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status
		}
	}
	return corev1.ConditionUnknown
}

func hasJobCondition(job *batchv1.Job, t batchv1.JobConditionType) bool {
	for _, c := range job.Status.Conditions {
		if c.Type == t && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

var _ = Describe("a Pod status the apiserver refuses", func() {
	// The simulated kubelet's writes can be refused (an address the
	// apiserver does not take, an admission policy): it says so on the
	// Pod's events, the timeline and the lab's health, and does not send
	// the same write again in silence.
	It("is told on the Pod's events, the timeline and the lab's health", func(ctx context.Context) {
		c := shared.Client()
		recorded := recordTimeline(ctx, shared)
		n := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "refused-"}}
		Expect(c.Create(ctx, n)).To(Succeed())
		ns := n.Name
		DeferCleanup(func(ctx context.Context) { Expect(client.IgnoreNotFound(c.Delete(ctx, n))).To(Succeed()) })
		before := shared.Health().KubeletRefused

		// A policy that refuses every Pod address in this namespace.
		policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: "no-address-in-" + ns},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
				FailurePolicy: ptr.To(admissionregistrationv1.Fail),
				MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update},
						Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods/status"}},
					},
				}}},
				Validations: []admissionregistrationv1.Validation{{
					Expression: fmt.Sprintf("object.metadata.namespace != %q || !has(object.status.podIP)", ns),
					Message:    "no Pod address in this namespace (a crdlab test)",
				}},
			},
		}
		binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: policy.Name},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: policy.Name,
				ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}},
		}
		Expect(c.Create(ctx, policy)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(client.IgnoreNotFound(c.Delete(ctx, policy))).To(Succeed()) })
		Expect(c.Create(ctx, binding)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(client.IgnoreNotFound(c.Delete(ctx, binding))).To(Succeed()) })

		// Until the policy is in force: a Pod on no simulated node (the
		// kubelet leaves it) whose address the apiserver refuses.
		probe := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: ns},
			Spec: corev1.PodSpec{NodeName: "no-such-node", Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
		Expect(c.Create(ctx, probe)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(c.Get(ctx, client.ObjectKeyFromObject(probe), probe)).To(Succeed())
			probe.Status.PodIP = "10.128.0.9"
			err := c.Status().Update(ctx, probe, client.DryRunAll)
			g.Expect(err).To(HaveOccurred())
			g.Expect(err.Error()).To(ContainSubstring("no Pod address in this namespace"))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		// No kubelet confirms its deletion: gone at once, as the namespace's must be.
		Expect(c.Delete(ctx, probe, client.GracePeriodSeconds(0))).To(Succeed())

		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}}
		Expect(c.Create(ctx, p)).To(Succeed())
		Eventually(func(g Gomega) {
			var events corev1.EventList
			g.Expect(c.List(ctx, &events, client.InNamespace(ns))).To(Succeed())
			var refused []corev1.Event
			for _, e := range events.Items {
				if e.InvolvedObject.Name == "web" && e.Reason == "StatusRefused" {
					refused = append(refused, e)
				}
			}
			g.Expect(refused).To(HaveLen(1), "the Pod's StatusRefused events")
			g.Expect(refused[0].Type).To(Equal(corev1.EventTypeWarning))
			g.Expect(refused[0].Message).To(ContainSubstring("no Pod address in this namespace"))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		Eventually(func(g Gomega) {
			var told []timeline.Event
			for _, e := range recorded() {
				if e.Verb == timeline.Emit && e.Kind == "Pod" && e.Namespace == ns && e.Name == "web" {
					told = append(told, e)
				}
			}
			g.Expect(told).To(ContainElement(And(
				HaveField("Actor", "kubelet (simulated)"),
				HaveField("Detail", ContainSubstring("StatusRefused: the apiserver refused")),
				HaveField("Detail", ContainSubstring("no Pod address in this namespace")),
			)))
		}).WithContext(ctx).WithTimeout(10 * time.Second).Should(Succeed())
		h := shared.Health()
		Expect(h.KubeletRefused).To(BeNumerically(">", before))
		Expect(h.LastKubeletRefusal).To(ContainSubstring("no Pod address in this namespace"))
		// Refused once, not again and again: still Pending, one event.
		Consistently(func(g Gomega) {
			g.Expect(c.Get(ctx, client.ObjectKeyFromObject(p), p)).To(Succeed())
			g.Expect(p.Status.Phase).To(Equal(corev1.PodPending))
		}).WithContext(ctx).WithTimeout(2 * time.Second).Should(Succeed())
	})
})
