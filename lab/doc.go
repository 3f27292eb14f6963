// Package lab boots and runs a local Kubernetes control plane: a real etcd
// and a real kube-apiserver, from the program's own executable, with the
// flags, certificates and users controller-runtime's envtest gives them;
// envtest installs the CRDs and webhooks.
//
// # Components and nodes
//
// Besides etcd and kube-apiserver, a lab runs the optional components of
// Options.Components: kube-controller-manager, kube-scheduler, simulated
// nodes (package lab/kubelet) and an aggregated API server (package
// lab/aggregated). Components lists them with whether each runs;
// StopComponent and StartComponent stop and start one by the name
// 'crdlab up --components' takes (ComponentNames); the operators that
// Options.Alongside returns are components too. Nodes, StopNode and
// StartNode do the same for each simulated node.
//
// # Multi-call binary
//
// A program that imports lab can run every component itself (package
// lab/multicall): executed under the name etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler or kubectl through a symbolic
// link, it is that component. Start lays out such links in its work dir and
// runs etcd and kube-apiserver from them, supervised like every process of
// the lab (a crashed one is started again), with nothing downloaded. This
// works for `go test` binaries too: a test binary that imports lab is its
// own control plane.
//
// That is kubeminor.BuiltIn. Options.KubernetesVersion (or
// CRDLAB_KUBERNETES_VERSION) chooses another of kubeminor.Supported() instead: kube-apiserver,
// kube-controller-manager, kube-scheduler and kubectl then run from that
// minor's components executable, crdlab-k8s-<minor>, found as package
// lab/kubeminor says; etcd is still this program's.
//
// To run other binaries instead, set Options.BinaryAssetsDirectory, or the
// environment variables envtest reads (KUBEBUILDER_ASSETS,
// TEST_ASSET_ETCD, TEST_ASSET_KUBE_APISERVER).
//
// # No global state
//
// Start sets no logger and no environment variable of the program. envtest
// logs through controller-runtime's root logger (log.SetLogger) and the
// in-process aggregated API server through klog: a program or a test suite
// sets those itself.
//
// # Related packages
//
// lab/full adds the sample CRDs and operators, as 'crdlab up' runs them;
// lab/server runs one for as long as 'crdlab up' lasts (its state dir, its
// control socket, its web UI and timeline); lab/labtest/control is the
// protocol other processes reach it by; lab/timeline is the vocabulary of
// what happens in it.
package lab
