package kubeminor_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/crdlab/crdlab/lab/kubeminor"
)

func TestParseReleases(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		want       []string // minors, the built-in one marked with *, a preview with ?
		err        string
	}{
		{name: "the format", data: "# c\n1.35 v1.35.8 v0.35.8\n\n1.36 v1.36.5 v0.36.5 # c\n1.37 v1.37.2 v0.37.2 built-in\n", want: []string{"1.35", "1.36", "1.37*"}},
		{name: "built-in not last", data: "1.36 v1.36.5 v0.36.5 built-in\n1.37 v1.37.0 v0.37.0\n", want: []string{"1.36*", "1.37"}},
		{name: "two fields", data: "1.35 v1.35.8\n", err: "m.txt:1: want \"minor kubernetes staging [built-in]\""},
		{name: "a word not built-in", data: "1.35 v1.35.8 v0.35.8 builtin\n", err: "m.txt:1: want"},
		{name: "minor", data: "# x\n35 v1.35.8 v0.35.8 built-in\n", err: "m.txt:2: minor \"35\": want 1.<minor>"},
		{name: "release of another minor", data: "1.35 v1.36.8 v0.35.8 built-in\n", err: "m.txt:1: kubernetes \"v1.36.8\": want a release of Kubernetes 1.35"},
		{name: "staging of another patch", data: "1.35 v1.35.8 v0.35.7 built-in\n", err: "m.txt:1: staging \"v0.35.7\": want the staging modules' release of Kubernetes v1.35.8, v0.35.8"},
		{name: "staging v1", data: "1.35 v1.35.8 v1.35.8 built-in\n", err: "m.txt:1: staging \"v1.35.8\""},
		{name: "not oldest first", data: "1.36 v1.36.5 v0.36.5\n1.35 v1.35.8 v0.35.8 built-in\n", err: "m.txt:2: minor 1.35 after 1.36: list each minor once, oldest first"},
		{name: "twice", data: "1.36 v1.36.5 v0.36.5\n1.36 v1.36.5 v0.36.5 built-in\n", err: "m.txt:2: minor 1.36 after 1.36"},
		{name: "none built in", data: "1.36 v1.36.5 v0.36.5\n", err: "m.txt: 0 minors marked built-in; want exactly one"},
		{name: "two built in", data: "1.36 v1.36.5 v0.36.5 built-in\n1.37 v1.37.2 v0.37.2 built-in\n", err: "m.txt: 2 minors marked built-in"},
		{name: "empty", data: "", err: "m.txt: 0 minors marked built-in"},
		{name: "a preview", data: "1.37 v1.37.2 v0.37.2 built-in\n1.38 v1.38.0-beta.0 v0.38.0-beta.0\n1.39 v1.39.0-rc.1 v0.39.0-rc.1\n", want: []string{"1.37*", "1.38?", "1.39?"}},
		{name: "a preview's staging of a GA release", data: "1.38 v1.38.0-beta.0 v0.38.0 built-in\n", err: "m.txt:1: staging \"v0.38.0\": want the staging modules' release of Kubernetes v1.38.0-beta.0, v0.38.0-beta.0"},
		{name: "an alpha", data: "1.38 v1.38.0-alpha.2 v0.38.0-alpha.2 built-in\n", err: "m.txt:1: kubernetes \"v1.38.0-alpha.2\": want a release of Kubernetes 1.38"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := kubeminor.ParseReleases("m.txt", []byte(tc.data))
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("ParseReleases = %v, %v; want an error starting %q", got, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var minors []string
			for _, r := range got {
				m := r.Minor
				if r.BuiltIn {
					m += "*"
				}
				if r.Preview() {
					m += "?"
				}
				minors = append(minors, m)
			}
			if !slices.Equal(minors, tc.want) {
				t.Errorf("minors %v, want %v", minors, tc.want)
			}
		})
	}
}

// TestReleases: what the package serves is minors.txt's list, read once.
func TestReleases(t *testing.T) {
	data, err := os.ReadFile("minors.txt")
	if err != nil {
		t.Fatal(err)
	}
	want, err := kubeminor.ParseReleases("minors.txt", data)
	if err != nil {
		t.Fatal(err)
	}
	if got := kubeminor.Releases(); !slices.Equal(got, want) {
		t.Errorf("Releases() = %v, want minors.txt's %v", got, want)
	}
	var minors, others []string
	for _, r := range want {
		minors = append(minors, r.Minor)
		if r.BuiltIn {
			if kubeminor.BuiltIn != r.Minor {
				t.Errorf("BuiltIn = %s, want %s", kubeminor.BuiltIn, r.Minor)
			}
		} else {
			others = append(others, r.Minor)
		}
		if got := kubeminor.Patch(r.Minor); got != r.Kubernetes {
			t.Errorf("Patch(%s) = %s, want %s", r.Minor, got, r.Kubernetes)
		}
	}
	if got := kubeminor.Supported(); !slices.Equal(got, minors) {
		t.Errorf("Supported() = %v, want %v", got, minors)
	}
	if got := kubeminor.ComponentsMinors(); !slices.Equal(got, others) {
		t.Errorf("ComponentsMinors() = %v, want %v", got, others)
	}
	if got := kubeminor.Oldest(); got != minors[0] {
		t.Errorf("Oldest() = %s, want %s", got, minors[0])
	}
	if got := kubeminor.List([]string{"1.35", "1.36", "1.37"}, "or"); got != "1.35, 1.36 or 1.37" {
		t.Errorf("List = %q", got)
	}
}
