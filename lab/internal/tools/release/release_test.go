package main

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

const testVersion = "v1.2.3-test+0123abcd"

var host = Platform{OS: runtime.GOOS, Arch: runtime.GOARCH}

// testRelease packages a release of fake binaries for this machine's
// platform and darwin/arm64 (or linux/amd64 on a Mac) into a temporary
// folder. The host's crdlab is a shell script that prints printed as its
// version, as "crdlab version" does. Each of with changes the options
// (and writes more binaries) before Package.
func testRelease(t *testing.T, printed string, with ...func(*Options)) Options {
	t.Helper()
	tmp := t.TempDir()
	other := Platform{OS: "darwin", Arch: "arm64"}
	if host == other {
		other = Platform{OS: "linux", Arch: "amd64"}
	}
	opts := Options{
		Version:      testVersion,
		BinDir:       filepath.Join(tmp, "bin"),
		Dir:          filepath.Join(tmp, "dist", testVersion),
		BaseURL:      "https://example.com/releases/download",
		License:      filepath.Join(tmp, "LICENSE"),
		Readme:       filepath.Join(tmp, "README.md"),
		Platforms:    []Platform{host, other},
		ModTime:      time.Unix(1700000000, 0),
		SigningKey:   testSigningKey(t),
		AllowTestKey: true,
	}
	write(t, opts.License, "the license\n", 0o600)
	write(t, opts.Readme, "# crdlab\n", 0o600)
	write(t, filepath.Join(opts.BinDir, host.OS+"-"+host.Arch, "crdlab"),
		"#!/bin/sh\n[ \"$1\" = version ] || exit 2\necho 'crdlab:             "+printed+"'\necho 'kubernetes:         v1.37.2'\n", 0o700)
	write(t, filepath.Join(opts.BinDir, other.OS+"-"+other.Arch, "crdlab"), "not for this machine", 0o600)
	for _, w := range with {
		w(&opts)
	}
	if err := Package(opts); err != nil {
		t.Fatalf("Package: %v", err)
	}
	return opts
}

