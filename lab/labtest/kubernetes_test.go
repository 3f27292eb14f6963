package labtest_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes"

	"github.com/crdlab/crdlab/lab/labtest"
)

// testKubernetesEnv names the Kubernetes minor TestKubernetesVersion
// boots (make test-kubernetes sets it, and CRDLAB_COMPONENTS_DIR to where
// make components put crdlab-k8s-<minor>).
const testKubernetesEnv = "CRDLAB_TEST_KUBERNETES"

// Acceptance 3 of issue 31: Environment.KubernetesVersion boots a whole lab
// on that minor (the apiserver says so; controller-manager, scheduler and
// nodes run) and delete-pod passes on it.
func TestKubernetesVersion(t *testing.T) {
	minor := os.Getenv(testKubernetesEnv)
	if minor == "" {
		t.Skipf("%s is not set: make test-kubernetes runs this on each supported minor", testKubernetesEnv)
	}
	e := &labtest.Environment{KubernetesVersion: minor, NodeCount: 2}
	cfg, err := e.Start()
	if err != nil {
		t.Fatalf("Start with KubernetesVersion %s: %v", minor, err)
	}
	defer func() {
		if err := e.Stop(); err != nil {
			t.Error(err)
		}
	}()
	v, err := kubernetes.NewForConfigOrDie(cfg).Discovery().ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(v.GitVersion, "v"+strings.TrimPrefix(minor, "v")+".") {
		t.Errorf("the apiserver serves %s, want %s", v.GitVersion, minor)
	}
	comps, err := e.Components(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	running := map[string]bool{}
	for _, c := range comps {
		running[c.Name] = c.Running
	}
	for _, want := range []string{"controller-manager", "scheduler", "nodes"} {
		if !running[want] {
			t.Errorf("%s does not run on %s: %+v", want, minor, comps)
		}
	}
	nodes, err := e.Nodes(ctx(t))
	if err != nil || len(nodes) != 2 {
		t.Errorf("Nodes: %+v, %v; want 2", nodes, err)
	}
	var out bytes.Buffer
	if err := e.RunScenario(ctx(t), "delete-pod", &out); err != nil {
		t.Errorf("delete-pod on %s: %v\n%s", minor, err, out.String())
	}
	for _, want := range []string{"PASS delete-pod", "replicaset           CREATE  pod/web-", "scheduler            BIND    pod/web-"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("delete-pod on %s: the output lacks %q:\n%s", minor, want, out.String())
		}
	}
}
