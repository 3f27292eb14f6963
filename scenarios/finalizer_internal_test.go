package scenarios

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	fakedynamic "k8s.io/client-go/dynamic/fake"
)

// TestNudgeCRDFinalizer: only a CRD being deleted whose finalizer's last
// try failed (Terminating, InstanceDeletionFailed) is nudged, with an
// annotation, a change the finalizer does not ignore.
func TestNudgeCRDFinalizer(t *testing.T) {
	gvr := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	crd := func(reason string, deleting bool) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
			"metadata": map[string]any{"name": "users.auth.ilinux.io"},
			"status":   map[string]any{"conditions": []any{map[string]any{"type": "Terminating", "status": "True", "reason": reason}}},
		}}
		if deleting {
			now := metav1.Now()
			u.SetDeletionTimestamp(&now)
		}
		return u
	}
	for _, c := range []struct {
		name   string
		crd    *unstructured.Unstructured
		nudged bool
	}{
		{"its last try failed", crd("InstanceDeletionFailed", true), true},
		{"deleting its objects", crd("InstanceDeletionInProgress", true), false},
		{"not being deleted", crd("InstanceDeletionFailed", false), false},
	} {
		dyn := fakedynamic.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
			map[schema.GroupVersionResource]string{gvr: "CustomResourceDefinitionList"}, c.crd.DeepCopy())
		if err := nudgeCRDFinalizer(context.Background(), dyn.Resource(gvr), c.crd); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, err := dyn.Resource(gvr).Get(context.Background(), "users.auth.ilinux.io", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_, nudged := got.GetAnnotations()[finalizerNudgeAnnotation]
		if nudged != c.nudged {
			t.Errorf("%s: nudged %v, want %v", c.name, nudged, c.nudged)
		}
	}
}
