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
// archive crdlab-<version>-<os>-<arch>.tar.gz and its SHA-256. Download
// reads the index, fetches the archive from the same folder (so a mirror
// served anywhere works), checks its digest before unpacking anything, and
// unpacks it into <cache>/<version>/<os>-<arch>/ (cache: the user cache
// dir's crdlab folder). It works under a lock file next to that folder, so
// that test packages starting at once download once, the others waiting
// and reusing it; and it unpacks into a temporary folder renamed into place
// only once complete, so a failed check, a cut download or a missing
// platform leaves nothing in the cache.
//
// DownloadComponents gets the same way, for a release build of crdlab, the
// components executable crdlab-k8s-<minor> of a Kubernetes minor crdlab
// does not link: the archive the index's "components" names for that minor
// and platform, checked by SHA-256 and put in
// <cache>/components/<version>/crdlab-k8s-<minor>, under a lock of its
// own.
//
// Errors are one line that says what to do, and wrap a sentinel error
// (ErrNotFound, ErrUnreachable, ErrUnknownVersion, ErrNoPlatform,
// ErrDigest, ErrNoVersion, ErrNoComponents) for callers that branch on
// them.
package install
