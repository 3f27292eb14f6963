package proc

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestPeerUIDOfASocketPairIsThisUser(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		f := os.NewFile(uintptr(fd), "socketpair")
		conn, err := net.FileConn(f)
		_ = f.Close()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = conn.Close() })
		uid, err := PeerUID(conn.(*net.UnixConn))
		if err != nil {
			t.Fatal(err)
		}
		if uid != os.Getuid() {
			t.Errorf("PeerUID = %d, want %d (os.Getuid)", uid, os.Getuid())
		}
	}
}

// Run as root, a process of another user connects: PeerUID says who.
func TestPeerUIDOfAnotherUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("only root can run a process as another user")
	}
	const nobody = 65534
	dir, err := os.MkdirTemp("", "peer")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	if err := os.Chmod(path, 0o777); err != nil {
		t.Fatal(err)
	}

	peer := helper("peer", "PROC_TEST_SOCKET="+path, "PROC_TEST_UID="+strconv.Itoa(nobody))
	if err := peer.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = peer.Process.Kill(); _ = peer.Wait() })
	if err := l.SetDeadline(time.Now().Add(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	conn, err := l.AcceptUnix()
	if err != nil {
		t.Fatalf("no connection from the peer: %v", err)
	}
	defer conn.Close()
	uid, err := PeerUID(conn)
	if err != nil {
		t.Fatal(err)
	}
	if uid != nobody {
		t.Errorf("PeerUID = %d, want %d", uid, nobody)
	}
}
