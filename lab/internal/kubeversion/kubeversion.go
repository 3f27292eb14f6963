// Package kubeversion gives the Kubernetes components compiled into crdlab
// the version they are: the k8s.io/kubernetes module's. Kubernetes' own
// build sets it with -ldflags -X; a plain 'go build' (or 'go test') leaves
// "v0.0.0-master+$Format:%H$", which kube-apiserver then reports on
// /version and which clients that parse it refuse (Kubernetes' e2e
// framework among them).
package kubeversion

import (
	"runtime/debug"
	"strconv"
	"sync/atomic"
	_ "unsafe" // go:linkname

	_ "k8s.io/client-go/pkg/version"  // initialized before Set
	_ "k8s.io/component-base/version" // initialized before Set

	"github.com/crdlab/crdlab/lab/kubeminor"
)

// The variables Kubernetes' build sets with -ldflags -X, reached with a
// linkname each; lab/internal/tools/linkname's TestUpstreamSignatures fails if
// one's type differs from upstream's in the main module or any components
// module.
//
//go:linkname gitVersion k8s.io/component-base/version.gitVersion
var gitVersion string

// dynamicGitVersion is what version.Get reports, copied from gitVersion
// at init.
//
//go:linkname dynamicGitVersion k8s.io/component-base/version.dynamicGitVersion
var dynamicGitVersion atomic.Value

//go:linkname gitMajor k8s.io/component-base/version.gitMajor
var gitMajor string

//go:linkname gitMinor k8s.io/component-base/version.gitMinor
var gitMinor string

//go:linkname gitCommit k8s.io/component-base/version.gitCommit
var gitCommit string

//go:linkname gitTreeState k8s.io/component-base/version.gitTreeState
var gitTreeState string

//go:linkname clientGitVersion k8s.io/client-go/pkg/version.gitVersion
var clientGitVersion string

//go:linkname clientGitMajor k8s.io/client-go/pkg/version.gitMajor
var clientGitMajor string

//go:linkname clientGitMinor k8s.io/client-go/pkg/version.gitMinor
var clientGitMinor string

// Kubernetes is the k8s.io/kubernetes version of crdlab's go.mod, for
// programs without build information on their modules ('go test'
// binaries): the built-in line of minors.txt, which go.mod follows
// (minorgen writes it; minorgen -check fails when they differ).
var Kubernetes = kubeminor.Patch(kubeminor.BuiltIn)

// Set sets the components' version to the k8s.io/kubernetes module's (a
// version -ldflags already set is kept). Call it before a component starts.
func Set() {
	v := Module()
	m, ok := kubeminor.ParseVersion(v)
	if !ok || !m.V || gitVersion != "v0.0.0-master+$Format:%H$" {
		return
	}
	minor := strconv.Itoa(m.Number)
	gitVersion, gitMajor, gitMinor, gitTreeState = v, "1", minor, "clean"
	gitCommit = ""
	dynamicGitVersion.Store(v)
	clientGitVersion, clientGitMajor, clientGitMinor = v, "1", minor
}

// Module returns the version of the k8s.io/kubernetes module this program
// was built with (Kubernetes when it has no build information).
func Module() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Kubernetes
	}
	for _, d := range info.Deps {
		if d.Path == "k8s.io/kubernetes" {
			if d.Replace != nil {
				return d.Replace.Version
			}
			return d.Version
		}
	}
	return Kubernetes
}
