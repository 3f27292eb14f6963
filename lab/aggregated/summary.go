package aggregated

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	corelisters "k8s.io/client-go/listers/core/v1"
)

// The lab's own aggregated group: a read-only summary of the lab, computed
// on each request. Unlike a CRD, nothing is stored: there is no etcd key,
// no watch, no create; the API is whatever this code answers.

// SummaryGroupVersion is the group of the lab's summary.
var SummaryGroupVersion = schema.GroupVersion{Group: "lab.crdlab.dev", Version: "v1alpha1"}

// SummaryName is the name of the one LabSummary.
const SummaryName = "lab"

// LabSummary counts what the lab runs.
type LabSummary struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Nodes and ReadyNodes count the simulated nodes.
	Nodes      int `json:"nodes"`
	ReadyNodes int `json:"readyNodes"`
	// Pods and RunningPods count the Pods of every namespace.
	Pods        int `json:"pods"`
	RunningPods int `json:"runningPods"`
	// Namespaces counts the namespaces.
	Namespaces int `json:"namespaces"`
	// ServedBy names the server that answered: this one, not etcd.
	ServedBy string `json:"servedBy"`
	// Uptime is how long the aggregated server has run.
	Uptime string `json:"uptime"`
}

// LabSummaryList is a list of LabSummary (there is one).
type LabSummaryList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []LabSummary `json:"items"`
}

// DeepCopyObject implements runtime.Object.
func (s *LabSummary) DeepCopyObject() runtime.Object {
	out := *s
	s.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// DeepCopyObject implements runtime.Object.
func (l *LabSummaryList) DeepCopyObject() runtime.Object {
	out := *l
	out.Items = make([]LabSummary, len(l.Items))
	for i := range l.Items {
		out.Items[i] = *l.Items[i].DeepCopyObject().(*LabSummary)
	}
	return &out
}

type summaries struct {
	rest.TableConvertor
	nodes      corelisters.NodeLister
	pods       corelisters.PodLister
	namespaces corelisters.NamespaceLister
	started    time.Time
}

func (s *summaries) New() runtime.Object     { return &LabSummary{} }
func (s *summaries) Destroy()                {}
func (s *summaries) NewList() runtime.Object { return &LabSummaryList{} }
func (s *summaries) NamespaceScoped() bool   { return false }
func (s *summaries) Kind() string            { return "LabSummary" }
func (s *summaries) GetSingularName() string { return "summary" }

func (s *summaries) Get(_ context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	if name != SummaryName {
		return nil, errors.NewNotFound(SummaryGroupVersion.WithResource("summaries").GroupResource(), name)
	}
	return s.summary(), nil
}

func (s *summaries) List(context.Context, *metainternalversion.ListOptions) (runtime.Object, error) {
	return &LabSummaryList{Items: []LabSummary{*s.summary()}}, nil
}

func (s *summaries) summary() *LabSummary {
	out := &LabSummary{
		ObjectMeta: metav1.ObjectMeta{Name: SummaryName, CreationTimestamp: metav1.NewTime(s.started)},
		ServedBy:   "crdlab's aggregated API server (in the crdlab process), through the kube-apiserver's aggregator",
		Uptime:     time.Since(s.started).Round(time.Second).String(),
	}
	nodes, _ := s.nodes.List(labels.Everything())
	for _, n := range nodes {
		out.Nodes++
		if ready(n) {
			out.ReadyNodes++
		}
	}
	pods, _ := s.pods.List(labels.Everything())
	for _, p := range pods {
		out.Pods++
		if p.Status.Phase == corev1.PodRunning {
			out.RunningPods++
		}
	}
	nss, _ := s.namespaces.List(labels.Everything())
	out.Namespaces = len(nss)
	return out
}
