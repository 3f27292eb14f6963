package install

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

type entry struct {
	name     string
	typeflag byte
	body     string
}

func archiveOf(t *testing.T, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Typeflag: e.typeflag, Mode: 0o644, Size: int64(len(e.body))}
		if e.typeflag != tar.TypeReg {
			h.Size, h.Linkname = 0, "/etc/passwd"
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(e.body[:h.Size])); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestUnpack(t *testing.T) {
	bin := entry{name: "crdlab", typeflag: tar.TypeReg, body: "#!/bin/sh\n"}
	for name, tc := range map[string]struct {
		entries []entry
		limit   int64 // 0: maxUnpackedSize
		ok      bool
		want    error
	}{
		"release":          {entries: []entry{bin, {name: "LICENSE", typeflag: tar.TypeReg, body: "l"}, {name: "README.md", typeflag: tar.TypeReg, body: "r"}}, ok: true},
		"with ./":          {entries: []entry{{name: "./", typeflag: tar.TypeDir}, {name: "./crdlab", typeflag: tar.TypeReg, body: "x"}}, ok: true},
		"no crdlab":        {entries: []entry{{name: "LICENSE", typeflag: tar.TypeReg, body: "l"}}, want: errNoBinary},
		"nested":           {entries: []entry{{name: "crdlab-v1/crdlab", typeflag: tar.TypeReg, body: "x"}}},
		"escape":           {entries: []entry{{name: "../crdlab", typeflag: tar.TypeReg, body: "x"}}},
		"symlink":          {entries: []entry{{name: "crdlab", typeflag: tar.TypeSymlink}}},
		"twice the binary": {entries: []entry{bin, bin}},
		"at its size":      {entries: []entry{bin, {name: "LICENSE", typeflag: tar.TypeReg, body: "l"}}, limit: int64(len(bin.body)) + 1, ok: true},
		"above its size":   {entries: []entry{bin, {name: "LICENSE", typeflag: tar.TypeReg, body: "l"}}, limit: int64(len(bin.body)), want: errTooLarge},
		// 0.5 MB of zeros is a few hundred bytes of archive.
		"a bomb": {entries: []entry{{name: "crdlab", typeflag: tar.TypeReg, body: string(make([]byte, 512<<10))}}, limit: 64 << 10, want: errTooLarge},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			limit := tc.limit
			if limit == 0 {
				limit = maxUnpackedSize
			}
			digest, err := unpack(bytes.NewReader(archiveOf(t, tc.entries...)), dir, "crdlab", limit)
			if tc.ok {
				if err != nil {
					t.Fatal(err)
				}
				if got, err := fileSHA256(filepath.Join(dir, "crdlab")); err != nil || got != digest {
					t.Errorf("unpack returned the digest %s, crdlab's is %s (%v)", digest, got, err)
				}
				st, err := os.Stat(filepath.Join(dir, "crdlab"))
				if err != nil || st.Mode().Perm() != 0o755 {
					t.Errorf("crdlab unpacked as %v, %v; want mode 0755", st, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("unpack of %v succeeded, want an error", tc.entries)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("unpack: %v, want %v", err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "crdlab")); err == nil {
				t.Errorf("unpack wrote outside its folder")
			}
		})
	}
}
