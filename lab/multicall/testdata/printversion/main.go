// Command printversion prints the versions multicall.BuildVersions reads,
// crdlab's, Kubernetes' and etcd's, a line each: TestReleaseVersionSetByLinker
// builds it with -X, as make release builds crdlab.
package main

import (
	"fmt"

	"github.com/crdlab/crdlab/lab/multicall"
)

func main() {
	v := multicall.BuildVersions()
	fmt.Printf("%s\n%s\n%s\n%t\n", v.Crdlab, v.Kubernetes, v.Etcd, v.Release)
}