// testSigningKey is the private half of the labtest module's test key.
func testSigningKey(t *testing.T) ed25519.PrivateKey {
	t.Helper()
	key, err := readSigningKey(testSigningKeyFile)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// testSigningKeyFile is what make release signs with outside the release
// workflow.
const testSigningKeyFile = "../../../labtest/internal/releasetest/testdata/test-only-release-signing-key.pem"

func write(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

// TestPackage reads what Package wrote with the standard library alone:
// each archive's entries, modes and contents, its digest in SHA256SUMS
// and in index.json, whose shape is the one downloaders parse.
func TestPackage(t *testing.T) {
	opts := testRelease(t, testVersion)

	sums := map[string]string{}
	f, err := os.Open(filepath.Join(opts.Dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(sum) != 64 {
			t.Fatalf("SHA256SUMS line %q: want <hex>  <name>", sc.Text())
		}
		sums[name] = sum
	}

	var index map[string]map[string]map[string]map[string]any
	data, err := os.ReadFile(filepath.Join(opts.Dir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &index); err != nil {
		t.Fatalf("index.json: %v\n%s", err, data)
	}
	wantIndex := map[string]map[string]map[string]map[string]any{"releases": {testVersion: {}}}

	for _, p := range opts.Platforms {
		name := "crdlab-" + testVersion + "-" + p.OS + "-" + p.Arch + ".tar.gz"
		path := filepath.Join(opts.Dir, name)
		content, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		digest := sha256.Sum256(content)
		sum := hex.EncodeToString(digest[:])
		if sums[name] != sum {
			t.Errorf("SHA256SUMS lists %q for %s, its SHA-256 is %s", sums[name], name, sum)
		}
		bin, err := os.ReadFile(filepath.Join(opts.BinDir, p.OS+"-"+p.Arch, "crdlab"))
		if err != nil {
			t.Fatal(err)
		}
		wantIndex["releases"][testVersion][name] = map[string]any{
			"os": p.OS, "arch": p.Arch, "sha256": sum,
			"size": float64(len(content)), "unpackedSize": float64(len(bin) + len("the license\n") + len("# crdlab\n")),
			"url": "https://example.com/releases/download/" + testVersion + "/" + name,
		}
		want := []tarEntry{
			{"crdlab", 0o755, string(bin)},
			{"LICENSE", 0o644, "the license\n"},
			{"README.md", 0o644, "# crdlab\n"},
		}
		if got := untar(t, path); !reflect.DeepEqual(got, want) {
			t.Errorf("%s holds\n%+v\nwant\n%+v", name, got, want)
		}
	}
	if len(sums) != len(opts.Platforms) {
		t.Errorf("SHA256SUMS has %d lines, want one per archive (%d): %v", len(sums), len(opts.Platforms), sums)
	}
	if !reflect.DeepEqual(index, wantIndex) {
		t.Errorf("index.json:\n%s\nwant %+v", data, wantIndex)
	}
}

type tarEntry struct {
	Name    string
	Mode    int64
	Content string
}

func untar(t *testing.T, path string) []tarEntry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	tr := tar.NewReader(zr)
	var entries []tarEntry
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return entries
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		content, err := io.ReadAll(tr)
		if err != nil {
			t.Fatalf("%s: %s: %v", path, hdr.Name, err)
		}
		if hdr.Typeflag != tar.TypeReg || hdr.Uid != 0 || hdr.Gid != 0 || !hdr.ModTime.Equal(time.Unix(1700000000, 0)) {
			t.Errorf("%s: %s: type %q, uid %d, gid %d, time %v: want a regular file of root's at the given time", path, hdr.Name, hdr.Typeflag, hdr.Uid, hdr.Gid, hdr.ModTime)
		}
		entries = append(entries, tarEntry{hdr.Name, hdr.Mode, string(content)})
	}
}

// TestPackageIsReproducible: the same binaries give the same archives.
func TestPackageIsReproducible(t *testing.T) {
	a := testRelease(t, testVersion)
	b := a
	b.Dir = filepath.Join(t.TempDir(), testVersion)
	if err := Package(b); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"SHA256SUMS", "index.json"} {
		x, errX := os.ReadFile(filepath.Join(a.Dir, f))
		y, errY := os.ReadFile(filepath.Join(b.Dir, f))
		if errX != nil || errY != nil || string(x) != string(y) {
			t.Errorf("two packagings of the same binaries differ in %s (%v, %v):\n%s\n%s", f, errX, errY, x, y)
		}
	}
}

// TestVerify: a release as packaged checks out; each thing that can go
// wrong with one is found, as the error its caller can tell.
func TestVerify(t *testing.T) {
	ctx := context.Background()
	if err := Verify(ctx, testRelease(t, testVersion), true); err != nil {
		t.Fatalf("Verify of a release as packaged: %v", err)
	}
	hostArchive := ArchiveName(testVersion, host)
	for _, tc := range []struct {
		name    string
		printed string                            // what the host's crdlab prints as its version
		spoil   func(t *testing.T, opts *Options) // what goes wrong after packaging, signed again
		want    error
	}{
		{"tampered archive", testVersion, func(t *testing.T, opts *Options) {
			appendTo(t, filepath.Join(opts.Dir, hostArchive), "x")
		}, ErrSums},
		{"digest in the index only", testVersion, func(t *testing.T, opts *Options) {
			replaceIn(t, filepath.Join(opts.Dir, "index.json"), `"sha256": "`, `"sha256": "0`)
		}, ErrIndex},
		{"url elsewhere", testVersion, func(t *testing.T, opts *Options) {
			replaceIn(t, filepath.Join(opts.Dir, "index.json"), "example.com", "example.org")
		}, ErrIndex},
		{"missing platform", testVersion, func(t *testing.T, opts *Options) {
			opts.Platforms = append(opts.Platforms, Platform{OS: "linux", Arch: "riscv64"})
		}, ErrArchive},
		{"another README", testVersion, func(t *testing.T, opts *Options) {
			write(t, opts.Readme, "# another\n", 0o644)
		}, ErrArchive},
		{"SHA256SUMS malformed", testVersion, func(t *testing.T, opts *Options) {
			appendTo(t, filepath.Join(opts.Dir, "SHA256SUMS"), "not a digest\n")
		}, ErrSums},
		{"another version", "v0.0.0-dev+ffff", func(*testing.T, *Options) {}, ErrVersion},
		{"no archive to run", testVersion, func(t *testing.T, opts *Options) {
			opts.Platforms = opts.Platforms[1:]
			if err := os.Remove(filepath.Join(opts.Dir, hostArchive)); err != nil {
				t.Fatal(err)
			}
			rewriteForOthers(t, opts, hostArchive)
		}, ErrVersion},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := testRelease(t, tc.printed)
			tc.spoil(t, &opts)
			if err := sign(opts.Dir, opts.SigningKey); err != nil {
				t.Fatal(err)
			}
			err := Verify(ctx, opts, true)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Verify: %v, want %v", err, tc.want)
			}
			t.Log(err)
		})
	}
}

