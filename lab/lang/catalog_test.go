package lang

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The packages whose messages go through Msg, Msgf and Errorf.
var speakers = []string{"../../cmd/crdlab", "../../scenarios", "../../scenarios/format", "../server", "../timeline", "../../fixtures/migrate", "../kubeminor"}

// messages returns the literal first arguments of every Msg and Msgf call
// in the packages, with where each is.
func messages(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	fset := token.NewFileSet()
	for _, dir := range speakers {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(fset, f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(file, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) == 0 {
					return true
				}
				format := call.Args[0]
				switch fun := call.Fun.(type) {
				case *ast.SelectorExpr: // l.Msg("..."), l.Msgf("...", ...), lang.Errorf("...", ...)
					x, _ := fun.X.(*ast.Ident)
					isErrorf := fun.Sel.Name == "Errorf" && x != nil && x.Name == "lang"
					if fun.Sel.Name != "Msg" && fun.Sel.Name != "Msgf" && !isErrorf {
						return true
					}
				case *ast.Ident: // say("...", ...): cmd/crdlab's Msgf for a scenario run
					switch {
					case fun.Name == "say":
					case fun.Name == "note" && len(call.Args) > 1: // note(path, "...", ...): fixtures/migrate's Msgf of a change
						format = call.Args[1]
					default:
						return true
					}
				default:
					return true
				}
				lit, ok := format.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				out[s] = fset.Position(lit.Pos()).String()
				return true
			})
		}
	}
	if len(out) < 40 {
		t.Fatalf("only %d messages found in %v: does the scan still see the Msg calls?", len(out), speakers)
	}
	return out
}

// Every message crdlab says through Msg, Msgf and Errorf has its Chinese
// version.
func TestEveryMessageHasChinese(t *testing.T) {
	for msg, at := range messages(t) {
		if !ZH.Translated(msg) {
			t.Errorf("%s: %q has no Chinese version in lab/lang (zh.go)", at, msg)
		}
	}
}
