// Package kubeminor chooses the Kubernetes minor a lab serves and finds the
// executable that runs it.
//
// crdlab serves the Kubernetes minors of minors.txt, their one list
// (Supported, Releases). BuiltIn is built into crdlab itself; each other
// minor's kube-apiserver, kube-controller-manager,
// kube-scheduler and kubectl are in a components executable of their own,
// crdlab-k8s-<minor> (built by 'make components K8S=<minor>', or published
// with each release). etcd always comes from crdlab: its etcd serves every
// supported minor.
//
// ParseVersion is crdlab's one reader of a Kubernetes version, a minor
// (1.36), a release (v1.36.5) or what a server reports (v1.36.5+abc):
// minors.txt's reader, Parse, Of, Older, WithinSkew and the tools go
// through it. Parse reads a version as --kubernetes and
// CRDLAB_KUBERNETES_VERSION give it (1.36, v1.36, or the exact patch
// served, 1.36.5). Find looks for
// crdlab-k8s-<minor>, first hit wins:
//
//  1. $CRDLAB_COMPONENTS_DIR/crdlab-k8s-<minor> when that variable is set;
//  2. next to crdlab's own executable (symbolic links resolved);
//  3. the user cache, <UserCacheDir>/crdlab/components/<crdlab
//     version>/<os>-<arch>/crdlab-k8s-<minor>, served only once
//     lab/labtest/install checked its owner, mode and recorded SHA-256,
//     and downloaded there from crdlab's signed release when crdlab is a
//     release build (download.go).
//
// Nothing found is run before it is trusted (trust.go): the executable and
// its folder must belong to the current user or root and be writable by
// no one else, and a release build of crdlab runs only its release's
// executables, by their SHA-256 linked into it (make release). Otherwise
// ErrUntrusted names the path, why, and what to do. Then the executable
// is asked its version ('crdlab-k8s-1.36 version', one JSON object) and
// refused when it serves another minor or, for a build from a checkout
// that knows its commit, was built from another commit.
package kubeminor
