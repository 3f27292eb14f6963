package aggregated

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/metrics/pkg/apis/metrics"
)

// window is the length of the (simulated) sampling window.
const window = 10 * time.Second

// nodeMetrics serves metrics.k8s.io NodeMetrics, computed on each request
// from the nodes and their Pods: nothing is stored.
type nodeMetrics struct {
	rest.TableConvertor
	nodes corelisters.NodeLister
	pods  corelisters.PodLister
	usage *usageModel
}

var (
	_ rest.Storage              = &nodeMetrics{}
	_ rest.Getter               = &nodeMetrics{}
	_ rest.Lister               = &nodeMetrics{}
	_ rest.Scoper               = &nodeMetrics{}
	_ rest.KindProvider         = &nodeMetrics{}
	_ rest.SingularNameProvider = &nodeMetrics{}
)

func (s *nodeMetrics) New() runtime.Object     { return &metrics.NodeMetrics{} }
func (s *nodeMetrics) Destroy()                {}
func (s *nodeMetrics) NewList() runtime.Object { return &metrics.NodeMetricsList{} }
func (s *nodeMetrics) NamespaceScoped() bool   { return false }
func (s *nodeMetrics) Kind() string            { return "NodeMetrics" }
func (s *nodeMetrics) GetSingularName() string { return "node" }
func (s *podMetrics) GetSingularName() string  { return "pod" }
func (s *podMetrics) New() runtime.Object      { return &metrics.PodMetrics{} }
func (s *podMetrics) Destroy()                 {}
func (s *podMetrics) NewList() runtime.Object  { return &metrics.PodMetricsList{} }
func (s *podMetrics) NamespaceScoped() bool    { return true }
func (s *podMetrics) Kind() string             { return "PodMetrics" }

func ready(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func (s *nodeMetrics) Get(_ context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	n, err := s.nodes.Get(name)
	if err != nil {
		return nil, err
	}
	pods, err := s.pods.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	m, ok := s.metricsOf(n, pods)
	if !ok {
		return nil, errors.NewNotFound(metrics.Resource("nodes"), name)
	}
	return m, nil
}

func (s *nodeMetrics) List(_ context.Context, opts *metainternalversion.ListOptions) (runtime.Object, error) {
	sel := labels.Everything()
	if opts != nil && opts.LabelSelector != nil {
		sel = opts.LabelSelector
	}
	nodes, err := s.nodes.List(sel)
	if err != nil {
		return nil, err
	}
	pods, err := s.pods.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	list := &metrics.NodeMetricsList{}
	for _, n := range nodes {
		if opts != nil && opts.FieldSelector != nil && !opts.FieldSelector.Matches(fieldsOf(&n.ObjectMeta)) {
			continue
		}
		if m, ok := s.metricsOf(n, pods); ok {
			list.Items = append(list.Items, *m)
		}
	}
	return list, nil
}

// metricsOf computes a node's use: its own baseline plus its Running Pods'
// (of pods, every Pod of the lab). A node that is not Ready has no
// metrics, as a dead kubelet reports none.
func (s *nodeMetrics) metricsOf(n *corev1.Node, pods []*corev1.Pod) (*metrics.NodeMetrics, bool) {
	if !ready(n) {
		return nil, false
	}
	cpu, mem := NodeCPU.DeepCopy(), NodeMemory.DeepCopy()
	for _, p := range pods {
		if p.Spec.NodeName != n.Name || p.Status.Phase != corev1.PodRunning {
			continue
		}
		c, m := s.usage.podUsage(p)
		cpu.Add(c)
		mem.Add(m)
	}
	return &metrics.NodeMetrics{
		ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: n.Labels, CreationTimestamp: metav1.Now()},
		Timestamp:  metav1.Now(),
		Window:     metav1.Duration{Duration: window},
		Usage:      corev1ResourceList(cpu, mem),
	}, true
}

// podMetrics serves metrics.k8s.io PodMetrics for Running Pods.
type podMetrics struct {
	rest.TableConvertor
	pods  corelisters.PodLister
	usage *usageModel
}

func (s *podMetrics) Get(ctx context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	ns := genericapirequest.NamespaceValue(ctx)
	p, err := s.pods.Pods(ns).Get(name)
	if err != nil {
		return nil, err
	}
	if p.Status.Phase != corev1.PodRunning {
		return nil, errors.NewNotFound(metrics.Resource("pods"), name)
	}
	return s.metricsOf(p), nil
}

func (s *podMetrics) List(ctx context.Context, opts *metainternalversion.ListOptions) (runtime.Object, error) {
	sel := labels.Everything()
	if opts != nil && opts.LabelSelector != nil {
		sel = opts.LabelSelector
	}
	var pods []*corev1.Pod
	var err error
	if ns := genericapirequest.NamespaceValue(ctx); ns != "" {
		pods, err = s.pods.Pods(ns).List(sel)
	} else {
		pods, err = s.pods.List(sel)
	}
	if err != nil {
		return nil, err
	}
	list := &metrics.PodMetricsList{}
	for _, p := range pods {
		if p.Status.Phase != corev1.PodRunning {
			continue
		}
		if opts != nil && opts.FieldSelector != nil && !opts.FieldSelector.Matches(fieldsOf(&p.ObjectMeta)) {
			continue
		}
		list.Items = append(list.Items, *s.metricsOf(p))
	}
	return list, nil
}

func (s *podMetrics) metricsOf(p *corev1.Pod) *metrics.PodMetrics {
	cpu, mem := s.usage.podUsage(p)
	cpus, mems := split(cpu, len(p.Spec.Containers), true), split(mem, len(p.Spec.Containers), false)
	m := &metrics.PodMetrics{
		ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, Labels: p.Labels, CreationTimestamp: metav1.Now()},
		Timestamp:  metav1.Now(),
		Window:     metav1.Duration{Duration: window},
	}
	for i, c := range p.Spec.Containers {
		m.Containers = append(m.Containers, metrics.ContainerMetrics{Name: c.Name, Usage: corev1ResourceList(cpus[i], mems[i])})
	}
	return m
}

func corev1ResourceList(cpu, mem resource.Quantity) corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourceCPU: cpu, corev1.ResourceMemory: mem}
}

func fieldsOf(m *metav1.ObjectMeta) fields.Set {
	return fields.Set{"metadata.name": m.Name, "metadata.namespace": m.Namespace}
}
