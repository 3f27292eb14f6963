package scenarios

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// kube-apiserver's CRD finalizer (apiextensions-apiserver's
// pkg/controller/finalizer, 1.37) can drop a CRD's deletion. A try that
// fails (its objects' storage still starting after a change of the CRD:
// "could not list instances: storage is (re)initializing") is tried again
// a few milliseconds later from a lister that has not yet seen the
// finalizer's own status write; the update meets a conflict and the
// finalizer returns without asking again, and the informer's event of that
// write changes only the Terminating condition, which the finalizer
// ignores so as not to loop on its own writes. The CRD then stays
// Terminating until the informer's resync, five minutes later: seen once
// in about 60 plays of the course path that ends with the User CRD
// replaced twice (a lesson's delete with wait, the course-paths test's
// cleanup). A change to the CRD's metadata is an update the finalizer does
// not ignore: it tries again at once.

// finalizerNudgeAnnotation is what nudgeCRDFinalizer writes.
const finalizerNudgeAnnotation = "crdlab.dev/finalize-again"

// crdFinalizerFailed says a CRD being deleted has its Terminating
// condition at InstanceDeletionFailed: its finalizer's last try failed.
func crdFinalizerFailed(crd *unstructured.Unstructured) bool {
	if crd.GetKind() != "CustomResourceDefinition" || crd.GetDeletionTimestamp() == nil {
		return false
	}
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Terminating" && m["reason"] == "InstanceDeletionFailed" {
			return true
		}
	}
	return false
}

// nudgeCRDFinalizer writes an annotation on a CRD whose deletion's last
// try failed, for the finalizer to try again (see above); a CRD in any
// other state is left alone.
func nudgeCRDFinalizer(ctx context.Context, ri dynamic.ResourceInterface, crd *unstructured.Unstructured) error {
	if !crdFinalizerFailed(crd) {
		return nil
	}
	patch := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%q}}}`, finalizerNudgeAnnotation, time.Now().UTC().Format(time.RFC3339Nano))
	_, err := ri.Patch(ctx, crd.GetName(), types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "crdlab"})
	return err
}
