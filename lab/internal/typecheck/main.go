// Command typecheck type-checks packages, with their tests, for another
// platform, from source and without compiling them: make test's check of a
// platform it does not build (darwin/amd64, whose compile would be a cold
// compile of Kubernetes more; make cross and the release build it).
//
//	go run ./lab/internal/typecheck -platform darwin/amd64 ./...
//
// It loads the packages as `go build` would for that platform (GOOS,
// GOARCH, CGO_ENABLED=0, the build tags of its files), type-checks every
// package they import from source and prints every error, each naming its
// file and line. What a type-check cannot see is left to a real build of
// another platform that shares the source: assembly without its Go
// declaration, and go:linkname targets (lab/internal/linkname checks
// those for every minor).
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"golang.org/x/tools/go/packages"
)

func main() {
	platform := flag.String("platform", "", "the GOOS/GOARCH to type-check for, for example darwin/amd64")
	tests := flag.Bool("tests", true, "type-check the packages' test files too")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: typecheck -platform GOOS/GOARCH [-tests=false] PACKAGES...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if err := run(*platform, *tests, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "typecheck:", err)
		os.Exit(1)
	}
}

func run(platform string, tests bool, patterns []string) error {
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
		Tests: tests,
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
	return nil
}
