package lab_test

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdlab/crdlab/lab/timeline"
)

// A lesson deletes a CRD, creates it again, adds a version and makes it the
// storage version, while the learner writes its objects. A shared
// informer backs off up to 30 s after a few failed lists, and a watch per
// version told each write twice once a second version was preferred.
var _ = Describe("the timeline of a CRD deleted, created again and given a new storage version", func() {
	It("tells each write to its objects once, while it happens", func(ctx context.Context) {
		recorded := recordTimeline(ctx, shared)

		c := shared.Client()
		schemaOf := func(fields ...string) *apiextensionsv1.CustomResourceValidation {
			props := map[string]apiextensionsv1.JSONSchemaProps{}
			for _, f := range fields {
				props[f] = apiextensionsv1.JSONSchemaProps{Type: "string"}
			}
			return &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
				Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": {Type: "object", Properties: props}}}}
		}
		newCRD := func() *apiextensionsv1.CustomResourceDefinition {
			return &apiextensionsv1.CustomResourceDefinition{
				ObjectMeta: metav1.ObjectMeta{Name: "gadgets.timeline.crdlab.test"},
				Spec: apiextensionsv1.CustomResourceDefinitionSpec{
					Group: "timeline.crdlab.test", Scope: apiextensionsv1.NamespaceScoped,
					Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", Kind: "Gadget"},
					Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
						{Name: "v1beta1", Served: true, Storage: true, Schema: schemaOf("a", "b")},
					},
				},
			}
		}
		established := func(crd *apiextensionsv1.CustomResourceDefinition) {
			GinkgoHelper()
			Eventually(func(g Gomega) {
				got := &apiextensionsv1.CustomResourceDefinition{}
				g.Expect(c.Get(ctx, client.ObjectKeyFromObject(crd), got)).To(Succeed())
				g.Expect(got.Status.Conditions).To(ContainElement(And(
					HaveField("Type", apiextensionsv1.Established), HaveField("Status", apiextensionsv1.ConditionTrue))))
			}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		}
		gone := func(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) {
			GinkgoHelper()
			Eventually(func() bool {
				return apierrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(crd), &apiextensionsv1.CustomResourceDefinition{}))
			}).WithContext(ctx).WithTimeout(30 * time.Second).Should(BeTrue())
		}
		crd := newCRD()
		Expect(c.Create(ctx, crd)).To(Succeed())
		DeferCleanup(func(ctx context.Context) {
			Expect(client.IgnoreNotFound(c.Delete(ctx, newCRD()))).To(Succeed())
			gone(ctx, newCRD())
		})
		established(crd)

		dyn := dynamic.NewForConfigOrDie(shared.RESTConfig())
		gadgets := func(version string) dynamic.ResourceInterface {
			return dyn.Resource(schema.GroupVersionResource{Group: "timeline.crdlab.test", Version: version, Resource: "gadgets"}).Namespace("default")
		}
		gadget := func(name string) *unstructured.Unstructured {
			u := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "timeline.crdlab.test/v1beta1", "kind": "Gadget",
				"metadata": map[string]any{"name": name}, "spec": map[string]any{"a": "x", "b": "y"}}}
			return u
		}
		create := func(name string) {
			GinkgoHelper()
			// The apiserver serves the CRD again a moment after it is Established.
			Eventually(func() error {
				_, err := gadgets("v1beta1").Create(ctx, gadget(name), metav1.CreateOptions{})
				return err
			}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		}
		// told waits until the timeline has a line of verb about name,
		// within 3 s (a lab's stream holds a line under one): a watch that
		// backed off tells it up to half a minute later.
		told := func(verb, name string) {
			GinkgoHelper()
			Eventually(func() []string {
				var got []string
				for _, e := range recorded() {
					if e.Kind == "Gadget" {
						got = append(got, fmt.Sprintf("%s %s", e.Verb, e.Name))
					}
				}
				return got
			}).WithContext(ctx).WithTimeout(3*time.Second).WithPolling(50*time.Millisecond).
				Should(ContainElement(fmt.Sprintf("%s %s", verb, name)), "the timeline's lines of Gadgets")
		}

		// Each round: a Gadget created, told, then the CRD deleted (the
		// Gadget with it) and created again. A shared informer's wait
		// before it lists again doubled on each gap (0.8 s, 1.6 s, 3.2 s...
		// up to 30 s, for two minutes): by the third round it told the
		// Gadget seconds late, or only as a later list found it.
		for i := range 6 {
			name := fmt.Sprintf("round-%d", i)
			create(name)
			told(timeline.Create, name)
			Expect(c.Delete(ctx, newCRD())).To(Succeed())
			gone(ctx, crd)
			told(timeline.Delete, name)
			crd = newCRD()
			Expect(c.Create(ctx, crd)).To(Succeed())
			established(crd)
		}
		create("second")
		told(timeline.Create, "second")

		// v1 served beside v1beta1, and stored: discovery now prefers v1.
		Eventually(func() error {
			got := &apiextensionsv1.CustomResourceDefinition{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(crd), got); err != nil {
				return err
			}
			got.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1beta1", Served: true, Storage: false, Schema: schemaOf("a", "b")},
				{Name: "v1", Served: true, Storage: true, Schema: schemaOf("a")},
			}
			return c.Update(ctx, got)
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		Eventually(func() error {
			_, err := gadgets("v1").List(ctx, metav1.ListOptions{})
			return err
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		// A write through v1 (stored as v1, b pruned), and one through v1beta1.
		u, err := gadgets("v1").Get(ctx, "second", metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		u.SetLabels(map[string]string{"through": "v1"})
		_, err = gadgets("v1").Update(ctx, u, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred())
		told(timeline.Update, "second")
		u, err = gadgets("v1beta1").Get(ctx, "second", metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		u.SetLabels(map[string]string{"through": "v1beta1"})
		_, err = gadgets("v1beta1").Update(ctx, u, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred())
		create("third")
		told(timeline.Create, "third")

		// v1beta1 no longer served: the timeline moves to v1 and goes on.
		Eventually(func() error {
			got := &apiextensionsv1.CustomResourceDefinition{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(crd), got); err != nil {
				return err
			}
			got.Spec.Versions[0].Served = false
			return c.Update(ctx, got)
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		Eventually(func() bool {
			_, err := gadgets("v1beta1").List(ctx, metav1.ListOptions{})
			return apierrors.IsNotFound(err)
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(BeTrue())
		Expect(gadgets("v1").Delete(ctx, "third", metav1.DeleteOptions{})).To(Succeed())
		told(timeline.Delete, "third")

		// Each write once: two watches of the resource told each twice.
		count := map[string]int{}
		for _, e := range recorded() {
			if e.Kind == "Gadget" {
				count[fmt.Sprintf("%s %s %d", e.Verb, e.Name, e.Revision)]++
			}
		}
		for line, n := range count {
			Expect(n).To(Equal(1), "the timeline told %q %d times", line, n)
		}
		Expect(count).To(HaveLen(6*2+3+2), "the Gadgets' writes: %v", count) // each round's create and delete; second's create and two updates; third's create and delete
	})
})
