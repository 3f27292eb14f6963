package lab_test

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Kubernetes 1.37's StorageVersionMigrator is GA and on by default, and the
// lab runs its controller (lab/internal/kubedefaults): a
// StorageVersionMigration of a CRD's resource rewrites every object in the
// storage version and trims the CRD's status.storedVersions itself, with no
// manual patch.
var _ = Describe("a StorageVersionMigration on the built-in minor", func() {
	It("rewrites a CRD's objects in the new storage version and drops the old one from storedVersions", func(ctx context.Context) {
		c := shared.Client()
		const group, plural = "migration.crdlab.test", "widgets"
		schemaOf := &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
			Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
				"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"size": {Type: "string"}}}}}}
		crd := &apiextensionsv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: plural + "." + group},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{
				Group: group, Scope: apiextensionsv1.NamespaceScoped,
				Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: plural, Singular: "widget", Kind: "Widget"},
				Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
					{Name: "v1beta1", Served: true, Storage: true, Schema: schemaOf},
					{Name: "v1", Served: true, Storage: false, Schema: schemaOf},
				},
			},
		}
		Expect(c.Create(ctx, crd)).To(Succeed())
		DeferCleanup(func(ctx context.Context) {
			Expect(client.IgnoreNotFound(c.Delete(ctx, crd))).To(Succeed())
		})
		key := client.ObjectKeyFromObject(crd)
		Eventually(func(g Gomega) {
			got := &apiextensionsv1.CustomResourceDefinition{}
			g.Expect(c.Get(ctx, key, got)).To(Succeed())
			g.Expect(got.Status.Conditions).To(ContainElement(And(
				HaveField("Type", apiextensionsv1.Established), HaveField("Status", apiextensionsv1.ConditionTrue))))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())

		// Objects stored as v1beta1.
		widgets := dynamic.NewForConfigOrDie(shared.RESTConfig()).
			Resource(schema.GroupVersionResource{Group: group, Version: "v1beta1", Resource: plural}).Namespace("default")
		var before []string // each object's resourceVersion as stored in v1beta1
		for i := range 3 {
			w := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": group + "/v1beta1", "kind": "Widget",
				"metadata": map[string]any{"name": fmt.Sprintf("w%d", i)}, "spec": map[string]any{"size": "s"}}}
			Eventually(func() error {
				created, err := widgets.Create(ctx, w, metav1.CreateOptions{})
				if err == nil {
					before = append(before, created.GetResourceVersion())
				}
				return err
			}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		}

		// Storage switched to v1: storedVersions holds both.
		Eventually(func() error {
			got := &apiextensionsv1.CustomResourceDefinition{}
			if err := c.Get(ctx, key, got); err != nil {
				return err
			}
			got.Spec.Versions[0].Storage, got.Spec.Versions[1].Storage = false, true
			return c.Update(ctx, got)
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		got := &apiextensionsv1.CustomResourceDefinition{}
		Expect(c.Get(ctx, key, got)).To(Succeed())
		Expect(got.Status.StoredVersions).To(ConsistOf("v1beta1", "v1"))

		// The migration: the controller rewrites every Widget, then trims
		// storedVersions. Nothing in this spec patches the CRD's status.
		svms := kubernetes.NewForConfigOrDie(shared.RESTConfig()).StoragemigrationV1().StorageVersionMigrations()
		svm, err := svms.Create(ctx, &storagemigrationv1.StorageVersionMigration{
			ObjectMeta: metav1.ObjectMeta{Name: "widgets-to-v1"},
			Spec:       storagemigrationv1.StorageVersionMigrationSpec{Resource: metav1.GroupResource{Group: group, Resource: plural}},
		}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func(ctx context.Context) {
			Expect(client.IgnoreNotFound(svms.Delete(ctx, svm.Name, metav1.DeleteOptions{}))).To(Succeed())
		})
		// The migrator starts once the garbage collector's cache of widgets
		// has reached the migration's resourceVersion: with no other write,
		// a watch bookmark (once a minute) brings it, and the migrator's
		// workqueue backs off, doubling, meanwhile: up to about two minutes.
		Eventually(func(g Gomega) {
			s, err := svms.Get(ctx, svm.Name, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(s.Status.Conditions).NotTo(ContainElement(And(
				HaveField("Type", string(storagemigrationv1.MigrationFailed)), HaveField("Status", metav1.ConditionTrue))), "the migration failed")
			g.Expect(s.Status.Conditions).To(ContainElement(And(
				HaveField("Type", string(storagemigrationv1.MigrationSucceeded)), HaveField("Status", metav1.ConditionTrue))))
		}).WithContext(ctx).WithTimeout(150*time.Second).WithPolling(200*time.Millisecond).Should(Succeed(),
			"the StorageVersionMigration's conditions: is storage-version-migrator-controller running?")
		Eventually(func(g Gomega) {
			got := &apiextensionsv1.CustomResourceDefinition{}
			g.Expect(c.Get(ctx, key, got)).To(Succeed())
			g.Expect(got.Status.StoredVersions).To(Equal([]string{"v1"}))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())

		// Each Widget was written again (stored as v1 now): a new
		// resourceVersion.
		list, err := widgets.List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(list.Items).To(HaveLen(3))
		for _, w := range list.Items {
			Expect(before).NotTo(ContainElement(w.GetResourceVersion()), "%s was not rewritten", w.GetName())
		}
	})
})
