// Package standalone holds the reference the benchmarks measure crdlab
// against: etcd and kube-apiserver built as their own binaries, from the
// same sources crdlab compiles in ('make standalone', into bin/standalone),
// as a user of plain envtest runs them.
package standalone
