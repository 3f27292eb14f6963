// Package fasthelp answers "kube-apiserver --help" with Kubernetes 1.36's
// text before the rest of crdlab-k8s-1.36 initializes, as
// lab/internal/fasthelp does for crdlab's own 1.37 (its doc says why);
// 'make generate' captures the text, a test keeps it current.
package fasthelp

import (
	_ "embed"

	"github.com/crdlab/crdlab/lab/internal/fasthelp/answer"
)

//go:embed kube-apiserver.txt
var apiserverHelp string

// Help maps a component name to its captured --help output.
var Help = map[string]string{"kube-apiserver": apiserverHelp}

func init() {
	answer.Answer(Help)
}
