// Package aggregated is the lab's aggregated API server: the seed's second
// way to extend Kubernetes (自定义 ApiServer). Built on k8s.io/apiserver the
// way kubernetes/sample-apiserver and metrics-server are, it runs inside the
// crdlab process and serves two groups computed on each request, nothing
// stored in etcd:
//
//   - metrics.k8s.io/v1beta1: NodeMetrics and PodMetrics of the simulated
//     nodes and Pods (what metrics-server serves), from a usage model the
//     user steers with annotations (usage.go): kubectl top and the
//     HorizontalPodAutoscaler work against it;
//   - lab.crdlab.dev/v1alpha1: a LabSummary, to show an aggregated API that
//     is not metrics.
//
// The kube-apiserver's aggregator routes every request for these groups to
// it, as the APIServices the lab creates say, authenticating itself with
// its front-proxy client certificate; this server checks that certificate
// and asks the kube-apiserver whether the user may (delegated
// authentication and authorization).
//
// The plumbing a lab needs to put it behind the aggregator is here too:
// the front-proxy certificates (WriteFrontProxyCerts), the egress selector
// that routes the aggregator's connections to this process (Egress), and
// the APIServices (Register, MarkReady).
package aggregated
