package scenarios

import "testing"

func TestOlder(t *testing.T) {
	for _, tc := range []struct {
		version, min string
		want         bool
	}{
		{"v1.35.8", "1.36", true},
		{"v1.36.5", "1.36", false},
		{"v1.37.2", "1.36", false},
		{"v1.37.2+abc", "1.38", true},
		{"v2.0.0", "1.99", false},
		{"unknown", "1.36", false},
	} {
		if got := older(tc.version, tc.min); got != tc.want {
			t.Errorf("older(%q, %q) = %v, want %v", tc.version, tc.min, got, tc.want)
		}
	}
}
