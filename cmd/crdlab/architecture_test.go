package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// packagePath is a repository path in backquotes, as docs/architecture.md
// names packages: `lab/server`, `cmd/crdlab`.
var packagePath = regexp.MustCompile("`((?:cmd|lab|scenarios|controllers|fixtures)(?:/[a-z0-9_]+)*)`")

// TestArchitectureNamesPackagesThatExist keeps docs/architecture.md true to
// the code: every package it names is a folder of Go code, and each of the
// main packages of the three flows it follows is named.
func TestArchitectureNamesPackagesThatExist(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, m := range packagePath.FindAllStringSubmatch(string(doc), -1) {
		named[m[1]] = true
	}
	for pkg := range named {
		files, err := filepath.Glob(filepath.Join(root, pkg, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		code := false
		for _, f := range files {
			code = code || !strings.HasSuffix(f, "_test.go")
		}
		if !code {
			t.Errorf("docs/architecture.md names `%s`, which is not a package of this repository", pkg)
		}
	}
	for _, pkg := range []string{"cmd/crdlab", "lab/server", "lab/full", "lab", "lab/internal/proc", "lab/multicall",
		"lab/labtest/control", "scenarios", "lab/timeline", "lab/ui"} {
		if !named[pkg] {
			t.Errorf("docs/architecture.md does not name `%s`", pkg)
		}
	}
}
