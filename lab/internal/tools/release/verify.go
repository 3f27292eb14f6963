package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"

	format "github.com/crdlab/crdlab/lab/labtest/release"
)

// What a check of a release finds wrong, for callers (and tests) to tell
// apart.
var (
	// ErrSums: SHA256SUMS is malformed, lacks an archive, lists another
	// file, or an archive's digest is not the one it lists.
	ErrSums = errors.New("SHA256SUMS does not match the archives")
	// ErrIndex: index.json is not the index of this release's archives.
	ErrIndex = errors.New("index.json does not match the archives")
	// ErrArchive: an archive is unreadable or does not hold exactly crdlab
	// (or crdlab-k8s-<minor>, 0755), LICENSE and README.md (0644) as given.
	ErrArchive = errors.New("archive contents")
	// ErrVersion: the packaged crdlab does not print the release's version,
	// or a packaged crdlab-k8s-<minor> does not print it and its minor.
	ErrVersion = errors.New("crdlab version")
	// ErrBoot: the packaged crdlab does not boot a lab that serves
	// kubectl, or does not stop it.
	ErrBoot = errors.New("crdlab up")
)

// Verify checks the release in opts.Dir (see the package comment) and
// returns the first thing found wrong. With run, the crdlab of this
// machine's platform, which must be one of opts.Platforms, is unpacked and
// runs "crdlab version", and each crdlab-k8s-<minor> of this machine's
// platform runs "version" (runComponents).
func Verify(ctx context.Context, opts Options, run bool) error {
	want := map[string]Platform{}
	for _, p := range opts.Platforms {
		want[ArchiveName(opts.Version, p)] = p
	}
	components := componentsArchives(opts)
	if err := checkFolder(opts.Dir, want, components); err != nil {
		return err
	}
	// The signatures first: nothing else in the folder is trusted before.
	if _, err := checkSignatures(opts.Dir, opts.AllowTestKey); err != nil {
		return err
	}
	sumsData, err := os.ReadFile(filepath.Join(opts.Dir, SumsFile))
	if err != nil {
		return err
	}
	sums, err := parseSums(sumsData)
	if err != nil {
		return err
	}
	index, err := readIndex(filepath.Join(opts.Dir, IndexFile), opts.Version)
	if err != nil {
		return err
	}
	assets := index.Releases[opts.Version]
	componentAssets := index.Components[opts.Version]
	license, err := os.ReadFile(opts.License)
	if err != nil {
		return err
	}
	readme, err := os.ReadFile(opts.Readme)
	if err != nil {
		return err
	}
	host := Platform{OS: runtime.GOOS, Arch: runtime.GOARCH}
	hostComponents := map[string][]byte{} // by minor, run with crdlab
	for _, name := range slices.Sorted(maps.Keys(components)) {
		c := components[name]
		path := filepath.Join(opts.Dir, name)
		entries, err := readArchive(path)
		if err != nil {
			return err
		}
		if err := checkDigests(path, name, Asset{Kubernetes: c.minor, OS: c.platform.OS, Arch: c.platform.Arch, UnpackedSize: unpackedSize(entries)}, sums, componentAssets, opts); err != nil {
			return err
		}
		bin := ComponentsBinary(c.minor)
		if err := checkBinaryEntries(name, bin, entries, license, readme); err != nil {
			return err
		}
		if run && c.platform == host {
			if err := runComponents(ctx, name, entries[bin].content, c.minor, opts.Version); err != nil {
				return err
			}
			hostComponents[c.minor] = entries[bin].content
		}
	}
	ran := false
	for _, name := range slices.Sorted(maps.Keys(want)) {
		p := want[name]
		path := filepath.Join(opts.Dir, name)
		entries, err := readArchive(path)
		if err != nil {
			return err
		}
		if err := checkDigests(path, name, Asset{OS: p.OS, Arch: p.Arch, UnpackedSize: unpackedSize(entries)}, sums, assets, opts); err != nil {
			return err
		}
		if err := checkEntries(name, entries, license, readme); err != nil {
			return err
		}
		if run && p == host {
			if err := runRelease(ctx, name, entries["crdlab"].content, hostComponents, opts.Version, opts.Boot); err != nil {
				return err
			}
			ran = true
		}
	}
	if len(sums) != len(want)+len(components) {
		return fmt.Errorf("%w: %d lines for %d archives", ErrSums, len(sums), len(want)+len(components))
	}
	if len(assets) != len(want) {
		return fmt.Errorf("%w: %d archives listed for %d", ErrIndex, len(assets), len(want))
	}
	if len(componentAssets) != len(components) {
		return fmt.Errorf("%w: %d components archives listed for %d", ErrIndex, len(componentAssets), len(components))
	}
	if run && !ran {
		return fmt.Errorf("%w: no archive for this machine's platform %s to run (platforms %v)", ErrVersion, host, opts.Platforms)
	}
	return nil
}

