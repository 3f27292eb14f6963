package kubeminor

import (
	"context"
	"errors"
	"fmt"
)

// ErrNoDownload: this crdlab has no release to download components from.
var ErrNoDownload = errors.New("no components download for this build")

// download fetches minor's components executable of crdlab release version
// into dest (step 3 of Find), checked by its SHA-256 against the release's
// index.json. Find calls it only for a release build, when no executable
// was found elsewhere.
//
// The release download is lab/internal/release's and lab/labtest/install's
// (issue 31's kdist part); until it lands here, a release build reports
// that it has none.
func download(_ context.Context, minor, version, dest string) error {
	_ = dest
	return fmt.Errorf("%w: crdlab %s: crdlab-k8s-%s: build it with 'make components K8S=%s'", ErrNoDownload, version, minor, minor)
}
