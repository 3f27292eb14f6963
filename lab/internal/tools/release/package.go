package main

import (
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Options say what a release is and where it is: the same for package and
// verify.
type Options struct {
	// Version is the release's version, as "v0.1.0": in the archives'
	// names, the index and the URLs, and what "crdlab version" prints.
	Version string
	// BinDir holds the binaries to package, <BinDir>/<os>-<arch>/crdlab
	// (package only).
	BinDir string
	// Dir is the release's folder: the archives, SHA256SUMS and index.json.
	Dir string
	// BaseURL is where releases are published, each asset at
	// <BaseURL>/<Version>/<name>.
	BaseURL string
	// License and Readme are the files packaged beside crdlab, as LICENSE
	// and README.md.
	License string
	Readme  string
	// Platforms are the release's targets, each an archive.
	Platforms []Platform
	// Components are the Kubernetes minors ("1.36") whose components
	// executables, <BinDir>/<os>-<arch>/crdlab-k8s-<minor>, are released
	// too, each in an archive of its own for each of ComponentPlatforms.
	Components         []string
	ComponentPlatforms []Platform
	// ModTime is every archive entry's modification time (package only).
	ModTime time.Time
	// SigningKey signs index.json and SHA256SUMS (package only): one of
	// lab/labtest/release's Keys, or its test key.
	SigningKey ed25519.PrivateKey
	// AllowTestKey (verify only): a release signed by the test key
	// checks out.
	AllowTestKey bool
	// Boot (verify only, with run): the crdlab of this machine's platform
	// also boots a lab on an empty home and cache ('crdlab up -d'), serves
	// 'kubectl get nodes', and stops it ('crdlab down').
	Boot bool
}

// Package writes the release of opts into opts.Dir, which must not exist
// yet: an archive per platform, one per components minor and platform,
// SHA256SUMS and index.json, and their signatures by opts.SigningKey
// (SHA256SUMS.sig, index.json.sig).
func Package(opts Options) error {
	if _, err := signingKeyID(opts.SigningKey); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(opts.Dir), 0o755); err != nil {
		return err
	}
	if err := os.Mkdir(opts.Dir, 0o755); err != nil {
		return fmt.Errorf("release folder: %w", err)
	}
	sums := map[string]string{}
	assets := map[string]Asset{}
	for _, p := range opts.Platforms {
		name := ArchiveName(opts.Version, p)
		path := filepath.Join(opts.Dir, name)
		members := []member{
			{name: "crdlab", mode: 0o755, from: filepath.Join(opts.BinDir, p.OS+"-"+p.Arch, "crdlab")},
			{name: "LICENSE", mode: 0o644, from: opts.License},
			{name: "README.md", mode: 0o644, from: opts.Readme},
		}
		unpacked, err := writeArchive(path, members, opts.ModTime)
		if err != nil {
			return fmt.Errorf("archive for %s: %w", p, err)
		}
		sum, size, err := fileSHA256(path)
		if err != nil {
			return err
		}
		sums[name] = sum
		assets[name] = Asset{OS: p.OS, Arch: p.Arch, SHA256: sum, Size: size, UnpackedSize: unpacked, URL: AssetURL(opts.BaseURL, opts.Version, name)}
	}
	components := map[string]Asset{}
	for name, c := range componentsArchives(opts) {
		path := filepath.Join(opts.Dir, name)
		bin := ComponentsBinary(c.minor)
		members := []member{
			{name: bin, mode: 0o755, from: filepath.Join(opts.BinDir, c.platform.OS+"-"+c.platform.Arch, bin)},
			{name: "LICENSE", mode: 0o644, from: opts.License},
			{name: "README.md", mode: 0o644, from: opts.Readme},
		}
		unpacked, err := writeArchive(path, members, opts.ModTime)
		if err != nil {
			return fmt.Errorf("archive of Kubernetes %s for %s: %w", c.minor, c.platform, err)
		}
		sum, size, err := fileSHA256(path)
		if err != nil {
			return err
		}
		sums[name] = sum
		components[name] = Asset{Kubernetes: c.minor, OS: c.platform.OS, Arch: c.platform.Arch, SHA256: sum, Size: size, UnpackedSize: unpacked,
			URL: AssetURL(opts.BaseURL, opts.Version, name)}
	}
	if err := os.WriteFile(filepath.Join(opts.Dir, SumsFile), formatSums(sums), 0o644); err != nil {
		return err
	}
	idx := Index{Releases: map[string]map[string]Asset{opts.Version: assets}}
	if len(components) > 0 {
		idx.Components = map[string]map[string]Asset{opts.Version: components}
	}
	index, err := json.MarshalIndent(idx, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(opts.Dir, IndexFile), append(index, '\n'), 0o644); err != nil {
		return err
	}
	return sign(opts.Dir, opts.SigningKey)
}
