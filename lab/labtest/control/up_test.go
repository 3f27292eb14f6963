package control_test

import (
	"slices"
	"testing"
	"time"

	"github.com/crdlab/crdlab/lab/labtest/control"
)

// The round trip through crdlab up's own flags is cmd/crdlab's
// TestUpOptionsRoundTrip; this checks the command line itself.
func TestUpOptionsArgs(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts control.UpOptions
		want []string
	}{
		{"zero: up's defaults", control.UpOptions{}, []string{"up"}},
		{"all components", control.UpOptions{Components: nil}, []string{"up"}},
		{"no components", control.UpOptions{Components: []string{}}, []string{"up", "--components", "none"}},
		{"some components", control.UpOptions{Components: []string{"nodes", "scheduler"}}, []string{"up", "--components", "nodes,scheduler"}},
		{"capacity in name order", control.UpOptions{NodeCapacity: map[string]string{"pods": "110", "cpu": "8"}},
			[]string{"up", "--node-capacity", "cpu=8,pods=110"}},
		{"repeated flags", control.UpOptions{CRDs: []string{"a", "b"}, OwnerPIDs: []int{1, 2}},
			[]string{"up", "--crds", "a", "--crds", "b", "--owner-pid", "1", "--owner-pid", "2"}},
		{"release check", control.UpOptions{StateDir: "/s", Detach: true, Kubernetes: "1.35", Timeout: 90 * time.Second},
			[]string{"up", "--state-dir", "/s", "--detach", "--timeout", "1m30s", "--kubernetes", "1.35"}},
	} {
		if got := tc.opts.Args(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: Args() = %q, want %q", tc.name, got, tc.want)
		}
	}
}