// checkFolder: dir holds the archives of want and components, SHA256SUMS
// and index.json and their signatures, and nothing else.
func checkFolder(dir string, want map[string]Platform, components map[string]componentsArchive) error {
	des, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("release folder: %w", err)
	}
	var got []string
	for _, de := range des {
		got = append(got, de.Name())
	}
	expected := []string{SumsFile, IndexFile, format.SumsSignatureFile, format.IndexSignatureFile}
	for name := range want {
		expected = append(expected, name)
	}
	for name := range components {
		expected = append(expected, name)
	}
	slices.Sort(expected)
	if !slices.Equal(got, expected) {
		return fmt.Errorf("%w: %s holds %v, want %v", ErrArchive, dir, got, expected)
	}
	return nil
}

// readIndex reads index.json strictly: one release, version, and the
// components of that release alone, if any.
func readIndex(path, version string) (Index, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Index{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var index Index
	if err := dec.Decode(&index); err != nil {
		return Index{}, fmt.Errorf("%w: %s: %w", ErrIndex, path, err)
	}
	if _, ok := index.Releases[version]; !ok || len(index.Releases) != 1 {
		return Index{}, fmt.Errorf("%w: %s lists releases %v, want %s alone", ErrIndex, path, slices.Sorted(maps.Keys(index.Releases)), version)
	}
	if _, ok := index.Components[version]; len(index.Components) > 1 || (len(index.Components) == 1 && !ok) {
		return Index{}, fmt.Errorf("%w: %s lists components of releases %v, want %s alone", ErrIndex, path, slices.Sorted(maps.Keys(index.Components)), version)
	}
	return index, nil
}

// checkDigests: the archive's SHA-256 is the one SHA256SUMS and the index
// give, and its index entry names its platform (and minor, and unpacked
// size: those of a), size and URL.
func checkDigests(path, name string, a Asset, sums map[string]string, assets map[string]Asset, opts Options) error {
	sum, size, err := fileSHA256(path)
	if err != nil {
		return err
	}
	if listed, ok := sums[name]; !ok || listed != sum {
		return fmt.Errorf("%w: %s has SHA-256 %s, SHA256SUMS lists %q", ErrSums, name, sum, listed)
	}
	want := a
	want.SHA256, want.Size, want.URL = sum, size, AssetURL(opts.BaseURL, opts.Version, name)
	if got, ok := assets[name]; !ok || got != want {
		return fmt.Errorf("%w: %s is listed as %+v, want %+v", ErrIndex, name, got, want)
	}
	return nil
}

// checkEntries: exactly crdlab (0755), LICENSE and README.md (0644, the
// given contents).
func checkEntries(name string, entries map[string]entry, license, readme []byte) error {
	return checkBinaryEntries(name, "crdlab", entries, license, readme)
}

// checkBinaryEntries: exactly bin (0755), LICENSE and README.md (0644,
// the given contents).
func checkBinaryEntries(name, bin string, entries map[string]entry, license, readme []byte) error {
	if len(entries) != 3 {
		return fmt.Errorf("%w: %s holds %v, want %s, LICENSE, README.md", ErrArchive, name, slices.Sorted(maps.Keys(entries)), bin)
	}
	for file, want := range map[string]struct {
		mode    int64
		content []byte
	}{bin: {0o755, nil}, "LICENSE": {0o644, license}, "README.md": {0o644, readme}} {
		e, ok := entries[file]
		switch {
		case !ok:
			return fmt.Errorf("%w: %s lacks %s", ErrArchive, name, file)
		case e.mode != want.mode:
			return fmt.Errorf("%w: %s: %s has mode %#o, want %#o", ErrArchive, name, file, e.mode, want.mode)
		case want.content != nil && !bytes.Equal(e.content, want.content):
			return fmt.Errorf("%w: %s: %s differs from the repository's", ErrArchive, name, file)
		case len(e.content) == 0:
			return fmt.Errorf("%w: %s: %s is empty", ErrArchive, name, file)
		}
	}
	return nil
}

// unpackedSize is the sum of entries' sizes.
func unpackedSize(entries map[string]entry) int64 {
	var n int64
	for _, e := range entries {
		n += int64(len(e.content))
	}
	return n
}
