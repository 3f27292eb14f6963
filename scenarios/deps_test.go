package scenarios

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// The scenario runner targets any cluster through a kubeconfig, and a lab
// through the small scenarios.Lab interface: it, its format, the timeline
// and the control protocol link client-go and controller-runtime, never the
// Kubernetes components (k8s.io/kubernetes, etcd's server) nor the lab
// that runs them.
func TestRunnerDoesNotLinkKubernetes(t *testing.T) {
	pkgs := []string{".", "./format", "../lab/timeline", "github.com/crdlab/crdlab/lab/labtest/control"}
	cmd := exec.Command("go", append([]string{"list", "-deps", "-f", "{{.ImportPath}}"}, pkgs...)...)
	out, err := cmd.Output()
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		t.Fatalf("%s: %v\n%s", cmd, err, ee.Stderr)
	} else if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	deps := strings.Fields(string(out))
	if !contains(deps, "k8s.io/client-go/rest") {
		t.Fatalf("%s lists no client-go: %q", cmd, deps)
	}
	ours := []string{ // the project's packages it may link
		"github.com/crdlab/crdlab/scenarios", "github.com/crdlab/crdlab/scenarios/format",
		"github.com/crdlab/crdlab/fixtures", "github.com/crdlab/crdlab/lab/timeline",
		"github.com/crdlab/crdlab/lab/labtest/control",
		"github.com/crdlab/crdlab/lab/internal/actor", // the timeline's actor names: strings only
		"github.com/crdlab/crdlab/lab/lang",           // the learner's language: standard library only
	}
	for _, d := range deps {
		if strings.HasPrefix(d, "k8s.io/kubernetes/") || strings.HasPrefix(d, "go.etcd.io/etcd/server/") ||
			strings.HasPrefix(d, "github.com/crdlab/crdlab/") && !contains(ours, d) {
			t.Errorf("%s links %s", strings.Join(pkgs, " "), d)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
