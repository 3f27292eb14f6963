// Package fasthelp answers "etcd --help" and "kube-apiserver --help" before
// the rest of the multi-call binary initializes.
//
// envtest runs each binary with --help before starting it, to discover
// flags (--unsafe-no-fsync, --insecure-port). In a multi-call binary that
// links all of Kubernetes, every process first runs every package's init,
// about half a second; two such look-ups were a quarter of a lab's boot.
// This package imports nothing heavy, so it is initialized among the first
// (package initialization goes by import path among packages whose
// dependencies are ready, and github.com/crdlab sorts before go.etcd.io and
// k8s.io), and prints the components' own help, captured from them by
// 'make generate' and kept current by a test, then exits.
//
// Its texts are etcd's and Kubernetes 1.37's, those crdlab links: the
// executables of the other minors (lab/components) answer with their own
// minor's kube-apiserver text, through package answer, never with these
// (envtest reads flags from them).
package fasthelp
