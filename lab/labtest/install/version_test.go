package install

import (
	"runtime/debug"
	"testing"
)

func TestModuleVersion(t *testing.T) {
	for name, tc := range map[string]struct {
		bi   debug.BuildInfo
		want string
	}{
		"a dependency": {
			bi:   debug.BuildInfo{Main: debug.Module{Path: "example.com/op"}, Deps: []*debug.Module{{Path: "k8s.io/api", Version: "v0.35.0"}, {Path: modulePath, Version: "v0.3.0"}}},
			want: "v0.3.0",
		},
		"go run setup-crdlab@v0.3.0": {
			bi:   debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "v0.3.0"}},
			want: "v0.3.0",
		},
		"a development build": {
			bi: debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "(devel)"}},
		},
		"replaced": {
			bi: debug.BuildInfo{Main: debug.Module{Path: "github.com/crdlab/crdlab"}, Deps: []*debug.Module{{Path: modulePath, Version: "v0.0.0", Replace: &debug.Module{Path: "./lab/labtest"}}}},
		},
		"not a dependency": {
			bi: debug.BuildInfo{Main: debug.Module{Path: "example.com/op"}},
		},
	} {
		if got := moduleVersion(&tc.bi); got != tc.want {
			t.Errorf("%s: moduleVersion = %q, want %q", name, got, tc.want)
		}
	}
}
