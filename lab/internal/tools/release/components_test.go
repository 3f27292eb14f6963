package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// withComponents releases the components of 1.35 for this machine's
// platform and the other one: the host's crdlab-k8s-1.35 is a shell script
// that prints printed as "version" does.
func withComponents(printed string) func(*Options) {
	return func(opts *Options) {
		opts.Components = []string{"1.35"}
		opts.ComponentPlatforms = opts.Platforms
		for _, p := range opts.Platforms {
			path := filepath.Join(opts.BinDir, p.OS+"-"+p.Arch, "crdlab-k8s-1.35")
			content := "not for this machine"
			if p == host {
				content = "#!/bin/sh\n[ \"$1\" = version ] || exit 2\necho '" + printed + "'\n"
			}
			if err := os.WriteFile(path, []byte(content), 0o700); err != nil {
				panic(err)
			}
		}
	}
}

const componentsPrinted = `{"crdlab":"` + testVersion + `","kubernetes":"v1.35.8","go":"go1.26.0"}`

// TestPackageComponents: each minor's components for each platform are an
// archive of their own (crdlab-k8s-1.35, LICENSE, README.md), in SHA256SUMS
// and under index.json's "components"; "releases" lists crdlab's archives
// alone, as before, so that a downloader that knows only "releases" still
// finds crdlab.
func TestPackageComponents(t *testing.T) {
	opts := testRelease(t, testVersion, withComponents(componentsPrinted))
	data, err := os.ReadFile(filepath.Join(opts.Dir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var index map[string]map[string]map[string]map[string]any
	if err := json.Unmarshal(data, &index); err != nil {
		t.Fatalf("index.json: %v\n%s", err, data)
	}
	sums, err := os.ReadFile(filepath.Join(opts.Dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := parseSums(sums)
	if err != nil {
		t.Fatal(err)
	}
	if len(parsed) != 4 {
		t.Errorf("SHA256SUMS has %d lines, want 4 (crdlab and crdlab-k8s-1.35 for two platforms):\n%s", len(parsed), sums)
	}
	for _, p := range opts.Platforms {
		crdlab := ArchiveName(testVersion, p)
		if _, ok := index["releases"][testVersion][crdlab]; !ok || len(index["releases"][testVersion]) != 2 {
			t.Errorf("index.json's releases list %v, want crdlab's two archives alone", index["releases"][testVersion])
		}
		name := "crdlab-k8s-1.35-" + testVersion + "-" + p.OS + "-" + p.Arch + ".tar.gz"
		sum, size, err := fileSHA256(filepath.Join(opts.Dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if parsed[name] != sum {
			t.Errorf("SHA256SUMS lists %q for %s, its SHA-256 is %s", parsed[name], name, sum)
		}
		bin, err := os.ReadFile(filepath.Join(opts.BinDir, p.OS+"-"+p.Arch, "crdlab-k8s-1.35"))
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"kubernetes": "1.35", "os": p.OS, "arch": p.Arch, "sha256": sum,
			"size": float64(size), "unpackedSize": float64(len(bin) + len("the license\n") + len("# crdlab\n")),
			"url": "https://example.com/releases/download/" + testVersion + "/" + name}
		if got := index["components"][testVersion][name]; !reflect.DeepEqual(got, want) {
			t.Errorf("index.json lists %s as %v, want %v", name, got, want)
		}
		wantEntries := []tarEntry{
			{"crdlab-k8s-1.35", 0o755, string(bin)},
			{"LICENSE", 0o644, "the license\n"},
			{"README.md", 0o644, "# crdlab\n"},
		}
		if got := untar(t, filepath.Join(opts.Dir, name)); !reflect.DeepEqual(got, wantEntries) {
			t.Errorf("%s holds\n%+v\nwant\n%+v", name, got, wantEntries)
		}
	}
	if len(index["components"][testVersion]) != 2 {
		t.Errorf("index.json's components list %d archives, want 2", len(index["components"][testVersion]))
	}
}

// A release without components has no "components" in its index: the
// index of a release made before them.
func TestPackageWithoutComponents(t *testing.T) {
	opts := testRelease(t, testVersion)
	var index map[string]json.RawMessage
	data, err := os.ReadFile(filepath.Join(opts.Dir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &index); err != nil {
		t.Fatal(err)
	}
	if _, ok := index["components"]; ok || len(index) != 1 {
		t.Errorf("index.json of a release without components:\n%s\nwant releases alone", data)
	}
}

// TestVerifyComponents: a release with components as packaged checks out;
// what can go wrong with its components is found.
func TestVerifyComponents(t *testing.T) {
	ctx := context.Background()
	if err := Verify(ctx, testRelease(t, testVersion, withComponents(componentsPrinted)), true); err != nil {
		t.Fatalf("Verify of a release with components as packaged: %v", err)
	}
	hostArchive := ComponentsArchiveName("1.35", testVersion, host)
	for _, tc := range []struct {
		name    string
		printed string // what the host's crdlab-k8s-1.35 prints as its version
		spoil   func(t *testing.T, opts *Options)
		want    error
	}{
		{"tampered archive", componentsPrinted, func(t *testing.T, opts *Options) {
			appendTo(t, filepath.Join(opts.Dir, hostArchive), "x")
		}, ErrSums},
		{"another minor in the index", componentsPrinted, func(t *testing.T, opts *Options) {
			replaceIn(t, filepath.Join(opts.Dir, "index.json"), `"kubernetes": "1.35"`, `"kubernetes": "1.36"`)
		}, ErrIndex},
		{"components of another release in the index", componentsPrinted, func(t *testing.T, opts *Options) {
			replaceIn(t, filepath.Join(opts.Dir, "index.json"), `"components": {
    "`+testVersion, `"components": {
    "v0.0.1`)
		}, ErrIndex},
		{"a minor not packaged", componentsPrinted, func(t *testing.T, opts *Options) {
			opts.Components = append(opts.Components, "1.36")
		}, ErrArchive},
		{"components not expected", componentsPrinted, func(t *testing.T, opts *Options) {
			opts.Components = nil
		}, ErrArchive},
		{"prints another minor", `{"crdlab":"` + testVersion + `","kubernetes":"v1.36.5","go":"go1.26.0"}`, func(*testing.T, *Options) {}, ErrVersion},
		{"prints another crdlab", `{"crdlab":"(devel)","kubernetes":"v1.35.8","go":"go1.26.0"}`, func(*testing.T, *Options) {}, ErrVersion},
		{"prints no JSON", `crdlab-k8s 1.35`, func(*testing.T, *Options) {}, ErrVersion},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := testRelease(t, testVersion, withComponents(tc.printed))
			tc.spoil(t, &opts)
			if err := sign(opts.Dir, opts.SigningKey); err != nil { // what is checked here is not the signature
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

func TestParseMinors(t *testing.T) {
	for in, want := range map[string][]string{"": nil, "1.35 1.36": {"1.35", "1.36"}, "1.35,1.36": {"1.35", "1.36"}, " 1.36 ": {"1.36"}} {
		got, err := ParseMinors(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ParseMinors(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"1", "v1.36", "1.36.5", "1.x", "1.35 1.35"} {
		if got, err := ParseMinors(in); err == nil {
			t.Errorf("ParseMinors(%q) = %v, want an error", in, got)
		}
	}
}
