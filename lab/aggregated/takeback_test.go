package aggregated

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// takenBack names what another writer set in a route of the lab's, and
// nothing when the route is the lab's own (of an earlier start, with
// another CA), or another writer's fields hold the lab's values (co-owned
// since a route was taken back).
func TestTakenBack(t *testing.T) {
	want := map[string]any{
		"group": "lab.crdlab.dev", "version": "v1alpha1",
		"groupPriorityMinimum": int64(100), "versionPriority": int64(100),
		"service":  map[string]any{"namespace": ServiceNamespace, "name": ServiceName, "port": int64(ServicePort)},
		"caBundle": caBundle([]byte("this start's CA")), "insecureSkipTLSVerify": false,
	}
	route := func(spec map[string]any, managers map[string]string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
		var mfs []metav1.ManagedFieldsEntry
		for manager, fields := range managers {
			mfs = append(mfs, metav1.ManagedFieldsEntry{Manager: manager, FieldsV1: metav1.NewFieldsV1(fields)})
		}
		u.SetManagedFields(mfs)
		return u
	}
	labs := `{"f:spec":{"f:group":{},"f:version":{},"f:caBundle":{},"f:service":{"f:name":{}}}}`
	for _, tc := range []struct {
		name         string
		old          *unstructured.Unstructured
		what, byWhom string
	}{
		{name: "no route", old: nil},
		{name: "the lab's, of an earlier start", old: route(map[string]any{
			"group": "lab.crdlab.dev", "version": "v1alpha1", "caBundle": caBundle([]byte("an earlier CA")),
			"groupPriorityMinimum": int64(100), "versionPriority": int64(100),
			"service": map[string]any{"namespace": ServiceNamespace, "name": ServiceName, "port": int64(ServicePort)},
		}, map[string]string{FieldManager: labs})},
		{name: "taken back before: the learner's fields hold the lab's values", old: route(map[string]any{
			"group": "lab.crdlab.dev", "version": "v1alpha1", "caBundle": caBundle([]byte("an earlier CA")),
			"groupPriorityMinimum": int64(100), "versionPriority": int64(100),
			"service": map[string]any{"namespace": ServiceNamespace, "name": ServiceName, "port": int64(ServicePort)},
		}, map[string]string{FieldManager: labs, "kubectl-client-side-apply": `{"f:spec":{"f:group":{},"f:version":{}}}`})},
		{name: "the learner's, insecure, to another Service", old: route(map[string]any{
			"group": "lab.crdlab.dev", "version": "v1alpha1", "insecureSkipTLSVerify": true,
			"groupPriorityMinimum": int64(100), "versionPriority": int64(100),
			"service": map[string]any{"namespace": "default", "name": "crdlab-aggregatd"},
		}, map[string]string{"kubectl-client-side-apply": `{"f:spec":{"f:group":{},"f:version":{},"f:insecureSkipTLSVerify":{},` +
			`"f:groupPriorityMinimum":{},"f:versionPriority":{},"f:service":{"f:name":{},"f:namespace":{}}}}`}),
			what:   "spec.insecureSkipTLSVerify was true, spec.service was default/crdlab-aggregatd:443",
			byWhom: "you (kubectl)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			what, by := takenBack(tc.old, want)
			if what != tc.what || by != tc.byWhom {
				t.Errorf("takenBack = %q by %q, want %q by %q", what, by, tc.what, tc.byWhom)
			}
		})
	}
}
