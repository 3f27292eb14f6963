package install

import (
	"fmt"
	"os"
)

// place puts tmp, a file or a folder written whole next to dst (unpack
// syncs every file it writes), at dst in one rename: a reader sees
// nothing at dst or all of it, never a part. It is the module's one atomic
// write: the crdlab module's is its lab/writefile, which this module
// (standard library only) cannot import. what names the content in the
// error; the caller removes tmp if it fails.
func place(tmp, dst, what string) error {
	if err := os.Rename(tmp, dst); err != nil {
		return fmt.Errorf("unable to put %s in %s: %w", what, dst, err)
	}
	return nil
}
