package fasthelp

import (
	_ "embed"
	"os"
	"path/filepath"
)

// RealHelpEnv, when set, lets --help through to the real component, to
// capture or check its help text.
const RealHelpEnv = "CRDLAB_REAL_HELP"

var (
	//go:embed etcd.txt
	etcdHelp string
	//go:embed kube-apiserver.txt
	apiserverHelp string
)

// Help maps a component name to its captured --help output.
var Help = map[string]string{
	"etcd":           etcdHelp,
	"kube-apiserver": apiserverHelp,
}

func init() {
	if len(os.Args) != 2 || (os.Args[1] != "--help" && os.Args[1] != "-h") || os.Getenv(RealHelpEnv) != "" {
		return
	}
	help, ok := Help[filepath.Base(os.Args[0])]
	if !ok || help == "" {
		return
	}
	_, _ = os.Stdout.WriteString(help)
	os.Exit(0)
}