// TestVerifySignatures: a release is checked only once index.json and
// SHA256SUMS are signed by a release key (or the test key when it is
// allowed); a missing signature, another key's, a file edited after
// signing, and the test key's when not allowed are each refused.
func TestVerifySignatures(t *testing.T) {
	ctx := context.Background()
	_, other, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		spoil func(t *testing.T, opts *Options)
		says  string
	}{
		{"index.json unsigned", func(t *testing.T, opts *Options) {
			if err := os.Remove(filepath.Join(opts.Dir, "index.json.sig")); err != nil {
				t.Fatal(err)
			}
		}, "holds"}, // checkFolder finds it missing first
		{"SHA256SUMS signed by another key", func(t *testing.T, opts *Options) {
			if err := sign(opts.Dir, other); err != nil {
				t.Fatal(err)
			}
		}, "matches none of the trusted keys"},
		{"index.json edited after signing", func(t *testing.T, opts *Options) {
			replaceIn(t, filepath.Join(opts.Dir, "index.json"), `"sha256": "`, `"sha256": "0`)
		}, "index.json.sig: bad release signature: it matches none of the trusted keys"},
		{"the test key not allowed", func(t *testing.T, opts *Options) {
			opts.AllowTestKey = false
		}, "test-only key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := testRelease(t, testVersion)
			tc.spoil(t, &opts)
			err := Verify(ctx, opts, false)
			if err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("Verify: %v, want an error saying %q", err, tc.says)
			}
			if !strings.Contains(tc.name, "unsigned") && !errors.Is(err, ErrSignature) {
				t.Errorf("Verify: %v, want %v", err, ErrSignature)
			}
			t.Log(err)
		})
	}
	t.Run("a key no crdlab trusts signs nothing", func(t *testing.T) {
		opts := testRelease(t, testVersion)
		opts.Dir, opts.SigningKey = filepath.Join(t.TempDir(), testVersion), other
		if err := Package(opts); err == nil || !strings.Contains(err.Error(), "none of lab/labtest/release's Keys") {
			t.Errorf("Package with an unknown key: %v", err)
		}
	})
}

// TestVerifyArchiveMode: a crdlab that is not executable is found.
func TestVerifyArchiveMode(t *testing.T) {
	opts := testRelease(t, testVersion)
	entries, err := readArchive(filepath.Join(opts.Dir, ArchiveName(testVersion, host)))
	if err != nil {
		t.Fatal(err)
	}
	license, readme := []byte("the license\n"), []byte("# crdlab\n")
	if err := checkEntries("a", entries, license, readme); err != nil {
		t.Fatalf("the entries as packaged: %v", err)
	}
	e := entries["crdlab"]
	e.mode = 0o644
	entries["crdlab"] = e
	if err := checkEntries("a", entries, license, readme); !errors.Is(err, ErrArchive) {
		t.Errorf("crdlab 0644: %v, want %v", err, ErrArchive)
	}
	delete(entries, "crdlab")
	entries["bin/crdlab"] = e
	if err := checkEntries("a", entries, license, readme); !errors.Is(err, ErrArchive) {
		t.Errorf("crdlab not at the top: %v, want %v", err, ErrArchive)
	}
}

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func replaceIn(t *testing.T, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s lacks %q", path, old)
	}
	write(t, path, strings.Replace(string(data), old, new, 1), 0o644)
}

// rewriteForOthers removes name from SHA256SUMS and index.json, as if it
// had never been packaged.
func rewriteForOthers(t *testing.T, opts *Options, name string) {
	t.Helper()
	sumsPath := filepath.Join(opts.Dir, "SHA256SUMS")
	data, err := os.ReadFile(sumsPath)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if !strings.HasSuffix(strings.TrimSpace(l), name) {
			kept = append(kept, l)
		}
	}
	write(t, sumsPath, strings.Join(kept, ""), 0o644)
	indexPath := filepath.Join(opts.Dir, "index.json")
	var index Index
	data, err = os.ReadFile(indexPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &index); err != nil {
		t.Fatal(err)
	}
	delete(index.Releases[opts.Version], name)
	data, err = json.Marshal(index)
	if err != nil {
		t.Fatal(err)
	}
	write(t, indexPath, string(data), 0o644)
}
