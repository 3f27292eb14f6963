package lab

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/crdlab/crdlab/lab/internal/proc"
	"github.com/crdlab/crdlab/lab/multicall"
)

// TestCopyFileIsSparse: the copy has src's bytes and size, and no blocks
// where src has whole MiBs of zeros (etcd's preallocated WAL).
func TestCopyFileIsSparse(t *testing.T) {
	const mib = 1 << 20
	var content []byte
	content = append(content, bytes.Repeat([]byte("wal record "), 1000)...)
	content = append(content, make([]byte, 3*mib)...)
	content = append(content, []byte("more records")...)
	content = append(content, make([]byte, 8*mib+123)...)
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src"), filepath.Join(dir, "dst")
	if err := os.WriteFile(src, content, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := copyFile(src, dst); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, content) {
		t.Fatalf("copy differs: %d bytes, want %d", len(got), len(content))
	}
	var st syscall.Stat_t
	if err := syscall.Stat(dst, &st); err != nil {
		t.Fatal(err)
	}
	if allocated := st.Blocks * 512; allocated > 4*mib {
		t.Errorf("copy of %d bytes, mostly zeros, has %d bytes allocated: not sparse", len(content), allocated)
	}
	if err := copyFile(src, dst); err == nil {
		t.Error("copied over an existing file")
	}
}

// makeTemplate boots this program's etcd and kube-apiserver on a fresh
// data dir, keeps the bootstrapped data and leaves no process.
func TestMakeTemplate(t *testing.T) {
	if testing.Short() {
		t.Skip("boots a control plane")
	}
	bin, err := multicall.Link(filepath.Join(t.TempDir(), "bin"))
	if err != nil {
		t.Fatal(err)
	}
	before, err := proc.Children(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	tmpl := filepath.Join(t.TempDir(), "cache", "etcd-bootstrapped")
	opts := Options{}
	opts.defaults()
	if err := makeTemplate(context.Background(), tmpl, bin, opts); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(tmpl, "member", "snap", "db")); err != nil {
		t.Errorf("the template has no etcd data: %v", err)
	}
	after, err := proc.Children(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(after, before) {
		t.Errorf("child processes %v after making the template, %v before", after, before)
	}
}
