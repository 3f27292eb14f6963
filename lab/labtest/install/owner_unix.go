//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package install

import (
	"io/fs"
	"syscall"
)

// owner is the user id that owns st's file.
func owner(st fs.FileInfo) (int, bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(sys.Uid), true
}
