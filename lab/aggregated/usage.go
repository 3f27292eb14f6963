package aggregated

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appslisters "k8s.io/client-go/listers/apps/v1"
)

// Annotations that steer the simulated resource use of Pods. They are read
// on the Pod, or else on its ReplicaSet, or else on that ReplicaSet's
// Deployment (each annotation on its own), so that
// 'kubectl annotate deployment web crdlab.dev/cpu-usage=400m' changes the
// load of every Pod of web without a rollout.
const (
	AnnotationCPU    = "crdlab.dev/cpu-usage"    // per Pod, e.g. 250m
	AnnotationMemory = "crdlab.dev/memory-usage" // per Pod, e.g. 64Mi
)

// Baselines: what a Pod uses when nothing says otherwise, and what a node
// uses on its own.
var (
	PodCPU     = resource.MustParse("2m")
	PodMemory  = resource.MustParse("16Mi")
	NodeCPU    = resource.MustParse("100m")
	NodeMemory = resource.MustParse("512Mi")
)

// usageModel computes the simulated use of Pods.
type usageModel struct {
	replicaSets appslisters.ReplicaSetLister
	deployments appslisters.DeploymentLister
}

// podUsage returns a Running Pod's CPU and memory use.
func (m *usageModel) podUsage(pod *corev1.Pod) (cpu, mem resource.Quantity) {
	cpu, mem = PodCPU.DeepCopy(), PodMemory.DeepCopy()
	found := map[string]bool{}
	for _, meta := range m.chain(pod) {
		for key, dst := range map[string]*resource.Quantity{AnnotationCPU: &cpu, AnnotationMemory: &mem} {
			if found[key] {
				continue
			}
			if v, ok := meta.Annotations[key]; ok {
				if q, err := resource.ParseQuantity(v); err == nil && q.Sign() >= 0 {
					*dst = q
					found[key] = true
				}
			}
		}
	}
	return cpu, mem
}

// chain returns the Pod's metadata and its controllers', nearest first.
func (m *usageModel) chain(pod *corev1.Pod) []*metav1.ObjectMeta {
	out := []*metav1.ObjectMeta{&pod.ObjectMeta}
	ref := metav1.GetControllerOf(pod)
	if ref == nil || ref.Kind != "ReplicaSet" || m.replicaSets == nil {
		return out
	}
	rs, err := m.replicaSets.ReplicaSets(pod.Namespace).Get(ref.Name)
	if err != nil {
		return out
	}
	out = append(out, &rs.ObjectMeta)
	if ref = metav1.GetControllerOf(rs); ref != nil && ref.Kind == "Deployment" && m.deployments != nil {
		var d *appsv1.Deployment
		if d, err = m.deployments.Deployments(pod.Namespace).Get(ref.Name); err == nil {
			out = append(out, &d.ObjectMeta)
		}
	}
	return out
}

// split divides a Pod's use among its containers, evenly.
func split(q resource.Quantity, n int, milli bool) []resource.Quantity {
	out := make([]resource.Quantity, n)
	if n == 0 {
		return out
	}
	if milli {
		each := q.MilliValue() / int64(n)
		for i := range out {
			out[i] = *resource.NewMilliQuantity(each, resource.DecimalSI)
		}
		return out
	}
	each := q.Value() / int64(n)
	for i := range out {
		out[i] = *resource.NewQuantity(each, resource.BinarySI)
	}
	return out
}
