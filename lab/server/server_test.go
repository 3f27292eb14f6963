package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crdlab/crdlab/lab/labtest/control"
)

// asClientEnv makes the test binary a client of the control socket in the
// state dir it names: it lists the components and exits 0 on an answer.
const asClientEnv = "CRDLAB_TEST_CONTROL_CLIENT"

func TestMain(m *testing.M) {
	if dir := os.Getenv(asClientEnv); dir != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		// Not Dial: another user cannot read the state dir's status.
		if _, err := control.NewClient(control.Dir(dir)).Components(ctx); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A state dir others can write to is refused, naming it and the fix; one
// only its owner writes to is taken.
func TestLockRefusesAStateDirOthersCanWrite(t *testing.T) {
	for _, tc := range []struct {
		mode os.FileMode
		ok   bool
	}{{0o700, true}, {0o755, true}, {0o775, false}, {0o777, false}, {0o1777, false}} {
		t.Run(fmt.Sprintf("%04o", tc.mode), func(t *testing.T) {
			d := control.Dir(t.TempDir())
			if err := os.Chmod(string(d), tc.mode); err != nil {
				t.Fatal(err)
			}
			unlock, err := Lock(d)
			if tc.ok {
				if err != nil {
					t.Fatalf("Lock: %v", err)
				}
				unlock()
				return
			}
			if !errors.Is(err, ErrUnsafe) {
				t.Fatalf("Lock: %v, want ErrUnsafe", err)
			}
			for _, want := range []string{string(d), "writable by other users", "chmod go-w"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if _, err := os.Stat(d.LockFile()); err == nil {
				t.Error("a refused state dir got a lock file")
			}
		})
	}
}

// The control socket is 0600, and a process of another user gets no answer
// even when the file's mode would let it connect: the server checks the
// peer's credentials.
func TestControlSocketIsOwnerOnly(t *testing.T) {
	// Not t.TempDir(), whose parent only this user can enter.
	tmp, err := os.MkdirTemp("", "crdlab-socket-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	d := control.Dir(tmp)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := serveControl(ctx, d, &fakeLab{}, nil); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(d.ControlSocket())
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("control socket mode %04o, want 0600", perm)
	}
	if out, err := asClient(t, d, nil); err != nil {
		t.Fatalf("the owner is refused: %v\n%s", err, out)
	}

	if os.Getuid() != 0 {
		t.Skip("checking another user needs root (to run a process as nobody); the mode was checked")
	}
	nobody := &syscall.Credential{Uid: 65534, Gid: 65534}
	// Let nobody reach the socket: the folder traversable, then the socket
	// writable by all, as a careless chmod would make it.
	if err := os.Chmod(string(d), 0o711); err != nil {
		t.Fatal(err)
	}
	out, err := asClient(t, d, nobody)
	if err == nil || !strings.Contains(out, "permission denied") {
		t.Errorf("another user through a 0600 socket: %v, want permission denied\n%s", err, out)
	}
	if err := os.Chmod(d.ControlSocket(), 0o666); err != nil {
		t.Fatal(err)
	}
	if out, err := asClient(t, d, nobody); err == nil {
		t.Errorf("another user got an answer through a 0666 socket:\n%s", out)
	}
	if out, err := asClient(t, d, nil); err != nil {
		t.Errorf("the owner is refused after the refusal of another user: %v\n%s", err, out)
	}
}

// asClient runs a copy of the test binary as a client of d's control
// socket, as user cred (nil: this user).
func asClient(t *testing.T, d control.Dir, cred *syscall.Credential) (string, error) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if cred != nil {
		// A copy another user can run: the test binary's folder is private.
		dir, err := os.MkdirTemp("", "crdlab-server-test-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		copyPath := filepath.Join(dir, "client")
		if err := copyFile(self, copyPath); err != nil {
			t.Fatal(err)
		}
		self = copyPath
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), asClientEnv+"="+string(d))
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		cmd.Dir = "/"
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
