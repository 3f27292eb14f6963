package kubeminor_test

import (
	"testing"

	"github.com/crdlab/crdlab/lab/kubeminor"
)

func TestParseVersion(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want kubeminor.Version
		ok   bool
	}{
		{"1.36", kubeminor.Version{Minor: "1.36", Number: 36}, true},
		{"v1.36", kubeminor.Version{Minor: "1.36", Number: 36, V: true}, true},
		{"v1.36.5", kubeminor.Version{Minor: "1.36", Number: 36, Rest: ".5", V: true}, true},
		{"v1.37.9+abc", kubeminor.Version{Minor: "1.37", Number: 37, Rest: ".9+abc", V: true}, true},
		{"v1.38.0-beta.0", kubeminor.Version{Minor: "1.38", Number: 38, Rest: ".0-beta.0", V: true}, true},
		{"1.100", kubeminor.Version{Minor: "1.100", Number: 100}, true},
		{"1.036", kubeminor.Version{}, false},
		{"v2.0.0", kubeminor.Version{}, false},
		{"1.", kubeminor.Version{}, false},
		{"36", kubeminor.Version{}, false},
		{"", kubeminor.Version{}, false},
		{"unknown", kubeminor.Version{}, false},
	} {
		got, ok := kubeminor.ParseVersion(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseVersion(%q) = %+v, %v; want %+v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestOlder(t *testing.T) {
	for _, tc := range []struct {
		version, min string
		want         bool
	}{
		{"v1.35.8", "1.36", true},
		{"v1.36.5", "1.36", false},
		{"v1.37.9", "1.36", false},
		{"v1.37.9+abc", "1.38", true},
		{"v1.9.0", "1.10", true},
		{"v2.0.0", "1.99", false},
		{"unknown", "1.36", false},
	} {
		if got := kubeminor.Older(tc.version, tc.min); got != tc.want {
			t.Errorf("Older(%q, %q) = %v, want %v", tc.version, tc.min, got, tc.want)
		}
	}
}

func TestRelease(t *testing.T) {
	for in, want := range map[string]string{
		"v1.36.5":        "v1.36.5",
		"v1.36.5+abc":    "v1.36.5",
		"1.36.5-rc.1":    "v1.36.5",
		"v1.38.0-beta.0": "v1.38.0",
		"1.36":           "",
		"v1.36.":         "",
		"v1.36x":         "",
	} {
		v, ok := kubeminor.ParseVersion(in)
		if !ok {
			t.Errorf("ParseVersion(%q) failed", in)
			continue
		}
		if got := v.Release(); got != want {
			t.Errorf("ParseVersion(%q).Release() = %q, want %q", in, got, want)
		}
	}
}

func TestTag(t *testing.T) {
	for in, want := range map[string]string{
		"v1.36.5":              "v1.36.5",
		"v1.36.5+abc":          "v1.36.5",
		"1.36.5-rc.1":          "v1.36.5-rc.1",
		"v1.38.0-beta.0":       "v1.38.0-beta.0",
		"v1.38.0-beta.0+dirty": "v1.38.0-beta.0",
		"v1.38.0-alpha.2":      "",
		"1.36":                 "",
	} {
		v, ok := kubeminor.ParseVersion(in)
		if !ok {
			t.Errorf("ParseVersion(%q) failed", in)
			continue
		}
		if got := v.Tag(); got != want {
			t.Errorf("ParseVersion(%q).Tag() = %q, want %q", in, got, want)
		}
	}
}
