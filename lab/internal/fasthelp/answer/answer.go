// Package answer prints a component's captured --help and exits, from an
// init, before the rest of a multi-call program initializes (see
// lab/internal/fasthelp, which holds 1.37's texts, and each module of
// lab/components, which holds its minor's). It imports nothing heavy, so
// that the packages that call it are initialized among the first.
package answer

import (
	"os"
	"path/filepath"
)

// RealHelpEnv, when set, lets --help through to the real component, to
// capture or check its help text.
const RealHelpEnv = "CRDLAB_REAL_HELP"

// Answer prints help's text for the component this program runs as and
// exits, when it was executed with --help or -h alone; else it returns.
func Answer(help map[string]string) {
	if len(os.Args) != 2 || (os.Args[1] != "--help" && os.Args[1] != "-h") || os.Getenv(RealHelpEnv) != "" {
		return
	}
	text, ok := help[filepath.Base(os.Args[0])]
	if !ok || text == "" {
		return
	}
	_, _ = os.Stdout.WriteString(text)
	os.Exit(0)
}
