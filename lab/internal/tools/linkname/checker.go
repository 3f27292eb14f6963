package linkname

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"
)

// A Checker compares go:linkname declarations with the upstream ones,
// type-checking from source the packages one module resolves (List) and
// faking every other package (see the package comment).
type Checker struct {
	fset    *token.FileSet
	pkgs    map[string]*Package
	checked map[string]*checked // by import path, " [test]" added for test files
	fakes   map[string]*types.Package
}

// checked is a package type-checked from source.
type checked struct {
	pkg   *types.Package
	spans map[token.Pos]span // a package-level declaration's, by its name's position
	errs  []types.Error      // errors anywhere in the package
}

type span struct{ from, to token.Pos }

// NewChecker returns a Checker on pkgs, which holds every package a
// directive names, ours and upstream's.
func NewChecker(pkgs map[string]*Package) *Checker {
	return &Checker{token.NewFileSet(), pkgs, map[string]*checked{}, map[string]*types.Package{}}
}

// Compare returns an error if d's declaration and the upstream declaration
// it names differ in type, or if either cannot be found or typed.
func (c *Checker) Compare(d Directive) error {
	upPath, name, err := d.Target()
	if err != nil {
		return err
	}
	ours, up := c.pkgs[d.Package], c.pkgs[upPath]
	if ours == nil || up == nil {
		return fmt.Errorf("%s: packages %s and %s not both listed", d, d.Package, upPath)
	}
	files, err := ours.files(d.File)
	if err != nil {
		return err
	}
	key := d.Package
	if len(files) > len(ours.GoFiles) {
		key += " [test]"
	}
	o, err := c.check(key, ours, files)
	if err != nil {
		return fmt.Errorf("%s: %w", d, err)
	}
	u, err := c.check(upPath, up, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", d, err)
	}
	oo, uo := o.pkg.Scope().Lookup(d.Local), u.pkg.Scope().Lookup(name)
	switch {
	case oo == nil:
		return fmt.Errorf("%s: package %s declares no %s", d, d.Package, d.Local)
	case uo == nil:
		return fmt.Errorf("%s: upstream %s (%s) declares no %s", d, upPath, up.Version(), name)
	}
	if err := errors.Join(o.typed(c.fset, oo), u.typed(c.fset, uo)); err != nil {
		return fmt.Errorf("%s: type not determined: %w", d, err)
	}
	oursKind, oursDecl := describe(oo)
	upKind, upDecl := describe(uo)
	if oursKind == "" || upKind == "" {
		return fmt.Errorf("%s: only functions and variables are supported: ours is %s, upstream's %s", d, oursDecl, upDecl)
	}
	if oursKind != upKind || !types.Identical(oo.Type(), uo.Type()) {
		return fmt.Errorf("%s: our declaration and upstream's differ in type, in %s:\n\tours:     %s\n\tupstream: %s\n\t(upstream at %s)",
			d, up.Version(), oursDecl, upDecl, c.fset.Position(uo.Pos()))
	}
	return nil
}

// describe returns obj's kind, func or var, and its declaration with
// package paths in full: "func NAME SIGNATURE" or "var NAME TYPE". The
// kind is empty for other objects.
func describe(obj types.Object) (kind, decl string) {
	t := types.TypeString(obj.Type(), nil)
	switch obj.(type) {
	case *types.Func:
		return "func", "func " + obj.Name() + strings.TrimPrefix(t, "func")
	case *types.Var:
		return "var", "var " + obj.Name() + " " + t
	}
	return "", types.ObjectString(obj, nil)
}

// typed returns the errors type-checking found in obj's declaration, and
// an error if obj's type has an invalid part.
func (p *checked) typed(fset *token.FileSet, obj types.Object) error {
	var errs []error
	if s, ok := p.spans[obj.Pos()]; ok {
		for _, e := range p.errs {
			if s.from <= e.Pos && e.Pos < s.to {
				errs = append(errs, e)
			}
		}
	}
	if obj.Type() == nil || invalid(obj.Type()) {
		errs = append(errs, fmt.Errorf("%s: %s has type %s", fset.Position(obj.Pos()), obj.Name(), obj.Type()))
	}
	return errors.Join(errs...)
}

// check type-checks p from source (files, or its GoFiles if nil), once.
func (c *Checker) check(key string, p *Package, files []string) (*checked, error) {
	if r, ok := c.checked[key]; ok {
		if r == nil {
			return nil, fmt.Errorf("import cycle through %s", key)
		}
		return r, nil
	}
	c.checked[key] = nil
	if files == nil {
		for _, f := range p.GoFiles {
			files = append(files, filepath.Join(p.Dir, f))
		}
	}
	r := &checked{spans: map[token.Pos]span{}}
	var asts []*ast.File
	for _, f := range files {
		a, err := parser.ParseFile(c.fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			delete(c.checked, key)
			return nil, err
		}
		asts = append(asts, a)
		c.prepare(a)
		r.declarations(a)
	}
	conf := types.Config{
		Importer:         importer{c},
		IgnoreFuncBodies: true,
		Error: func(err error) {
			var e types.Error
			if errors.As(err, &e) {
				r.errs = append(r.errs, e)
			}
		},
	}
	r.pkg, _ = conf.Check(p.ImportPath, c.fset, asts, nil) // errors kept in r.errs
	c.checked[key] = r
	return r, nil
}

// declarations notes the span of each package-level function's signature
// and variable's specification in f.
func (p *checked) declarations(f *ast.File) {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				p.spans[d.Name.Pos()] = span{d.Type.Pos(), d.Type.End()}
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				if v, ok := s.(*ast.ValueSpec); ok && d.Tok == token.VAR {
					for _, n := range v.Names {
						p.spans[n.Pos()] = span{v.Pos(), v.End()}
					}
				}
			}
		}
	}
}
