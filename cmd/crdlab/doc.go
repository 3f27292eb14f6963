// Command crdlab runs a local, simulated Kubernetes control plane for
// learning and testing CustomResourceDefinitions and their controllers.
//
// It is a multi-call binary: run under the name etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler or kubectl (through a link), it is
// that component; see package lab.
package main
