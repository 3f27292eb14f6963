package main

import (
	"testing"

	"github.com/crdlab/crdlab/lab/internal/componentstest"
)

// TestExecutable builds crdlab-k8s-1.36 and checks it as crdlab runs it:
// its version JSON, each component's version, kube-apiserver's --help fast
// path, and two boots on crdlab's etcd, the second by the post-start
// hooks' fast path.
func TestExecutable(t *testing.T) {
	want := componentstest.Want{Minor: "1.36", Kubernetes: "v1.36.5"}
	componentstest.Run(t, componentstest.Build(t, want), want)
}
