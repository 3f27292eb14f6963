// Package multicall makes the program that imports it a multi-call binary:
// executed under the name etcd, kube-apiserver, kube-controller-manager,
// kube-scheduler or kubectl (through a symbolic link, see Link), its init
// runs that component, compiled in, and exits, before main or any test
// starts. Each component started for a lab asks the kernel for a parent
// death signal first thing, and exits at once if the lab that started it
// is gone already, so even a SIGKILL of the lab leaves nothing behind.
//
// This package holds what is bound to Kubernetes 1.37, the minor crdlab
// links: its copy of kube-apiserver's command and Run, and the map of the
// components (1.37's and etcd). The dispatch and crdlab's patches to the
// components, which every minor shares, are lab/internal/kubemain's; the
// other minors' components are the executables of lab/components.
//
// Importing it links all of Kubernetes' control plane. Package lab imports
// it; a program that only drives a lab (the scenario runner) must not.
package multicall
