package linkname

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// compare writes ours (package ours, declaring x) and upstream (package
// up, declaring y) to a temporary folder and compares
// //go:linkname x example.com/up.y.
func compare(t *testing.T, ours, upstream string) error {
	t.Helper()
	dir := t.TempDir()
	pkgs := map[string]*Package{}
	for name, src := range map[string]string{"ours": ours, "up": upstream} {
		path := filepath.Join(dir, name, name+".go")
		if err := os.Mkdir(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("package "+name+"\n"+src), 0o644); err != nil {
			t.Fatal(err)
		}
		pkgs["example.com/"+name] = &Package{ImportPath: "example.com/" + name, Dir: filepath.Dir(path), GoFiles: []string{name + ".go"}}
	}
	d := Directive{File: filepath.Join(dir, "ours", "ours.go"), Line: 2, Local: "x", Remote: "example.com/up.y", Package: "example.com/ours"}
	return NewChecker(pkgs).Compare(d)
}

func TestCompare(t *testing.T) {
	const (
		ours = `import ("k8s.io/client-go/kubernetes"; up "example.com/up"); import _ "unsafe"
func x(p *up.PolicyData, client kubernetes.Interface) (done bool, err error)`
		upImports = `import clientset "k8s.io/client-go/kubernetes"
type PolicyData struct{ Roles []clientset.Role }
`
	)
	for _, tc := range []struct {
		name, ours, upstream string
		want                 string // in the error; "" for none
	}{
		{"same function", ours, upImports + `func y(p *PolicyData, client clientset.Interface) (bool, error) { return false, nil }`, ""},
		{"parameter not a pointer", ours, upImports + `func y(p PolicyData, client clientset.Interface) (bool, error)`, "differ in type"},
		{"parameter added", ours, upImports + `func y(p *PolicyData, client clientset.Interface, n int) (bool, error)`, "differ in type"},
		{"result removed", ours, upImports + `func y(p *PolicyData, client clientset.Interface) bool`, "differ in type"},
		{"same name, other package", ours,
			`import clientset "k8s.io/client-go/kubernetes/fake"
type PolicyData struct{}
func y(p *PolicyData, client clientset.Interface) (bool, error)`, "differ in type"},
		{"upstream does not parse", ours, upImports + `func y(`, "expected"},
		{"other name, same package", ours, upImports + `func y(p *PolicyData, client clientset.Clientset) (bool, error)`, "differ in type"},
		{"variable typed by its constant", `var x string`, `var y = "v0.0.0"`, ""},
		{"variable typed by a grouped constant", `var x string`, `var ( a, y string = "", "v0"; z = 1 )`, ""},
		{"variable of another basic type", `var x string`, `var y = 1`, "differ in type"},
		{"variable of an imported type", `import "sync/atomic"; var x atomic.Value`, `import "sync/atomic"; var y atomic.Value`, ""},
		{"generic instance", `import "sync/atomic"; var x atomic.Pointer[string]`, `import "sync/atomic"; var y atomic.Pointer[string]`, ""},
		{"generic instance, other argument", `import "sync/atomic"; var x atomic.Pointer[string]`, `import "sync/atomic"; var y atomic.Pointer[int]`, "differ in type"},
		{"generic instance for a plain type", `import "sync/atomic"; var x atomic.Value`, `import "sync/atomic"; var y atomic.Pointer[string]`, "differ in type"},
		{"variable for a function", `var x func()`, `func y()`, "differ in type"},
		{"initializer a fake cannot type", `var x string`, `import "strings"; var y = strings.ToLower("V")`, "type not determined"},
		{"conversion between fakes", `import "k8s.io/x"; var x x.T`, `import "k8s.io/x"; var y = x.T(x.U{})`, "type not determined"},
		{"undefined upstream type", `var x string`, `var y Missing`, "type not determined"},
		{"upstream name gone", `var x string`, `var z string`, "declares no y"},
		{"our name gone", `var z string`, `var y string`, "declares no x"},
		{"constant", `var x string`, `const y = "v"`, "only functions and variables"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := compare(t, tc.ours, tc.upstream)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("want no error, got %v", err)
			case tc.want != "" && err == nil:
				t.Errorf("want an error with %q, got none", tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Errorf("want an error with %q, got %v", tc.want, err)
			}
		})
	}
}

func TestTarget(t *testing.T) {
	for remote, want := range map[string]string{
		"k8s.io/component-base/version.gitVersion": "k8s.io/component-base/version gitVersion",
		"gopkg.in/yaml.v3.marshal":                 "gopkg.in/yaml.v3 marshal",
		"runtime.nanotime":                         "runtime nanotime",
		"k8s.io/x.(*T).m":                          "error",
		"k8s.io/x":                                 "error",
	} {
		pkg, name, err := Directive{Remote: remote}.Target()
		got := pkg + " " + name
		if err != nil {
			got = "error"
		}
		if got != want {
			t.Errorf("Target of %q: want %q, got %q", remote, want, got)
		}
	}
}
