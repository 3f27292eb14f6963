package lab

import (
	"maps"
	"os"
	"strconv"
	"strings"
	"testing"

	_ "k8s.io/apiserver/pkg/features" // kube-apiserver's gates, in utilfeature's
	genericoptions "k8s.io/apiserver/pkg/server/options"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"

	"github.com/crdlab/crdlab/lab/internal/controlplane"
)

// From ScaleNodes nodes on, kube-apiserver serves more requests at once
// than its defaults, and below it keeps them; docs/scale.md states the
// threshold and each value beside the default.
func TestSettingsAtScale(t *testing.T) {
	def := genericoptions.NewServerRunOptions()
	for _, tc := range []struct {
		nodes              int
		inFlight, mutating int // 0: kube-apiserver's defaults
		gates              map[string]bool
	}{
		{0, 0, 0, nil}, {3, 0, 0, nil}, {ScaleNodes - 1, 0, 0, nil},
		{ScaleNodes, scaleRequestsInFlight, scaleMutatingRequestsInFlight, map[string]bool{"ListFromCacheSnapshot": false}},
		{5000, scaleRequestsInFlight, scaleMutatingRequestsInFlight, map[string]bool{"ListFromCacheSnapshot": false}},
	} {
		var api controlplane.APIServer
		if err := (&nodes{lab: &Lab{opts: Options{Nodes: tc.nodes}}}).configureAPIServer(&api); err != nil {
			t.Fatal(err)
		}
		if api.MaxRequestsInFlight != tc.inFlight || api.MaxMutatingRequestsInFlight != tc.mutating {
			t.Errorf("%d nodes: in-flight limits %d and %d, want %d and %d", tc.nodes,
				api.MaxRequestsInFlight, api.MaxMutatingRequestsInFlight, tc.inFlight, tc.mutating)
		}
		if !maps.Equal(api.FeatureGates, tc.gates) {
			t.Errorf("%d nodes: feature gates %v, want %v", tc.nodes, api.FeatureGates, tc.gates)
		}
	}
	// kube-apiserver of the built-in minor takes each gate as its
	// --feature-gates would (a gate locked to its default, or gone, would
	// stop it from starting).
	for name, on := range scaleFeatureGates {
		gate := utilfeature.DefaultMutableFeatureGate.DeepCopy()
		if err := gate.Set(name + "=" + strconv.FormatBool(on)); err != nil {
			t.Errorf("--feature-gates=%s=%t: %v", name, on, err)
		}
		if !gate.Enabled(featuregate.Feature(name)) == on {
			t.Errorf("--feature-gates=%s=%t: not set", name, on)
		}
	}
	if scaleRequestsInFlight <= def.MaxRequestsInFlight || scaleMutatingRequestsInFlight <= def.MaxMutatingRequestsInFlight {
		t.Errorf("the limits at scale (%d, %d) do not raise kube-apiserver's defaults (%d, %d)",
			scaleRequestsInFlight, scaleMutatingRequestsInFlight, def.MaxRequestsInFlight, def.MaxMutatingRequestsInFlight)
	}
	doc, err := os.ReadFile("../docs/scale.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"--max-requests-inflight=" + strconv.Itoa(scaleRequestsInFlight) + "` (default " + strconv.Itoa(def.MaxRequestsInFlight) + ")",
		"--max-mutating-requests-inflight=" + strconv.Itoa(scaleMutatingRequestsInFlight) + "` (default " + strconv.Itoa(def.MaxMutatingRequestsInFlight) + ")",
		"From " + thousands(ScaleNodes) + " nodes",
		"`--feature-gates=ListFromCacheSnapshot=false`",
	} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("docs/scale.md does not say %q", want)
		}
	}
}

// thousands writes n as the docs do: 1,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
