package lab

import (
	"fmt"
	"strings"

	"github.com/crdlab/crdlab/lab/internal/proc"
	"github.com/crdlab/crdlab/lab/multicall"
)

// explainStartError adds to a failed start the cause each component logged,
// because envtest only says that a process did not become ready.
func (l *Lab) explainStartError(err error) error {
	var causes []string
	for _, name := range []string{multicall.Etcd, multicall.KubeAPIServer} {
		if cause := proc.LastError(l.dir.Log(name)); cause != "" {
			causes = append(causes, name+": "+cause)
		}
	}
	if len(causes) == 0 {
		return fmt.Errorf("unable to start the control plane (logs in %s): %w", l.dir.Logs(), err)
	}
	return fmt.Errorf("unable to start the control plane: %s (logs in %s): %w",
		strings.Join(causes, "; "), l.dir.Logs(), err)
}
