package proc

import (
	"cmp"
	"fmt"
	"net"
)

// PeerUID returns the user ID of the process at the other end of conn, as
// the kernel recorded it when the connection was made (SO_PEERCRED on
// Linux, LOCAL_PEERCRED on macOS).
func PeerUID(conn *net.UnixConn) (int, error) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return 0, fmt.Errorf("unable to read peer credentials: %w", err)
	}
	var uid int
	var uidErr error
	err = raw.Control(func(fd uintptr) { uid, uidErr = peerUID(int(fd)) })
	if err := cmp.Or(err, uidErr); err != nil {
		return 0, fmt.Errorf("unable to read peer credentials: %w", err)
	}
	return uid, nil
}
