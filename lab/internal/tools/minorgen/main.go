// Command minorgen writes what follows from lab/kubeminor/minors.txt. Its
// built-in line: lab/multicall/hooks.go (the multi-call binary's Prepare
// hooks, from the same table as every other minor's), and k8s.io/kubernetes
// and the staging modules at that line's releases wherever this repository
// requires them (go.mod, lab/internal/tools/conformance/go.mod, the lessons'
// controller skeletons' go.mod.txt), then go mod tidy there: bumping the
// built-in patch is editing its line and running minorgen. Every other
// line: the components module of a Kubernetes minor crdlab serves but
// does not link:
// lab/components/<minor>/ with its go.mod (k8s.io/kubernetes and the staging
// modules at that line's releases, and every other module k8s.io/kubernetes
// requires pinned to the version it requires, so that the components are
// built as upstream builds them: a newer cel-go, say, would change what CRD
// validation accepts, whatever newer versions crdlab's own go.mod
// requires), main.go, main_test.go and fasthelp/fasthelp.go; then it runs
// go mod tidy there. The commands themselves are lab/internal/kubecmd's,
// compiled against the module's minor; the one thing main.go chooses per
// minor is kube-apiserver's Prepare hooks (hooks below).
//
// Usage, from the repository's root:
//
//	go run ./lab/internal/tools/minorgen           # write every module, then go mod tidy
//	go run ./lab/internal/tools/minorgen -check    # fail when a file is stale or a folder is not in minors.txt
//
// fasthelp/kube-apiserver.txt, the minor's --help, comes from its built
// executable: make generate.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	root := flag.String("root", ".", "crdlab's repository")
	minors := flag.String("minors", "", "the list of minors (default: <root>/lab/kubeminor/minors.txt)")
	check := flag.Bool("check", false, "change nothing; fail when a file differs from what would be written, or a folder of lab/components is not a minor of the list")
	tidy := flag.Bool("tidy", true, "run go mod tidy in each module written (go.sum included)")
	flag.Parse()
	g, err := load(*root, *minors)
	if err == nil {
		if *check {
			err = g.check()
		} else {
			err = g.write(*tidy)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "minorgen:", err)
		os.Exit(1)
	}
}
