package linkname

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// A Directive is one //go:linkname local remote in crdlab's source.
type Directive struct {
	File   string // the source file, absolute
	Line   int
	Local  string // our name, declared in File's package
	Remote string // importpath.name, as written
	// Package is the import path of File's package and Module the folder
	// of the module it belongs to (the nearest go.mod).
	Package, Module string
}

func (d Directive) String() string {
	return fmt.Sprintf("%s:%d: go:linkname %s %s", d.File, d.Line, d.Local, d.Remote)
}

// Target splits Remote into the upstream package's import path and the
// name in it. Methods (pkg.(*T).m, pkg.T.m) are not supported.
func (d Directive) Target() (pkgPath, name string, err error) {
	slash := strings.LastIndex(d.Remote, "/")
	dot := strings.LastIndex(d.Remote, ".")
	if dot <= slash || strings.ContainsAny(d.Remote, "()") {
		return "", "", fmt.Errorf("%s: %q is not importpath.name (methods are not supported)", d, d.Remote)
	}
	return d.Remote[:dot], d.Remote[dot+1:], nil
}

// Scan returns every two-argument //go:linkname directive in the .go files
// under root, test files included (folders named testdata or vendor, or
// starting with "." or "_", are skipped, as the go command skips them).
func Scan(root string) ([]Directive, error) {
	var ds []Directive
	modules := map[string]module{} // by folder
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := e.Name()
		if e.IsDir() {
			if path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !bytes.Contains(src, []byte("//go:linkname")) {
			return nil
		}
		found, err := directives(path, src)
		if err != nil || len(found) == 0 {
			return err
		}
		m, err := moduleOf(filepath.Dir(path), modules)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(m.dir, filepath.Dir(path))
		if err != nil {
			return err
		}
		for _, d := range found {
			d.Module, d.Package = m.dir, m.path
			if rel != "." {
				d.Package += "/" + filepath.ToSlash(rel)
			}
			ds = append(ds, d)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scan %s for go:linkname: %w", root, err)
	}
	return ds, nil
}

// directives parses one file's //go:linkname comments: a directive starts
// its line, as the compiler requires.
func directives(path string, src []byte) ([]Directive, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var ds []Directive
	for _, g := range f.Comments {
		for _, c := range g.List {
			pos := fset.Position(c.Slash)
			fields := strings.Fields(c.Text)
			if pos.Column != 1 || len(fields) == 0 || fields[0] != "//go:linkname" {
				continue
			}
			switch len(fields) {
			case 2: // go:linkname local: ours, made reachable; nothing upstream
			case 3:
				ds = append(ds, Directive{File: path, Line: pos.Line, Local: fields[1], Remote: fields[2]})
			default:
				return nil, fmt.Errorf("%s:%d: malformed %q", path, pos.Line, c.Text)
			}
		}
	}
	return ds, nil
}

type module struct{ dir, path string }

// moduleOf returns the module that holds dir: the nearest go.mod above it.
func moduleOf(dir string, known map[string]module) (module, error) {
	if m, ok := known[dir]; ok {
		return m, nil
	}
	var m module
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
		out, err := goCommand(dir, "mod", "edit", "-json")
		if err != nil {
			return m, err
		}
		var f struct{ Module struct{ Path string } }
		if err := json.Unmarshal(out, &f); err != nil {
			return m, fmt.Errorf("%s: 'go mod edit -json': %w", filepath.Join(dir, "go.mod"), err)
		}
		if f.Module.Path == "" {
			return m, fmt.Errorf("%s: no module path in 'go mod edit -json'", filepath.Join(dir, "go.mod"))
		}
		m = module{dir, f.Module.Path}
	} else {
		parent := filepath.Dir(dir)
		if parent == dir {
			return m, fmt.Errorf("no go.mod above %s", dir)
		}
		if m, err = moduleOf(parent, known); err != nil {
			return m, err
		}
	}
	known[dir] = m
	return m, nil
}

// goCommand runs the go command in dir, outside any workspace.
func goCommand(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go %s in %s: %w\n%s", strings.Join(args, " "), dir, err, stderr.Bytes())
	}
	return out, nil
}
