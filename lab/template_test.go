package lab

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
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
