package lab_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The StorageObjectInUseProtection admission plugin, on by default, puts a
// finalizer on every PersistentVolumeClaim; the lab runs the controller
// that removes it (lab/internal/kubedefaults): a deleted claim no Pod uses
// is gone, not Terminating forever.
var _ = Describe("a PersistentVolumeClaim deleted", func() {
	It("is gone: the protection controller removes the admission plugin's finalizer", func(ctx context.Context) {
		c := shared.Client()
		pvc := &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: "protected", Namespace: "default"},
			Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
			},
		}
		Expect(c.Create(ctx, pvc)).To(Succeed())
		Expect(pvc.Finalizers).To(ContainElement("kubernetes.io/pvc-protection"))
		Expect(c.Delete(ctx, pvc)).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(pvc), &corev1.PersistentVolumeClaim{}))
		}).WithContext(ctx).WithTimeout(30*time.Second).Should(BeTrue(), "the claim stayed Terminating: is persistentvolumeclaim-protection-controller running?")
	})
})
