// Package kubemain is what a multi-call program of Kubernetes' components
// shares whatever Kubernetes minor it links (each of lab/kubeminor's list): the
// dispatch by the name it is executed under (Run, from a map its caller
// fills with that minor's components), the parent death every component of
// a lab asks for, how every component collects its heap while it boots
// and while it is idle (idlegc.go), kube-apiserver's wait for etcd
// (WaitForEtcdEnv), its post-start hooks' fast path (FastBootstrapHooks)
// and its OpenAPI v2 document built when first asked for (LazyOpenAPIV2),
// kubectl (RunKubectl),
// the links of an assets folder (Link) and the versions (BuildVersions).
//
// lab/multicall fills the map for crdlab itself (1.37 and etcd); each
// module of lab/components fills it for its own minor. Everything here
// compiles against each of the supported minors: what differs between
// them (kube-apiserver's command and Run) stays with the caller.
package kubemain
