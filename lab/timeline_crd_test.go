package lab_test

import (
	"context"
	"fmt"
	"strings"
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
		r := newCRDRig(ctx, "gadgets", "Gadget", recordTimeline(ctx, shared))
		crd := r.make("v1beta1")
		r.established()

		// Each round: a Gadget created, told, then the CRD deleted (the
		// Gadget with it) and created again. A shared informer's wait
		// before it lists again doubled on each gap (0.8 s, 1.6 s, 3.2 s...
		// up to 30 s, for two minutes): by the third round it told the
		// Gadget seconds late, or only as a later list found it.
		for i := range 6 {
			name := fmt.Sprintf("round-%d", i)
			r.create("v1beta1", name)
			r.told(timeline.Create, name)
			r.remove()
			r.told(timeline.Delete, name)
			crd = r.crd("v1beta1")
			Expect(r.c.Create(ctx, crd)).To(Succeed())
			r.established()
		}
		r.create("v1beta1", "second")
		r.told(timeline.Create, "second")

		// v1 served beside v1beta1, and stored: discovery now prefers v1.
		Eventually(func() error {
			got := &apiextensionsv1.CustomResourceDefinition{}
			if err := r.c.Get(ctx, client.ObjectKeyFromObject(crd), got); err != nil {
				return err
			}
			got.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1beta1", Served: true, Storage: false, Schema: schemaOf("a", "b")},
				{Name: "v1", Served: true, Storage: true, Schema: schemaOf("a")},
			}
			return r.c.Update(ctx, got)
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		Eventually(func() error {
			_, err := r.objects("v1").List(ctx, metav1.ListOptions{})
			return err
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		// A write through v1 (stored as v1, b pruned), and one through v1beta1.
		u, err := r.objects("v1").Get(ctx, "second", metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		u.SetLabels(map[string]string{"through": "v1"})
		_, err = r.objects("v1").Update(ctx, u, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred())
		r.told(timeline.Update, "second")
		u, err = r.objects("v1beta1").Get(ctx, "second", metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		u.SetLabels(map[string]string{"through": "v1beta1"})
		_, err = r.objects("v1beta1").Update(ctx, u, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred())
		r.create("v1beta1", "third")
		r.told(timeline.Create, "third")

		// v1beta1 no longer served: the timeline moves to v1 and goes on.
		Eventually(func() error {
			got := &apiextensionsv1.CustomResourceDefinition{}
			if err := r.c.Get(ctx, client.ObjectKeyFromObject(crd), got); err != nil {
				return err
			}
			got.Spec.Versions[0].Served = false
			return r.c.Update(ctx, got)
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		Eventually(func() bool {
			_, err := r.objects("v1beta1").List(ctx, metav1.ListOptions{})
			return apierrors.IsNotFound(err)
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(BeTrue())
		Expect(r.objects("v1").Delete(ctx, "third", metav1.DeleteOptions{})).To(Succeed())
		r.told(timeline.Delete, "third")

		// Each write once: two watches of the resource told each twice.
		count := map[string]int{}
		for _, e := range r.recorded() {
			if e.Kind == "Gadget" {
				count[fmt.Sprintf("%s %s %d", e.Verb, e.Name, e.Revision)]++
			}
		}
		for line, n := range count {
			Expect(n).To(Equal(1), "the timeline told %q %d times", line, n)
		}
		Expect(count).To(HaveLen(6*2+3+2), "the Gadgets' writes: %v", count) // each round's create and delete; second's create and two updates; third's create and delete
	})

	// A learner who retired v1beta1 (versions-admission) meets a lesson
	// that puts the lab's v1beta1-only User CRD in place of their v1-only
	// one, and creates and deletes Users at once: the watch of the
	// resource moves to a version the new CRD serves, and its first list
	// meets a storage whose watch cache is still starting (429, see
	// lab/timeline/restart.go's noRetryAfter). Each object written as soon
	// as the apiserver serves it must be told, created and deleted.
	It("tells what is written at once to a CRD made again with other versions, or made new", func(ctx context.Context) {
		r := newCRDRig(ctx, "gizmos", "Gizmo", recordTimeline(ctx, shared))
		r.make("v1beta1")
		r.established()
		r.create("v1beta1", "first")
		r.told(timeline.Create, "first")
		for i, version := range []string{"v1", "v1beta1", "v1", "v1", "v2"} {
			r.remove()
			Expect(r.c.Create(ctx, r.crd(version))).To(Succeed())
			name := fmt.Sprintf("round-%d", i)
			r.create(version, name) // as soon as it is served
			Expect(r.objects(version).Delete(ctx, name, metav1.DeleteOptions{})).To(Succeed())
			r.told(timeline.Create, name)
			r.told(timeline.Delete, name)
		}

		// A CRD the timeline has never seen: its first objects are told as
		// created, not found at the start.
		n := newCRDRig(ctx, "widgets", "Widget", r.recorded)
		n.make("v1alpha1")
		n.create("v1alpha1", "at-once")
		Expect(n.objects("v1alpha1").Delete(ctx, "at-once", metav1.DeleteOptions{})).To(Succeed())
		n.told(timeline.Create, "at-once")
		n.told(timeline.Delete, "at-once")
	})
})

// crdRig makes, serves and deletes a CRD of the group timeline.crdlab.test,
// writes its objects, and waits for their lines on a timeline.
type crdRig struct {
	ctx      context.Context
	c        client.Client
	dyn      dynamic.Interface
	plural   string
	kind     string
	recorded func() []timeline.Event
}

// newCRDRig's objects are of kind, plural; recorded is a timeline's lines
// (recordTimeline).
func newCRDRig(ctx context.Context, plural, kind string, recorded func() []timeline.Event) *crdRig {
	return &crdRig{ctx: ctx, c: shared.Client(), dyn: dynamic.NewForConfigOrDie(shared.RESTConfig()),
		plural: plural, kind: kind, recorded: recorded}
}

func (r *crdRig) name() string { return r.plural + ".timeline.crdlab.test" }

// schemaOf is a schema whose spec has the string fields fields.
func schemaOf(fields ...string) *apiextensionsv1.CustomResourceValidation {
	props := map[string]apiextensionsv1.JSONSchemaProps{}
	for _, f := range fields {
		props[f] = apiextensionsv1.JSONSchemaProps{Type: "string"}
	}
	return &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
		Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": {Type: "object", Properties: props}}}}
}

// crd is the CRD serving versions (the first stored).
func (r *crdRig) crd(versions ...string) *apiextensionsv1.CustomResourceDefinition {
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: r.name()},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "timeline.crdlab.test", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: r.plural, Singular: strings.ToLower(r.kind), Kind: r.kind},
		},
	}
	for i, v := range versions {
		crd.Spec.Versions = append(crd.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{
			Name: v, Served: true, Storage: i == 0, Schema: schemaOf("a", "b")})
	}
	return crd
}

func (r *crdRig) established() {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		got := &apiextensionsv1.CustomResourceDefinition{}
		g.Expect(r.c.Get(r.ctx, client.ObjectKey{Name: r.name()}, got)).To(Succeed())
		g.Expect(got.Status.Conditions).To(ContainElement(And(
			HaveField("Type", apiextensionsv1.Established), HaveField("Status", apiextensionsv1.ConditionTrue))))
	}).WithContext(r.ctx).WithTimeout(30 * time.Second).Should(Succeed())
}

