package proc

import (
	"bytes"
	"encoding/binary"
)

// argv0 returns argv[0] from macOS's sysctl kern.procargs2: argc (a 32-bit
// integer), the executable's path, NUL padding, then argv and the
// environment, each string NUL-terminated. Empty when there is none.
func argv0(procargs2 []byte) string {
	if len(procargs2) < 4 || binary.LittleEndian.Uint32(procargs2) == 0 {
		return ""
	}
	rest := procargs2[4:]
	end := bytes.IndexByte(rest, 0)
	if end < 0 {
		return ""
	}
	rest = bytes.TrimLeft(rest[end:], "\x00")
	if end := bytes.IndexByte(rest, 0); end >= 0 {
		rest = rest[:end]
	}
	return string(rest)
}
