// Package versions runs envtest, as a kubebuilder suite does, on two
// Kubernetes minors from crdlab: the default 1.37 and the oldest, 1.35
// (KUBEBUILDER_ASSETS=$(crdlab envtest --kubernetes 1.35)), and shows that
// the difference is real: a CRD whose validation rule 1.37 accepts is
// refused by 1.35's apiserver, with its own message, in envtest's Start,
// where an operator's suite would meet it.
package versions

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// refused is what Kubernetes 1.35's apiserver says of the rule of
// testdata/crds (the estimated cost with metadata.name of any length).
const refused = `spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule: Forbidden: ` +
	`estimated rule cost exceeds budget by factor of 2.0x (try simplifying the rule, ` +
	`or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`

// notFound is kubeminor.ErrNotFound's text: crdlab envtest --kubernetes
// found no components executable for the minor (make components K8S=1.35).
const notFound = "components executable not found"

// assets returns the binary assets folder 'crdlab envtest --kubernetes
// minor' prints; it skips the test when crdlab has no components for the
// minor, saying so, and fails it on any other error.
func assets(t *testing.T, minor string) string {
	t.Helper()
	crdlab := os.Getenv("CRDLAB_BINARY")
	if crdlab == "" {
		t.Fatal("CRDLAB_BINARY must name the crdlab binary (make test-modules sets it)")
	}
	cmd := exec.Command(crdlab, "envtest", "--kubernetes", minor)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if strings.Contains(stderr.String(), notFound) {
			t.Skipf("no Kubernetes %s components: %s", minor, strings.TrimSpace(stderr.String()))
		}
		t.Fatalf("crdlab envtest --kubernetes %s: %v\n%s", minor, err, stderr.Bytes())
	}
	return strings.TrimSpace(string(out))
}

// start starts envtest on the assets of minor, as KUBEBUILDER_ASSETS
// points a suite at them, with the project's CRDs and testdata/crds, and
// checks that its kube-apiserver is that minor's. It returns the
// environment (stopped when the test ends) and Start's error.
func start(t *testing.T, minor string) (*envtest.Environment, error) {
	t.Helper()
	t.Setenv("KUBEBUILDER_ASSETS", assets(t, minor))
	env := &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("..", "..", "config", "crd", "bases"), filepath.Join("testdata", "crds")},
		ErrorIfCRDPathMissing: true,
	}
	_, err := env.Start()
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("stopping envtest on %s: %v", minor, err)
		}
	})
	if env.Config == nil {
		t.Fatalf("envtest on Kubernetes %s did not start: %v", minor, err)
	}
	dc, derr := discovery.NewDiscoveryClientForConfig(env.Config)
	if derr != nil {
		t.Fatal(derr)
	}
	v, derr := dc.ServerVersion()
	if derr != nil {
		t.Fatal(derr)
	}
	if v.Major+"."+v.Minor != minor || !strings.HasPrefix(v.GitVersion, "v"+minor+".") {
		t.Fatalf("envtest on --kubernetes %s runs a kube-apiserver %s (%s.%s)", minor, v.GitVersion, v.Major, v.Minor)
	}
	return env, err
}

func TestKubernetes135RefusesTheRule(t *testing.T) {
	_, err := start(t, "1.35")
	if err == nil {
		t.Fatal("envtest on Kubernetes 1.35 installed testdata/crds: want its rule refused by the apiserver")
	}
	if !apierrors.IsInvalid(err) {
		t.Fatalf("envtest on Kubernetes 1.35: %v; want the apiserver's Invalid", err)
	}
	if !strings.Contains(err.Error(), refused) {
		t.Errorf("Kubernetes 1.35 refused the CRD with %q; want its message %q", err, refused)
	}
}

func TestKubernetes137AcceptsTheRule(t *testing.T) {
	env, err := start(t, "1.37")
	if err != nil {
		t.Fatalf("envtest on Kubernetes 1.37: %v", err)
	}
	c, err := client.New(env.Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	page := func(name string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(schema.GroupVersionKind{Group: "webapp.example.com", Version: "v1", Kind: "GuestbookPage"})
		u.SetName(name)
		u.SetNamespace(metav1.NamespaceDefault)
		return u
	}
	ctx := context.Background()
	if err := c.Create(ctx, page("front-page")); err != nil {
		t.Errorf("creating GuestbookPage front-page: %v", err)
	}
	err = c.Create(ctx, page("front-pageofthisguestbook"))
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "each dash-separated word of the name is at most 15 characters") {
		t.Errorf("creating GuestbookPage front-pageofthisguestbook: %v; want the rule's message", err)
	}
}
