//go:build unix

package kubeminor

import (
	"io/fs"
	"os"
	"syscall"
)

// ownerModes says the mode's group and other bits mean what they say.
const ownerModes = true

// owner returns the uid that owns st's file, and whether it is the current
// user or root.
func owner(st fs.FileInfo) (uid int, mine, ok bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false, false
	}
	uid = int(sys.Uid)
	return uid, uid == 0 || uid == os.Getuid(), true
}
