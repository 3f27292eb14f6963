package aggregated

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appslisters "k8s.io/client-go/listers/apps/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/metrics/pkg/apis/metrics"
	"k8s.io/utils/ptr"
)

// owned is meta controlled by the object of kind and name.
func owned(name, kind, owner string, annotations map[string]string) metav1.ObjectMeta {
	m := metav1.ObjectMeta{Name: name, Namespace: "shop", Annotations: annotations}
	if owner != "" {
		m.OwnerReferences = []metav1.OwnerReference{{Kind: kind, Name: owner, Controller: ptr.To(true)}}
	}
	return m
}

func model(t *testing.T, objs ...any) *usageModel {
	t.Helper()
	rs := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	ds := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, o := range objs {
		var err error
		switch o := o.(type) {
		case *appsv1.ReplicaSet:
			err = rs.Add(o)
		case *appsv1.Deployment:
			err = ds.Add(o)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return &usageModel{replicaSets: appslisters.NewReplicaSetLister(rs), deployments: appslisters.NewDeploymentLister(ds)}
}

// TestPodUsage: each annotation is read on the Pod, else on its
// ReplicaSet, else on that ReplicaSet's Deployment; a bad value is ignored.
func TestPodUsage(t *testing.T) {
	deploy := func(a map[string]string) *appsv1.Deployment {
		return &appsv1.Deployment{ObjectMeta: owned("web", "", "", a)}
	}
	rs := func(a map[string]string) *appsv1.ReplicaSet {
		return &appsv1.ReplicaSet{ObjectMeta: owned("web-1", "Deployment", "web", a)}
	}
	pod := func(a map[string]string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: owned("web-1-x", "ReplicaSet", "web-1", a)}
	}
	for _, tc := range []struct {
		name     string
		pod      *corev1.Pod
		objs     []any
		cpu, mem string
	}{
		{name: "nothing said: the baseline", pod: pod(nil), objs: []any{rs(nil), deploy(nil)}, cpu: "2m", mem: "16Mi"},
		{name: "on the Pod", pod: pod(map[string]string{AnnotationCPU: "250m", AnnotationMemory: "64Mi"}), cpu: "250m", mem: "64Mi"},
		{name: "on the Deployment",
			pod: pod(nil), objs: []any{rs(nil), deploy(map[string]string{AnnotationCPU: "400m"})}, cpu: "400m", mem: "16Mi"},
		{name: "the ReplicaSet's wins over the Deployment's",
			pod: pod(nil), objs: []any{rs(map[string]string{AnnotationCPU: "300m"}), deploy(map[string]string{AnnotationCPU: "400m"})}, cpu: "300m", mem: "16Mi"},
		{name: "the Pod's wins, each annotation on its own",
			pod:  pod(map[string]string{AnnotationCPU: "100m"}),
			objs: []any{rs(nil), deploy(map[string]string{AnnotationCPU: "400m", AnnotationMemory: "1Gi"})}, cpu: "100m", mem: "1Gi"},
		{name: "a bad or negative value is ignored",
			pod:  pod(map[string]string{AnnotationCPU: "lots", AnnotationMemory: "-1Mi"}),
			objs: []any{rs(nil), deploy(map[string]string{AnnotationCPU: "400m"})}, cpu: "400m", mem: "16Mi"},
		{name: "a missing ReplicaSet: the Pod alone", pod: pod(nil), objs: []any{deploy(map[string]string{AnnotationCPU: "400m"})}, cpu: "2m", mem: "16Mi"},
		{name: "a Pod of no controller", pod: &corev1.Pod{ObjectMeta: owned("solo", "", "", nil)}, cpu: "2m", mem: "16Mi"},
		{name: "a Pod of a StatefulSet reads only itself",
			pod: &corev1.Pod{ObjectMeta: owned("db-0", "StatefulSet", "db", nil)}, objs: []any{deploy(map[string]string{AnnotationCPU: "400m"})}, cpu: "2m", mem: "16Mi"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cpu, mem := model(t, tc.objs...).podUsage(tc.pod)
			if cpu.Cmp(resource.MustParse(tc.cpu)) != 0 || mem.Cmp(resource.MustParse(tc.mem)) != 0 {
				t.Errorf("use %s CPU, %s memory; want %s, %s", cpu.String(), mem.String(), tc.cpu, tc.mem)
			}
		})
	}
}

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		q     string
		n     int
		milli bool
		want  []string
	}{
		{"300m", 3, true, []string{"100m", "100m", "100m"}},
		{"250m", 2, true, []string{"125m", "125m"}},
		{"100m", 3, true, []string{"33m", "33m", "33m"}}, // rounded down, as a container's share
		{"64Mi", 2, false, []string{"32Mi", "32Mi"}},
		{"16Mi", 1, false, []string{"16Mi"}},
		{"1", 0, true, []string{}},
	} {
		got := split(resource.MustParse(tc.q), tc.n, tc.milli)
		if len(got) != len(tc.want) {
			t.Fatalf("split(%s, %d): %d parts, want %d", tc.q, tc.n, len(got), len(tc.want))
		}
		for i := range got {
			if got[i].Cmp(resource.MustParse(tc.want[i])) != 0 {
				t.Errorf("split(%s, %d)[%d] = %s, want %s", tc.q, tc.n, i, got[i].String(), tc.want[i])
			}
		}
	}
}

