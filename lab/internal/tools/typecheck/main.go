// Command typecheck type-checks packages, with their tests, for another
// platform, from source and without compiling them: make test's check of a
// platform it does not build (the Macs, whose compile would be a cold
// compile of Kubernetes more for each; make cross and the release build
// them).
//
//	go run ./lab/internal/tools/typecheck -platform darwin/amd64 ./...
//	go run ./lab/internal/tools/typecheck -platform darwin/arm64 -vet ./lab
//	typecheck -C lab/labtest -platform darwin/arm64 ./...
//
// It loads the packages as `go build` would for that platform (GOOS,
// GOARCH, CGO_ENABLED=0, the build tags of its files), type-checks every
// package they import from source and prints every error, each naming its
// file and line. With -vet it also runs go vet's analyzers (the suite
// cmd/vet runs) on the packages named, with every package they import
// analysed from source for the facts the analyzers share: go vet for
// another platform, without compiling what the packages import for it. What a type-check cannot see is left to a real build of
// another platform that shares the source: assembly without its Go
// declaration, and go:linkname targets (lab/internal/tools/linkname checks
// those for every minor).
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/analysis/suite/vet"
	"golang.org/x/tools/go/packages"
)

func main() {
	platform := flag.String("platform", "", "the GOOS/GOARCH to type-check for, for example darwin/amd64")
	tests := flag.Bool("tests", true, "type-check the packages' test files too")
	vetToo := flag.Bool("vet", false, "also run go vet's analyzers on the packages")
	dir := flag.String("C", "", "the directory to load the packages in (a module of its own, for example)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: typecheck -platform GOOS/GOARCH [-C DIR] [-tests=false] [-vet] PACKAGES...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if err := run(*platform, *dir, *tests, *vetToo, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "typecheck:", err)
		os.Exit(1)
	}
}

func run(platform, dir string, tests, vetToo bool, patterns []string) error {
	goos, goarch, ok := strings.Cut(platform, "/")
	if !ok || goos == "" || goarch == "" || strings.Contains(goarch, "/") {
		return fmt.Errorf("-platform %q: want GOOS/GOARCH, for example darwin/amd64", platform)
	}
	if len(patterns) == 0 {
		return errors.New("no packages given (for example ./...)")
	}
	cfg := &packages.Config{
		// Types from source for every dependency: no export data, so
		// nothing is compiled.
		Mode:  packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedDeps | packages.NeedTypes,
		Env:   append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0"),
		Dir:   dir,
		Tests: tests,
	}
	if vetToo {
		// The analyzers read the syntax and its types, and their facts
		// (printf's wrappers, for one) come from every dependency.
		cfg.Mode |= packages.LoadAllSyntax
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return fmt.Errorf("loading %s for %s: %w", strings.Join(patterns, " "), platform, err)
	}
	var count, checked int
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		checked++
		for _, e := range p.Errors {
			count++
			fmt.Fprintf(os.Stderr, "%s: %s\n", p.PkgPath, e)
		}
	})
	if count > 0 {
		return fmt.Errorf("%d errors for %s", count, platform)
	}
	fmt.Printf("typecheck: %d packages type-check for %s\n", checked, platform)
	if !vetToo {
		return nil
	}
	return vetPackages(pkgs, platform)
}

// vetPackages runs go vet's analyzers on pkgs (their dependencies only for
// facts) and prints what they report as go vet does, file:line: message.
func vetPackages(pkgs []*packages.Package, platform string) error {
	graph, err := checker.Analyze(vet.Suite, pkgs, nil)
	if err != nil {
		return fmt.Errorf("vet for %s: %w", platform, err)
	}
	count := 0
	for act := range graph.All() {
		if !act.IsRoot {
			continue
		}
		if act.Err != nil {
			count++
			fmt.Fprintf(os.Stderr, "%s: %s: %v\n", act.Package.PkgPath, act.Analyzer.Name, act.Err)
		}
		for _, d := range act.Diagnostics {
			count++
			fmt.Fprintf(os.Stderr, "%s: %s (%s)\n", act.Package.Fset.Position(d.Pos), d.Message, act.Analyzer.Name)
		}
	}
	if count > 0 {
		return fmt.Errorf("vet: %d findings for %s", count, platform)
	}
	fmt.Printf("typecheck: go vet's %d analyzers find nothing in %d packages for %s\n", len(vet.Suite), len(pkgs), platform)
	return nil
}
