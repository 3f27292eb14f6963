package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEnvtestLaysOutAssets(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	self, _ = filepath.EvalSymlinks(self)
	for name, args := range map[string][]string{
		"--dir":        {"envtest", "--dir", filepath.Join(t.TempDir(), "k8s")},
		"cache folder": {"envtest"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("XDG_CACHE_HOME", t.TempDir())
			var out bytes.Buffer
			cmd := newRootCommand()
			cmd.SetArgs(args)
			cmd.SetOut(&out)
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			dir := strings.TrimSpace(out.String())
			if !filepath.IsAbs(dir) || strings.Contains(dir, "\n") {
				t.Fatalf("envtest printed %q, want one absolute path", out.String())
			}
			if name == "cache folder" && !strings.HasPrefix(dir, os.Getenv("XDG_CACHE_HOME")+"/crdlab/envtest/k8s-") {
				t.Errorf("assets folder %s is not in the user's cache dir", dir)
			}
			for _, bin := range []string{"etcd", "kube-apiserver", "kubectl"} {
				target, err := os.Readlink(filepath.Join(dir, bin))
				if err != nil || target != self {
					t.Errorf("%s/%s: %q (%v), want a link to %s", dir, bin, target, err, self)
				}
			}
			// Again: the same folder, still good.
			out.Reset()
			cmd = newRootCommand()
			cmd.SetArgs(args)
			cmd.SetOut(&out)
			if err := cmd.Execute(); err != nil || strings.TrimSpace(out.String()) != dir {
				t.Errorf("second run: %q, %v; want %s", out.String(), err, dir)
			}
		})
	}
	t.Run("unwritable --dir", func(t *testing.T) {
		cmd := newRootCommand()
		cmd.SetArgs([]string{"envtest", "--dir", "/proc/crdlab-assets"})
		cmd.SetOut(&bytes.Buffer{})
		err := cmd.Execute()
		if err == nil || !strings.Contains(err.Error(), "--dir /proc/crdlab-assets") {
			t.Errorf("envtest --dir /proc/...: %v, want an error naming --dir", err)
		}
	})
}