// A node's use is its baseline plus its Running Pods'; a node that is not
// Ready has none.
func TestNodeMetricsOf(t *testing.T) {
	node := func(ready corev1.ConditionStatus) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "lab-node-1"},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready}}}}
	}
	pod := func(name, nodeName string, phase corev1.PodPhase, cpu string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: owned(name, "", "", map[string]string{AnnotationCPU: cpu}),
			Spec: corev1.PodSpec{NodeName: nodeName}, Status: corev1.PodStatus{Phase: phase}}
	}
	pods := []*corev1.Pod{
		pod("a", "lab-node-1", corev1.PodRunning, "200m"),
		pod("b", "lab-node-1", corev1.PodRunning, "300m"),
		pod("c", "lab-node-1", corev1.PodSucceeded, "1"),
		pod("d", "lab-node-1", corev1.PodPending, "1"),
		pod("e", "lab-node-2", corev1.PodRunning, "1"),
	}
	s := &nodeMetrics{usage: model(t)}
	m, ok := s.metricsOf(node(corev1.ConditionTrue), pods)
	if !ok {
		t.Fatal("a Ready node has no metrics")
	}
	if cpu, mem := m.Usage[corev1.ResourceCPU], m.Usage[corev1.ResourceMemory]; cpu.Cmp(resource.MustParse("600m")) != 0 || mem.Cmp(resource.MustParse("544Mi")) != 0 {
		t.Errorf("node use %s CPU, %s memory; want 600m, 544Mi", cpu.String(), mem.String())
	}
	for _, st := range []corev1.ConditionStatus{corev1.ConditionFalse, corev1.ConditionUnknown} {
		if _, ok := s.metricsOf(node(st), pods); ok {
			t.Errorf("a node with Ready %s has metrics", st)
		}
	}
}

// A Pod's use is split among its containers.
func TestPodMetricsOf(t *testing.T) {
	p := &corev1.Pod{ObjectMeta: owned("web", "", "", map[string]string{AnnotationCPU: "300m", AnnotationMemory: "96Mi"}),
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web"}, {Name: "log"}, {Name: "proxy"}}}}
	m := (&podMetrics{usage: model(t)}).metricsOf(p)
	want := []string{"web", "log", "proxy"}
	if len(m.Containers) != len(want) {
		t.Fatalf("containers %v", m.Containers)
	}
	for i, c := range m.Containers {
		if c.Name != want[i] || !use(c, "100m", "32Mi") {
			t.Errorf("container %d: %s uses %v", i, c.Name, c.Usage)
		}
	}
}

func use(c metrics.ContainerMetrics, cpu, mem string) bool {
	u := c.Usage
	return u.Cpu().Cmp(resource.MustParse(cpu)) == 0 && u.Memory().Cmp(resource.MustParse(mem)) == 0
}
