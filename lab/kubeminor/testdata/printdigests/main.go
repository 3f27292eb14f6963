// Command printdigests prints the SHA-256 of the components executables a
// release crdlab runs, as make release links them into it, one
// "<minor> <sha256>" line each: TestReleaseLinksTheDigests builds it with
// the -X flag of .ci/make/release.sh.
package main

import (
	"fmt"
	"maps"
	"slices"

	"github.com/crdlab/crdlab/lab/kubeminor"
)

func main() {
	w := kubeminor.Here("v9.8.7", true)
	for _, minor := range slices.Sorted(maps.Keys(w.Digests)) {
		fmt.Println(minor, w.Digests[minor])
	}
}
