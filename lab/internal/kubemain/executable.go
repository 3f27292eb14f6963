package kubemain

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
)

// ExecutableVersion is what a components executable (lab/components)
// prints, as one JSON object, for the argument version: the crdlab it
// belongs to (as 'crdlab version' prints it), the Kubernetes it runs and
// the Go that built it.
type ExecutableVersion struct {
	Crdlab     string `json:"crdlab"`
	Kubernetes string `json:"kubernetes"`
	Go         string `json:"go"`
}

// ExecutableMain is the main of a components executable, started under
// its own name (Run, from its init, ran the component of any other name):
// with the argument version it prints ExecutableVersion and returns 0;
// with anything else it says what it is and returns 2.
func ExecutableMain(stdout, stderr io.Writer, args []string, components map[string]func([]string) int) int {
	if len(args) == 2 && args[1] == "version" {
		v := BuildVersions("")
		out, err := json.Marshal(ExecutableVersion{Crdlab: v.Crdlab, Kubernetes: v.Kubernetes, Go: v.Go})
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		fmt.Fprintf(stdout, "%s\n", out)
		return 0
	}
	names := make([]string, 0, len(components))
	for name := range components {
		names = append(names, name)
	}
	sort.Strings(names)
	self := filepath.Base(args[0])
	fmt.Fprintf(stderr, `%s runs crdlab's Kubernetes %s components by the name it is started under: %s.
crdlab starts it (crdlab up --kubernetes, crdlab envtest --kubernetes); '%s version' prints its versions.
`, self, BuildVersions("").Kubernetes, strings.Join(names, ", "), self)
	return 2
}
