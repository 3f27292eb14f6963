// Package componentstest tests a components executable (lab/components:
// crdlab-k8s-<minor>) as crdlab runs it: each module's test builds its
// executable and calls Run, which checks its version JSON, the version
// each component reports, kube-apiserver's --help fast path against the
// real help, and boots etcd (crdlab's, from $CRDLAB_BINARY) and that
// kube-apiserver on 127.0.0.1, twice on the same etcd: the first boot, on
// an empty etcd, must make the bootstrap objects at once and the second
// find them, the post-start hooks' fast path (kubemain.FastBootstrapHooks).
//
// Standard library only (and crdlab's certs), so that it compiles against
// every Kubernetes minor.
package componentstest
