// Command etcd is etcd's own main, built alone: the standalone etcd binary
// that benchmarks compare crdlab with ('make standalone' builds it into
// bin/standalone, with kube-apiserver from k8s.io/kubernetes/cmd/kube-apiserver),
// the binaries a user of plain envtest runs.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
