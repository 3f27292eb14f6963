// Package lab boots and runs a local Kubernetes control plane: a real etcd
// and a real kube-apiserver, started through controller-runtime's envtest,
// from the program's own executable.
//
// # Multi-call binary
//
// A program that imports lab can run every component itself: when it is
// executed under the name etcd, kube-apiserver, kube-controller-manager,
// kube-scheduler or kubectl (through a symbolic link), the package's init
// runs that component and exits, before main or any test starts. Start lays
// out such links in its work dir and hands the folder to envtest as its
// binary assets folder, so envtest starts etcd and kube-apiserver exactly as
// it always does, with nothing downloaded. This works for `go test` binaries
// too: a test binary that imports lab is its own control plane.
//
// To run other binaries instead, set Options.BinaryAssetsDirectory, or the
// environment variables envtest reads (KUBEBUILDER_ASSETS,
// TEST_ASSET_ETCD, TEST_ASSET_KUBE_APISERVER).
//
// # Children never outlive the lab
//
// Each component this program runs for a lab asks the kernel for a parent
// death signal first thing, and exits at once if the lab that started it is
// gone already, so even a SIGKILL of the lab's process leaves nothing behind.
//
// # State dir
//
// StateDir is the folder a long-running lab ('crdlab up') keeps its
// kubeconfig, status and logs in, locked so that one lab at a time runs on
// it; other commands find the running lab through it.
package lab
