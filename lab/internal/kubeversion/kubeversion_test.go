package kubeversion

import (
	"os"
	"regexp"
	"testing"

	clientversion "k8s.io/client-go/pkg/version"
	"k8s.io/component-base/version"
)

func TestKubernetesMatchesGoMod(t *testing.T) {
	data, err := os.ReadFile("../../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*k8s.io/kubernetes (v\S+)`).FindSubmatch(data)
	if m == nil {
		t.Fatal("go.mod requires no k8s.io/kubernetes")
	}
	if string(m[1]) != Kubernetes {
		t.Errorf("Kubernetes = %q, go.mod requires %s: update the constant", Kubernetes, m[1])
	}
}

func TestSet(t *testing.T) {
	Set()
	if got := version.Get(); got.GitVersion != Kubernetes || got.Major != "1" || got.Minor != "37" {
		t.Errorf("component-base version %+v, want %s", got, Kubernetes)
	}
	if got := clientversion.Get().GitVersion; got != Kubernetes {
		t.Errorf("client-go version %q, want %s", got, Kubernetes)
	}
}
