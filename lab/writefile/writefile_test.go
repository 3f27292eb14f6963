package writefile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Atomic replaces a file whole, with the mode asked, and leaves no
// temporary file behind.
func TestAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "lab.json")
	for _, content := range []string{"first\n", "second, longer\n"} {
		if err := Atomic(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil || string(data) != content {
			t.Fatalf("read %q, %v; want %q", data, err, content)
		}
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%s holds %d files, want lab.json alone", dir, len(entries))
	}
	if err := Atomic(filepath.Join(dir, "missing", "f"), nil, 0o600); err == nil {
		t.Error("Atomic in a missing folder succeeded")
	}
	// The mode asked wins over the replaced file's and the umask.
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := Atomic(path, []byte("third\n"), 0o606); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o606 {
		t.Errorf("mode %v, %v; want 0606", fi.Mode().Perm(), err)
	}
	// A write that cannot be put in place (a folder is there) fails,
	// naming the path, and leaves no temporary file.
	busy := filepath.Join(dir, "busy")
	if err := os.MkdirAll(filepath.Join(busy, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := Atomic(busy, []byte("x"), 0o600); err == nil || !strings.Contains(err.Error(), busy) {
		t.Errorf("Atomic over a folder: %v, want an error naming %s", err, busy)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("%s holds %d files, want lab.json and busy", dir, len(entries))
	}
}

// EnsureWritable creates the folder, and fails on one it cannot write to.
func TestEnsureWritable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	if err := EnsureWritable(dir); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("%s not created: %v", dir, err)
	}
	if os.Getuid() == 0 {
		t.Skip("root writes everywhere")
	}
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.Chmod(dir, 0o700); err != nil {
			t.Error(err)
		}
	})
	if err := EnsureWritable(dir); err == nil {
		t.Errorf("EnsureWritable(%s) on a read-only folder succeeded", dir)
	}
}