func (r *crdRig) gone(ctx context.Context) {
	GinkgoHelper()
	Eventually(func() bool {
		return apierrors.IsNotFound(r.c.Get(ctx, client.ObjectKey{Name: r.name()}, &apiextensionsv1.CustomResourceDefinition{}))
	}).WithContext(ctx).WithTimeout(30 * time.Second).Should(BeTrue())
}

// make creates the CRD serving versions, and deletes it at the spec's end.
func (r *crdRig) make(versions ...string) *apiextensionsv1.CustomResourceDefinition {
	GinkgoHelper()
	crd := r.crd(versions...)
	Expect(r.c.Create(r.ctx, crd)).To(Succeed())
	DeferCleanup(func(ctx context.Context) {
		Expect(client.IgnoreNotFound(r.c.Delete(ctx, r.crd()))).To(Succeed())
		r.gone(ctx)
	})
	return crd
}

// remove deletes the CRD, and waits until it is gone.
func (r *crdRig) remove() {
	GinkgoHelper()
	Expect(r.c.Delete(r.ctx, r.crd())).To(Succeed())
	r.gone(r.ctx)
}

func (r *crdRig) objects(version string) dynamic.ResourceInterface {
	return r.dyn.Resource(schema.GroupVersionResource{Group: "timeline.crdlab.test", Version: version, Resource: r.plural}).Namespace("default")
}

// create creates the object name through version, as soon as the
// apiserver serves it (a moment after the CRD is Established).
func (r *crdRig) create(version, name string) {
	GinkgoHelper()
	Eventually(func() error {
		_, err := r.objects(version).Create(r.ctx, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "timeline.crdlab.test/" + version, "kind": r.kind,
			"metadata": map[string]any{"name": name}, "spec": map[string]any{"a": "x", "b": "y"}}}, metav1.CreateOptions{})
		return err
	}).WithContext(r.ctx).WithTimeout(30 * time.Second).WithPolling(5 * time.Millisecond).Should(Succeed())
}

// lines are the timeline's lines of the rig's objects: "VERB name".
func (r *crdRig) lines() []string {
	var got []string
	for _, e := range r.recorded() {
		if e.Kind == r.kind {
			got = append(got, fmt.Sprintf("%s %s", e.Verb, e.Name))
		}
	}
	return got
}

// told waits until the timeline has a line of verb about name, within 3 s
// (a lab's stream holds a line under one): a watch that backed off tells
// it up to half a minute later.
func (r *crdRig) told(verb, name string) {
	GinkgoHelper()
	Eventually(r.lines).WithContext(r.ctx).WithTimeout(3*time.Second).WithPolling(50*time.Millisecond).
		Should(ContainElement(fmt.Sprintf("%s %s", verb, name)), "the timeline's lines of %s", r.plural)
}
