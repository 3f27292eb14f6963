package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/scenarios"
)

// Issue 37: the lesson's socket, learn.sock, is as private as the control
// socket: mode 0600, and a process of another user gets no hint even when
// the socket's mode would let it connect (its credentials are checked).
func TestLearnSocketIsOwnerOnly(t *testing.T) {
	// Not t.TempDir(), whose parent only this user can enter.
	tmp, err := os.MkdirTemp("", "crdlab-learn-socket-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	sd := control.Dir(tmp)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hints := make(chan scenarios.HintRequest)
	go func() {
		for {
			select {
			case h := <-hints:
				h.Reply <- "the secret hint"
			case <-ctx.Done():
				return
			}
		}
	}()
	stop, err := serveHints(ctx, sd, hints, lang.EN)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	fi, err := os.Stat(sd.LearnSocket())
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("%s mode %04o, want 0600", sd.LearnSocket(), perm)
	}
	var out bytes.Buffer
	if err := askHint(ctx, &out, sd, lang.EN); err != nil || !strings.Contains(out.String(), "the secret hint") {
		t.Fatalf("the owner asks for a hint: %q, %v", out.String(), err)
	}

	if os.Getuid() != 0 {
		t.Skip("asking as another user needs root (to run a process as nobody); the mode was checked")
	}
	// Let nobody reach the socket: the folder traversable, the socket
	// writable by all, as a careless chmod would make it.
	if err := os.Chmod(tmp, 0o711); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(sd.LearnSocket(), 0o666); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A copy nobody can run: the test binary's folder is private.
	bin := filepath.Join(t.TempDir(), "crdlab")
	if err := copyExecutable(self, bin); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(bin)
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.CommandContext(ctx, bin, "learn", "hint", "--state-dir", tmp)
	cmd.Env = append(os.Environ(), asMainEnv+"=1", "HOME="+tmp)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	got, err := cmd.CombinedOutput()
	if err == nil || strings.Contains(string(got), "the secret hint") {
		t.Errorf("another user asked for a hint through a 0666 socket: %v\n%s", err, got)
	}
	out.Reset()
	if err := askHint(ctx, &out, sd, lang.EN); err != nil || !strings.Contains(out.String(), "the secret hint") {
		t.Errorf("the owner after another user's refusal: %q, %v", out.String(), err)
	}
}

func copyExecutable(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
