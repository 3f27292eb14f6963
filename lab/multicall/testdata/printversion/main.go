// Command printversion prints the crdlab version that multicall.BuildVersions
// reads: TestReleaseVersionSetByLinker builds it with -X, as make release
// builds crdlab.
package main

import (
	"fmt"

	"github.com/crdlab/crdlab/lab/multicall"
)

func main() {
	fmt.Println(multicall.BuildVersions().Crdlab)
}
