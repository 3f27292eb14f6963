package main

import (
	"testing"

	"github.com/crdlab/crdlab/lab/internal/componentstest"
)

// TestExecutable builds crdlab-k8s-1.35 and checks it as crdlab runs it:
// its version JSON, each component's version, kube-apiserver's --help fast
// path, and two boots on crdlab's etcd, the second by the post-start
// hooks' fast path.
func TestExecutable(t *testing.T) {
	want := componentstest.Want{Minor: "1.35", Kubernetes: "v1.35.8"}
	componentstest.Run(t, componentstest.Build(t, want), want)
}
