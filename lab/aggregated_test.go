package lab_test

import (
	"context"
	"errors"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdlab/crdlab/lab"
	"github.com/crdlab/crdlab/lab/aggregated"
)

var _ = Describe("the aggregated API server", func() {
	var mc *metricsclient.Clientset
	BeforeEach(func() {
		var err error
		mc, err = metricsclient.NewForConfig(shared.RESTConfig())
		Expect(err).NotTo(HaveOccurred())
	})

	available := func(ctx context.Context, status string) {
		GinkgoHelper()
		dyn := dynamic.NewForConfigOrDie(shared.RESTConfig())
		dc := discovery.NewDiscoveryClientForConfigOrDie(shared.RESTConfig())
		gvr := schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}
		Eventually(func(g Gomega) {
			for name := range aggregated.APIServices {
				u, err := dyn.Resource(gvr).Get(ctx, name, metav1.GetOptions{})
				g.Expect(err).NotTo(HaveOccurred())
				conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
				g.Expect(conds).To(ContainElement(And(HaveKeyWithValue("type", "Available"), HaveKeyWithValue("status", status))), name)
			}
			// The condition is read from etcd; the aggregator's proxy learns
			// it through its APIService informer a moment later, and until
			// then answers as before (503 after a start, 200 after a stop).
			// Its discovery answer is the signal that it has.
			for name, gv := range aggregated.APIServices {
				var code int
				dc.RESTClient().Get().AbsPath("/apis", gv.Group, gv.Version).Do(ctx).StatusCode(&code)
				if status == "True" {
					g.Expect(code).To(Equal(http.StatusOK), name)
				} else {
					g.Expect(code).To(Equal(http.StatusServiceUnavailable), name)
				}
			}
		}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())
	}

	It("is reached through the aggregator: NodeMetrics, PodMetrics from the usage model, and the lab summary", func(ctx context.Context) {
		available(ctx, "True")
		nodes, err := mc.MetricsV1beta1().NodeMetricses().List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(nodes.Items).To(HaveLen(len(shared.Nodes())))

		By("a Deployment annotated with a CPU use: its Pods use that")
		c := shared.Client()
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "metrics-"}}
		Expect(c.Create(ctx, ns)).To(Succeed())
		labels := map[string]string{"app": "busy"}
		d := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "busy", Namespace: ns.Name, Annotations: map[string]string{aggregated.AnnotationCPU: "300m"}},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr.To(int32(2)),
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec: corev1.PodSpec{Containers: []corev1.Container{
						{Name: "a", Image: "nginx"}, {Name: "b", Image: "nginx"}}},
				},
			},
		}
		Expect(c.Create(ctx, d)).To(Succeed())
		Eventually(func(g Gomega) {
			pods, err := mc.MetricsV1beta1().PodMetricses(ns.Name).List(ctx, metav1.ListOptions{LabelSelector: "app=busy"})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(pods.Items).To(HaveLen(2))
			for _, p := range pods.Items {
				g.Expect(p.Containers).To(HaveLen(2))
				total := p.Containers[0].Usage.Cpu().DeepCopy()
				total.Add(*p.Containers[1].Usage.Cpu())
				g.Expect(total.Cmp(resource.MustParse("300m"))).To(Equal(0), "%s uses %s", p.Name, total.String())
			}
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())

		By("the lab summary, in a group of its own")
		dyn := dynamic.NewForConfigOrDie(shared.RESTConfig())
		sum, err := dyn.Resource(aggregated.SummaryGroupVersion.WithResource("summaries")).Get(ctx, aggregated.SummaryName, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(sum.Object).To(HaveKeyWithValue("nodes", BeNumerically("==", len(shared.Nodes()))))
		Expect(sum.Object).To(HaveKeyWithValue("runningPods", BeNumerically(">=", 2)))
	})

	It("turns unavailable when stopped, requests failing with 503, and recovers when started", func(ctx context.Context) {
		available(ctx, "True")
		Expect(shared.StopComponent(ctx, lab.AggregatedAPI)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(shared.StartComponent(ctx, lab.AggregatedAPI)).To(Succeed()) })
		available(ctx, "False")
		_, err := mc.MetricsV1beta1().NodeMetricses().List(ctx, metav1.ListOptions{})
		Expect(apierrors.IsServiceUnavailable(err)).To(BeTrue(), "got %v", err)
		var status apierrors.APIStatus
		Expect(errors.As(err, &status)).To(BeTrue())
		Expect(status.Status().Code).To(Equal(int32(http.StatusServiceUnavailable)))

		Expect(shared.StartComponent(ctx, lab.AggregatedAPI)).To(Succeed())
		available(ctx, "True")
		Eventually(func() error {
			_, err := mc.MetricsV1beta1().NodeMetricses().List(ctx, metav1.ListOptions{})
			return err
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
	})

	// The aggregator lesson's learner registers a route of their own for
	// lab.crdlab.dev (insecureSkipTLSVerify, which the apiserver refuses
	// beside the lab's caBundle, or to another Service); the lab's server,
	// started again or started while it runs (crdlab controller start
	// aggregated-api), takes its route back and says so in an Event.
	It("takes its route back from a learner's when started, stopped before or not, and says so", func(ctx context.Context) {
		available(ctx, "True")
		DeferCleanup(func(ctx context.Context) {
			Expect(shared.StartComponent(ctx, lab.AggregatedAPI)).To(Succeed())
			available(ctx, "True")
		})
		const name = "v1alpha1.lab.crdlab.dev"
		apisvcs := dynamic.NewForConfigOrDie(shared.RESTConfig()).Resource(
			schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"})
		learners := func(service map[string]any) {
			GinkgoHelper()
			Expect(apisvcs.Delete(ctx, name, metav1.DeleteOptions{})).To(Succeed())
			Eventually(func() bool {
				_, err := apisvcs.Get(ctx, name, metav1.GetOptions{})
				return apierrors.IsNotFound(err)
			}).WithContext(ctx).WithTimeout(30 * time.Second).Should(BeTrue())
			route := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
				"metadata": map[string]any{"name": name},
				"spec": map[string]any{"group": "lab.crdlab.dev", "version": "v1alpha1", "service": service,
					"groupPriorityMinimum": int64(1000), "versionPriority": int64(15), "insecureSkipTLSVerify": true},
			}}
			_, err := apisvcs.Create(ctx, route, metav1.CreateOptions{FieldManager: "kubectl-create"})
			Expect(err).NotTo(HaveOccurred())
		}
		takenBack := func(said string) {
			GinkgoHelper()
			u, err := apisvcs.Get(ctx, name, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred())
			spec, _, _ := unstructured.NestedMap(u.Object, "spec")
			Expect(spec).To(HaveKeyWithValue("service", And(
				HaveKeyWithValue("namespace", aggregated.ServiceNamespace), HaveKeyWithValue("name", aggregated.ServiceName))))
			Expect(spec).To(HaveKey("caBundle"))
			Expect(spec).NotTo(HaveKeyWithValue("insecureSkipTLSVerify", true))
			Expect(spec).To(HaveKeyWithValue("groupPriorityMinimum", BeNumerically("==", 100)))
			Eventually(func(g Gomega) {
				var events corev1.EventList
				g.Expect(shared.Client().List(ctx, &events, client.InNamespace(metav1.NamespaceDefault))).To(Succeed())
				var messages []string
				for _, ev := range events.Items {
					if ev.InvolvedObject.Name == name && ev.Reason == aggregated.ReasonRouteTakenBack {
						messages = append(messages, ev.Message)
					}
				}
				g.Expect(messages).To(ContainElement(And(ContainSubstring("the one you (kubectl) wrote"), ContainSubstring(said))))
			}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		}

		By("a learner's route with insecureSkipTLSVerify; the server stopped and started again")
		learners(map[string]any{"namespace": aggregated.ServiceNamespace, "name": aggregated.ServiceName, "port": int64(443)})
		Expect(shared.StopComponent(ctx, lab.AggregatedAPI)).To(Succeed())
		Expect(shared.StartComponent(ctx, lab.AggregatedAPI)).To(Succeed())
		takenBack("spec.groupPriorityMinimum was 1000, spec.insecureSkipTLSVerify was true")
		available(ctx, "True")

		By("a learner's route to another Service; the server started while it runs")
		learners(map[string]any{"namespace": "default", "name": "crdlab-aggregatd", "port": int64(443)})
		Expect(shared.StartComponent(ctx, lab.AggregatedAPI)).To(Succeed())
		takenBack("spec.service was default/crdlab-aggregatd:443")
		available(ctx, "True")
	})
})
