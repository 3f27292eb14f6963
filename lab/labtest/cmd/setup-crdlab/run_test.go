package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/crdlab/crdlab/lab/labtest/install"
	"github.com/crdlab/crdlab/lab/labtest/internal/releasetest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func setup(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, &out, &errOut)
	return out.String(), errOut.String(), code
}

// isolate clears the variables setup-crdlab reads, and PATH.
func isolate(t *testing.T) {
	t.Helper()
	for _, v := range []string{install.BinaryEnv, install.VersionEnv, install.DownloadURLEnv} {
		t.Setenv(v, "")
	}
	t.Setenv("PATH", t.TempDir())
}

func TestHelp(t *testing.T) {
	out, _, code := setup(t, "--help")
	if code != 0 {
		t.Fatalf("--help exited %d", code)
	}
	golden := filepath.Join("testdata", "help.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("--help printed\n%s\nwant (%s, -update to rewrite)\n%s", out, golden, want)
	}
}

// path and envtest download the release once, from flags or variables.
func TestPathAndEnvtest(t *testing.T) {
	isolate(t)
	rel := releasetest.New(t, releasetest.Options{})
	cache := t.TempDir()
	bin := filepath.Join(cache, releasetest.Version, runtime.GOOS+"-"+runtime.GOARCH, "crdlab")

	out, errOut, code := setup(t, "--version", releasetest.Version, "--download-url", rel.URL(), "--cache-dir", cache, "path")
	if code != 0 || out != bin+"\n" {
		t.Fatalf("path: exit %d, printed %q, want %q\n%s", code, out, bin+"\n", errOut)
	}
	if !strings.Contains(errOut, "downloading crdlab "+releasetest.Version) {
		t.Errorf("path: stderr %q does not say it downloads", errOut)
	}

	// The variables instead of the flags, and a flag after the command.
	t.Setenv(install.VersionEnv, releasetest.Version)
	t.Setenv(install.DownloadURLEnv, rel.URL())
	out, errOut, code = setup(t, "envtest", "--cache-dir", cache)
	if want := filepath.Join(filepath.Dir(bin), "envtest-assets") + "\n"; code != 0 || out != want {
		t.Fatalf("envtest: exit %d, printed %q, want %q (what the binary's envtest prints)\n%s", code, out, want, errOut)
	}
	if n := rel.ArchiveCount(); n != 1 {
		t.Errorf("path then envtest downloaded the archive %d times, want once", n)
	}
}

func TestErrors(t *testing.T) {
	isolate(t)
	for name, tc := range map[string]struct {
		args []string
		code int
		says string
	}{
		"no command":      {code: 2, says: "Usage: setup-crdlab"},
		"unknown command": {args: []string{"install"}, code: 2, says: `unexpected "install"`},
		"unknown version": {args: []string{"--version", "v0.0.1", "--download-url", releasetest.New(t, releasetest.Options{}).URL(), "--cache-dir", t.TempDir(), "path"},
			code: 1, says: "unknown crdlab version v0.0.1"},
	} {
		out, errOut, code := setup(t, tc.args...)
		if code != tc.code || out != "" || !strings.Contains(errOut, tc.says) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d, nothing on stdout, stderr saying %q", name, code, out, errOut, tc.code, tc.says)
		}
	}
}
