package main

import (
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The lab's kube-apiserver is upstream's with crdlab's patches:
// docs/boot.md's table lists them, each where the code has it, and the
// pages that describe the lab's kube-apiserver (English and Chinese) do
// not call it unmodified and point to its patches.
func TestDocsListTheApiserversPatches(t *testing.T) {
	root := filepath.Join("..", "..")
	boot, err := os.ReadFile(filepath.Join(root, "docs", "boot.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(boot), "### The patches on each Kubernetes minor")
	if !ok {
		t.Fatal("docs/boot.md has no section on the patches")
	}
	// The declarations of lab/internal/kubemain.
	declared := map[string]bool{}
	sources, err := filepath.Glob(filepath.Join(root, "lab", "internal", "kubemain", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := gotoken.NewFileSet()
	var files []*ast.File
	for _, src := range sources {
		if strings.HasSuffix(src, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, src, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					declared[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch spec := spec.(type) {
					case *ast.ValueSpec:
						for _, n := range spec.Names {
							declared[n.Name] = true
						}
					case *ast.TypeSpec:
						declared[spec.Name.Name] = true
					}
				}
			}
		}
	}
	where := regexp.MustCompile("`(kubemain\\.[A-Za-z]+|lab/[a-z/<>]+)`")
	rows := 0
	for _, line := range strings.Split(table, "\n") {
		if !strings.HasPrefix(line, "| ") {
			if rows > 0 {
				break
			}
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 4 || strings.TrimSpace(cells[1]) == "Patch" {
			continue
		}
		rows++
		for _, m := range where.FindAllStringSubmatch(cells[2], -1) {
			if name, ok := strings.CutPrefix(m[1], "kubemain."); ok {
				if !declared[name] {
					t.Errorf("docs/boot.md: the patch %q is in kubemain.%s, which lab/internal/kubemain does not declare", strings.TrimSpace(cells[1]), name)
				}
				continue
			}
			dir := strings.Split(m[1], "<")[0]
			if _, err := os.Stat(filepath.Join(root, dir)); err != nil {
				t.Errorf("docs/boot.md: the patch %q is in %s: %v", strings.TrimSpace(cells[1]), m[1], err)
			}
		}
	}
	if rows < 5 {
		t.Errorf("docs/boot.md lists %d patches", rows)
	}
	// The English page points to the table; the Chinese one, as boot.md
	// has no Chinese page (TestZhLinksStayInChinese), to the patches' code.
	for _, p := range []struct{ page, wrong, points string }{
		{"docs/extending-the-api.md", "unmodified", "boot.md#the-patches-on-each-kubernetes-minor"},
		{"docs/zh/extending.md", "未经修改", "lab/internal/kubemain"},
	} {
		b, err := os.ReadFile(filepath.Join(root, p.page))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), p.wrong) {
			t.Errorf("%s calls the lab's kube-apiserver %q; docs/boot.md lists its patches", p.page, p.wrong)
		}
		if !strings.Contains(string(b), p.points) {
			t.Errorf("%s does not point to the patches (%s)", p.page, p.points)
		}
	}
}
