package linkname

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
)

// A Package is a package as a module resolves it ('go list -find').
type Package struct {
	ImportPath string
	Name       string
	Dir        string
	GoFiles    []string // for this GOOS and GOARCH, base names in Dir
	// TestGoFiles are the package's own _test.go files; XTestGoFiles
	// those of package <name>_test.
	TestGoFiles, XTestGoFiles []string
	Module                    *struct {
		Path, Version string
		Replace       *struct{ Path, Version string }
	}
	Error *struct{ Err string }
}

// Version is the package's module and its version (after replacement):
// k8s.io/kubernetes@v1.35.8.
func (p *Package) Version() string {
	m := p.Module
	switch {
	case m == nil:
		return "std"
	case m.Replace != nil && m.Replace.Version != "":
		return m.Path + "@" + m.Replace.Version
	case m.Replace != nil:
		return m.Path + " => " + m.Replace.Path
	case m.Version == "":
		return m.Path
	}
	return m.Path + "@" + m.Version
}

// files returns the files that declare the name of file, a file in the
// package: the package's own files, with its test files if file is one.
func (p *Package) files(file string) ([]string, error) {
	base := filepath.Base(file)
	var names []string
	switch {
	case slices.Contains(p.GoFiles, base):
		names = p.GoFiles
	case slices.Contains(p.TestGoFiles, base):
		names = append(slices.Clone(p.GoFiles), p.TestGoFiles...)
	case slices.Contains(p.XTestGoFiles, base):
		return nil, fmt.Errorf("%s: go:linkname in an external test package is not supported", file)
	default:
		return nil, fmt.Errorf("%s: not compiled in package %s on this GOOS/GOARCH, so its go:linkname cannot be checked here", file, p.ImportPath)
	}
	paths := make([]string, len(names))
	for i, n := range names {
		paths[i] = filepath.Join(p.Dir, n)
	}
	return paths, nil
}

// List resolves packages as the module in dir resolves them, with
// 'go list -find' (the packages' modules are downloaded if they are not
// in the module cache; nothing is compiled, go.mod and go.sum are only
// read). A package the module cannot resolve is an error naming it.
func List(dir string, paths []string) (map[string]*Package, error) {
	out, err := goCommand(dir, append([]string{"list", "-find", "-e", "-json=ImportPath,Name,Dir,GoFiles,TestGoFiles,XTestGoFiles,Module,Error", "--"}, paths...)...)
	if err != nil {
		return nil, err
	}
	pkgs := map[string]*Package{}
	var errs []error
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		p := new(Package)
		if err := dec.Decode(p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list in %s: %w", dir, err)
		}
		if p.Error != nil {
			errs = append(errs, fmt.Errorf("module in %s cannot resolve %s: %s", dir, p.ImportPath, p.Error.Err))
			continue
		}
		pkgs[p.ImportPath] = p
	}
	return pkgs, errors.Join(errs...)
}

// CheckModule compares each directive of ds as the module in dir compiles
// it: both packages resolved by that module (List), then Compare. It
// returns an error for each package the module cannot resolve and each
// directive that does not compare equal.
func CheckModule(dir string, ds []Directive) []error {
	var errs []error
	var paths []string
	for _, d := range ds {
		up, _, err := d.Target()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		paths = append(paths, d.Package, up)
	}
	slices.Sort(paths)
	paths = slices.Compact(paths)
	if len(paths) == 0 {
		return errs
	}
	pkgs, err := List(dir, paths)
	if err != nil {
		errs = append(errs, err)
	}
	c := NewChecker(pkgs)
	for _, d := range ds {
		up, _, err := d.Target()
		if err != nil || pkgs[d.Package] == nil || pkgs[up] == nil {
			continue // reported above
		}
		if err := c.Compare(d); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}
