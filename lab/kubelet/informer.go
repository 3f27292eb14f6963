package kubelet

import "k8s.io/apimachinery/pkg/api/meta"

// dropManagedFields is the transform of the simulated kubelet's informers:
// each Pod and Node is kept without its managedFields, which the kubelet
// never reads, as kube-controller-manager's and kube-scheduler's informers
// keep them (their minor's cmd/kube-controller-manager/app and
// pkg/scheduler drop them "for memory efficiency"). A lab at scale holds
// every Pod of every simulated node in them. A write that starts from a cached object carries
// no managedFields, and kube-apiserver keeps the stored ones (a status
// write ignores the request's anyway).
func dropManagedFields(obj any) (any, error) {
	if m, err := meta.Accessor(obj); err == nil && m.GetManagedFields() != nil {
		m.SetManagedFields(nil)
	}
	return obj, nil
}
