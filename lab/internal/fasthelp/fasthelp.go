package fasthelp

import (
	_ "embed"

	"github.com/crdlab/crdlab/lab/internal/fasthelp/answer"
)

// RealHelpEnv, when set, lets --help through to the real component, to
// capture or check its help text.
const RealHelpEnv = answer.RealHelpEnv

var (
	//go:embed etcd.txt
	etcdHelp string
	//go:embed kube-apiserver.txt
	apiserverHelp string
)

// Help maps a component name to its captured --help output: etcd's and
// Kubernetes 1.37's.
var Help = map[string]string{
	"etcd":           etcdHelp,
	"kube-apiserver": apiserverHelp,
}

func init() {
	answer.Answer(Help)
}
