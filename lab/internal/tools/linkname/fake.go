package linkname

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// importer gives a package being checked its imports: unsafe, a package
// the Checker checks from source, or a fake.
type importer struct{ c *Checker }

func (i importer) Import(path string) (*types.Package, error) {
	if path == "unsafe" {
		return types.Unsafe, nil
	}
	if p, ok := i.c.pkgs[path]; ok {
		r, err := i.c.check(path, p, nil)
		if err != nil {
			return nil, err
		}
		return r.pkg, nil
	}
	return i.c.fake(path), nil
}

// prepare adds to the fake packages f imports every name f selects from
// them, each a named type of its own (generic if f instantiates it).
func (c *Checker) prepare(f *ast.File) {
	imported := map[string]string{} // the name f uses → import path
	for _, s := range f.Imports {
		path, err := strconv.Unquote(s.Path.Value)
		if err != nil || path == "unsafe" || path == "C" || c.pkgs[path] != nil {
			continue
		}
		name := c.fake(path).Name()
		if s.Name != nil {
			name = s.Name.Name
		}
		imported[name] = path
	}
	typeArgs := map[*ast.SelectorExpr]int{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IndexExpr: // visited before its X
			if s, ok := n.X.(*ast.SelectorExpr); ok {
				typeArgs[s] = 1
			}
		case *ast.IndexListExpr:
			if s, ok := n.X.(*ast.SelectorExpr); ok {
				typeArgs[s] = len(n.Indices)
			}
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && imported[x.Name] != "" {
				c.fakeType(imported[x.Name], n.Sel.Name, typeArgs[n])
			}
		}
		return true
	})
}

// fake returns the fake package of path, named as the go command would
// name it by default.
func (c *Checker) fake(path string) *types.Package {
	p, ok := c.fakes[path]
	if !ok {
		p = types.NewPackage(path, defaultName(path))
		p.MarkComplete() // or go/types drops it; names are added as files need them
		c.fakes[path] = p
	}
	return p
}

// fakeType declares name in path's fake package, once: a named type with
// n type parameters whose underlying struct is its own, so that no other
// type converts to it.
func (c *Checker) fakeType(path, name string, n int) {
	p := c.fake(path)
	if p.Scope().Lookup(name) != nil {
		return
	}
	obj := types.NewTypeName(token.NoPos, p, name, nil)
	field := types.NewField(token.NoPos, p, "fake"+name, types.Typ[types.Int], false)
	t := types.NewNamed(obj, types.NewStruct([]*types.Var{field}, nil), nil)
	if n > 0 {
		params := make([]*types.TypeParam, n)
		for i := range params {
			param := types.NewTypeName(token.NoPos, p, fmt.Sprintf("T%d", i), nil)
			params[i] = types.NewTypeParam(param, types.NewInterfaceType(nil, nil))
		}
		t.SetTypeParams(params)
	}
	p.Scope().Insert(obj)
}

// defaultName is the name of the package at path, by the usual
// convention: k8s.io/klog/v2 is klog, gopkg.in/yaml.v3 yaml, go-foo foo.
// A wrong guess leaves a name undefined, which Compare reports.
func defaultName(path string) string {
	elems := strings.Split(path, "/")
	name := elems[len(elems)-1]
	if len(elems) > 1 && len(name) > 1 && name[0] == 'v' && strings.Trim(name[1:], "0123456789") == "" {
		name = elems[len(elems)-2]
	}
	name = strings.TrimPrefix(name, "go-")
	if i := strings.IndexAny(name, ".-"); i > 0 {
		name = name[:i]
	}
	return name
}

// invalid reports whether t has an invalid part (an undetermined type).
func invalid(t types.Type) bool {
	switch t := t.(type) {
	case *types.Basic:
		return t.Kind() == types.Invalid
	case *types.Alias:
		return invalid(types.Unalias(t))
	case *types.Map:
		return invalid(t.Key()) || invalid(t.Elem())
	case interface{ Elem() types.Type }: // pointer, slice, array, channel
		return invalid(t.Elem())
	case *types.Signature:
		return invalid(t.Params()) || invalid(t.Results())
	case *types.Tuple:
		for v := range t.Variables() {
			if invalid(v.Type()) {
				return true
			}
		}
	case *types.Struct:
		for f := range t.Fields() {
			if invalid(f.Type()) {
				return true
			}
		}
	case *types.Interface:
		for m := range t.ExplicitMethods() {
			if invalid(m.Type()) {
				return true
			}
		}
		for e := range t.EmbeddedTypes() {
			if invalid(e) {
				return true
			}
		}
	case *types.Named:
		for a := range t.TypeArgs().Types() {
			if invalid(a) {
				return true
			}
		}
	}
	return false
}
