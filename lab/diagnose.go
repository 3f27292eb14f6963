package lab

import (
	"fmt"
	"strings"

	"github.com/crdlab/crdlab/lab/internal/proc"
	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/multicall"
)

// explainStartError adds to a failed start the cause each component logged
// in dir, because envtest only says that a process did not become ready.
func explainStartError(err error, dir control.Dir) error {
	var causes []string
	for _, name := range []string{multicall.Etcd, multicall.KubeAPIServer} {
		if cause := proc.LastError(dir.Log(name)); cause != "" {
			causes = append(causes, name+": "+cause)
		}
	}
	if len(causes) == 0 {
		return fmt.Errorf("unable to start the control plane (logs in %s): %w", dir.Logs(), err)
	}
	return fmt.Errorf("unable to start the control plane: %s (logs in %s): %w",
		strings.Join(causes, "; "), dir.Logs(), err)
}
