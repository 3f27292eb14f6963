// Package install gets the crdlab executable for a test suite, from a
// machine that may have nothing but Go.
//
// Find looks, in order, at Options.Binary, $CRDLAB_BINARY and crdlab on
// $PATH; failing those it downloads the crdlab release matching this
// module's own version (or $CRDLAB_VERSION) for this OS and architecture.
// A crdlab on $PATH must be that release ('crdlab version' says): another
// is refused (ErrOtherVersion) rather than run with a labtest it was not
// released with; a development build of this module pins none.
//
// A release is the folder <base>/<version>/ of what 'make release'
// publishes (GitHub's release asset layout; base is $CRDLAB_DOWNLOAD_URL,
// default DefaultDownloadURL): index.json names, for each platform, an
// archive crdlab-<version>-<os>-<arch>.tar.gz, its size and its SHA-256;
// index.json.sig is its ed25519 signature by one of release.Keys, the keys
// compiled into this module (docs/security.md). Download reads the index
// and checks its signature before trusting anything in it, fetches the
// archive from the same folder (so a mirror served anywhere works: the
// signature, not the server, is trusted), no larger than the index says,
// checks its digest before unpacking anything, unpacks no more than the
// index says, and puts it in <cache>/<version>/<os>-<arch>/ (cache: the
// user cache dir's crdlab folder) with crdlab.sha256, the executable's
// digest. A cached executable is served only if it and the cache's
// folders belong to the user (or root) and are not writable by group or
// others (else ErrUntrusted, naming it), and its digest is the recorded
// one (else it is downloaded again).
//
// Downloads are https, or plain http from a loopback address (a test's
// server, a mirror on this machine) or with $CRDLAB_INSECURE_DOWNLOAD=1; a
// redirect from https to http is refused. Each step of a request has a
// timeout, and so has a body that sends nothing; the caller's context
// bounds the whole, the wait for the lock included. It works under a lock file next to that folder, so
// that test packages starting at once download once, the others waiting
// and reusing it; and it unpacks into a temporary folder renamed into place
// only once complete, so a failed check, a cut download or a missing
// platform leaves nothing in the cache (what a killed process left is
// removed by the next, under the lock).
//
// DownloadComponents gets the same way, for a release build of crdlab, the
// components executable crdlab-k8s-<minor> of a Kubernetes minor crdlab
// does not link: the archive the index's "components" names for that minor
// and platform, checked the same way and put in
// <cache>/components/<version>/<os>-<arch>/crdlab-k8s-<minor> (with
// crdlab-k8s-<minor>.sha256), under a lock of its own.
//
// Errors are one line that says what to do, and wrap a sentinel error
// (ErrNotFound, ErrUnreachable, ErrUnknownVersion, ErrNoPlatform,
// ErrDigest, ErrNoVersion, ErrNoComponents, ErrUnsigned, ErrSignature,
// ErrUntrusted, ErrBadRelease) for callers that branch on them.
package install
