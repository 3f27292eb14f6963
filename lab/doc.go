// Package lab boots and runs a local Kubernetes control plane: a real etcd
// and a real kube-apiserver, started through controller-runtime's envtest,
// from the program's own executable.
//
// # Components and nodes
//
// Besides etcd and kube-apiserver, a lab runs the optional components of
// Options.Components: kube-controller-manager, kube-scheduler, simulated
// nodes (package lab/kubelet) and an aggregated API server (package
// lab/aggregated). Components lists them with whether each runs;
// StopComponent and StartComponent stop and start one by the name
// 'crdlab up --components' takes; operators attached with AttachOperators
// are components too. Nodes, StopNode and StartNode do the same for each
// simulated node.
//
// # Multi-call binary
//
// A program that imports lab can run every component itself (package
// lab/multicall): executed under the name etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler or kubectl through a symbolic
// link, it is that component. Start lays out such links in its work dir and
// hands the folder to envtest as its binary assets folder, so envtest starts
// etcd and kube-apiserver exactly as it always does, with nothing
// downloaded. This works for `go test` binaries too: a test binary that
// imports lab is its own control plane.
//
// To run other binaries instead, set Options.BinaryAssetsDirectory, or the
// environment variables envtest reads (KUBEBUILDER_ASSETS,
// TEST_ASSET_ETCD, TEST_ASSET_KUBE_APISERVER).
//
// # Related packages
//
// lab/full adds the sample CRDs and operators, as 'crdlab up' runs them;
// lab/server runs one for as long as 'crdlab up' lasts (its state dir, its
// control socket, its web UI and timeline); lab/labtest/control is the
// protocol other processes reach it by; lab/timeline is the vocabulary of
// what happens in it.
package lab
