package lab_test

import (
	"context"
	"io/fs"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/crdlab/crdlab/fixtures"
	"github.com/crdlab/crdlab/fixtures/migrate"
)

// The seed's v1beta1 User CRD, migrated to v1, installs and validates the
// seed's custom resources as the seed says it should.
var _ = Describe("the seed's User CRD migrated to v1", func() {
	It("applies, accepts admin and refuses tony and a User without groups", func(ctx context.Context) {
		c := shared.Client()
		v1beta1, err := fs.ReadFile(fixtures.FS, "seed/users-crd-with-validation.yaml")
		Expect(err).NotTo(HaveOccurred())
		v1, _, err := migrate.CRD(v1beta1)
		Expect(err).NotTo(HaveOccurred())
		crd := &apiextensionsv1.CustomResourceDefinition{}
		Expect(yaml.UnmarshalStrict(v1, crd)).To(Succeed())
		Expect(c.Create(ctx, crd)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { _ = c.Delete(ctx, crd) })
		Eventually(func(g Gomega) {
			g.Expect(c.Get(ctx, nameOf(crd.Name), crd)).To(Succeed())
			g.Expect(isEstablished(crd)).To(BeTrue())
		}).WithContext(ctx).Should(Succeed())

		admin := sample("samples/user-admin.yaml")
		Eventually(func() error { return c.Create(ctx, admin) }).WithContext(ctx).Should(Succeed())
		DeferCleanup(func(ctx context.Context) { _ = c.Delete(ctx, admin) })
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(admin.GroupVersionKind())
		Expect(c.Get(ctx, client.ObjectKeyFromObject(admin), got)).To(Succeed())
		Expect(got.Object["spec"]).To(HaveKeyWithValue("userID", int64(1)))

		err = c.Create(ctx, sample("seed/users-with-invalid-field.yaml"))
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "got %v", err)
		Expect(err.Error()).To(And(ContainSubstring("spec.userID"), ContainSubstring("65535")))

		err = c.Create(ctx, sample("samples/user-no-groups-invalid.yaml"))
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "got %v", err)
		Expect(err.Error()).To(ContainSubstring("spec.groups: Required value"))
	})
})

func sample(path string) *unstructured.Unstructured {
	data, err := fs.ReadFile(fixtures.FS, path)
	Expect(err).NotTo(HaveOccurred())
	u := &unstructured.Unstructured{}
	Expect(yaml.Unmarshal(data, &u.Object)).To(Succeed())
	return u
}
