package timeline

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestServedBy: a CRD's line says which versions the apiserver serves,
// the one discovery prefers first, from the moment its names are accepted
// and until its deletion starts.
func TestServedBy(t *testing.T) {
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "users.auth.ilinux.io"},
		"spec": map[string]any{
			"group": "auth.ilinux.io",
			"names": map[string]any{"plural": "users", "kind": "User"},
			"versions": []any{
				map[string]any{"name": "v1beta1", "served": true},
				map[string]any{"name": "v2alpha1", "served": false},
				map[string]any{"name": "v1", "served": true},
				map[string]any{"name": "v1alpha1", "served": true},
			},
		},
	}}
	gr, s, ok := servedBy(crd)
	if !ok || gr != (schema.GroupResource{Group: "auth.ilinux.io", Resource: "users"}) || s.kind != "User" {
		t.Fatalf("servedBy: %v %+v %v, want users.auth.ilinux.io, User", gr, s, ok)
	}
	if want := []string{"v1", "v1beta1", "v1alpha1"}; !slices.Equal(s.versions, want) {
		t.Errorf("versions served: %v, want %v (the preferred first, v2alpha1 not served)", s.versions, want)
	}
	if s.accepted {
		t.Error("accepted without a NamesAccepted or Established condition")
	}
	_ = unstructured.SetNestedSlice(crd.Object, []any{map[string]any{"type": "NamesAccepted", "status": "True"}}, "status", "conditions")
	if _, s, _ := servedBy(crd); !s.accepted {
		t.Error("not accepted with NamesAccepted True: the apiserver serves its objects from then")
	}
	now := metav1.Now()
	crd.SetDeletionTimestamp(&now)
	if _, s, _ := servedBy(crd); s.accepted {
		t.Error("accepted while being deleted: no version is to be watched anew")
	}
}
