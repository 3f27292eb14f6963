package lab

import (
	"os"
	"strconv"
	"strings"
	"testing"

	genericoptions "k8s.io/apiserver/pkg/server/options"

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
	}{
		{0, 0, 0}, {3, 0, 0}, {ScaleNodes - 1, 0, 0},
		{ScaleNodes, scaleRequestsInFlight, scaleMutatingRequestsInFlight},
		{5000, scaleRequestsInFlight, scaleMutatingRequestsInFlight},
	} {
		var api controlplane.APIServer
		if err := (&nodes{lab: &Lab{opts: Options{Nodes: tc.nodes}}}).configureAPIServer(&api); err != nil {
			t.Fatal(err)
		}
		if api.MaxRequestsInFlight != tc.inFlight || api.MaxMutatingRequestsInFlight != tc.mutating {
			t.Errorf("%d nodes: in-flight limits %d and %d, want %d and %d", tc.nodes,
				api.MaxRequestsInFlight, api.MaxMutatingRequestsInFlight, tc.inFlight, tc.mutating)
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
