package release

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Index is index.json, what a downloader reads, once its signature
// (SignatureFile, Verify) checks out, to find and check an archive:
//
//	{"releases": {"<version>": {"<archive>": Asset}},
//	 "components": {"<version>": {"<archive>": Asset with "kubernetes"}}}
//
// "components" came later: a downloader that knows only "releases" reads
// crdlab's archives as before and never mistakes a components archive for
// crdlab's.
type Index struct {
	// Releases are crdlab's archives of each version, by archive name.
	Releases map[string]map[string]Asset `json:"releases"`
	// Components are the archives of the components executables
	// (crdlab-k8s-<minor>) of each version, by archive name; omitted when a
	// release has none.
	Components map[string]map[string]Asset `json:"components,omitempty"`
}

// Asset is one archive of a release.
type Asset struct {
	// Kubernetes is the minor of a components archive, as "1.36"; empty
	// (and omitted) for crdlab's archives.
	Kubernetes string `json:"kubernetes,omitempty"`
	OS         string `json:"os"`
	Arch       string `json:"arch"`
	SHA256     string `json:"sha256"`
	// Size is the archive's size in bytes, and UnpackedSize the sum of
	// its files' sizes: a downloader reads no more and unpacks no more.
	// Zero (omitted) in a release made before them: the downloader's own
	// ceilings apply.
	Size         int64 `json:"size,omitempty"`
	UnpackedSize int64 `json:"unpackedSize,omitempty"`
	// URL is AssetURL(<base URL>, <version>, <archive>): for people and
	// other tools (a downloader builds the URL from its own base URL and
	// the archive's name, so that mirrors work).
	URL string `json:"url"`
}

// Errors of the Index's look-ups.
var (
	// ErrUnknownVersion: the index lists no such version.
	ErrUnknownVersion = errors.New("unknown crdlab version")
	// ErrNoPlatform: the version has no archive of crdlab for the platform.
	ErrNoPlatform = errors.New("no crdlab release for this platform")
	// ErrNoComponents: the version has no components archive for the
	// minor and platform.
	ErrNoComponents = errors.New("no crdlab-k8s archive for this Kubernetes minor and platform")
)

// ParseIndex reads an index.json; one without releases is an error.
func ParseIndex(data []byte) (Index, error) {
	var idx Index
	if err := json.Unmarshal(data, &idx); err != nil {
		return idx, err
	}
	if len(idx.Releases) == 0 {
		return idx, errors.New("no releases")
	}
	return idx, nil
}

// Archive picks crdlab's archive of version for goos/goarch, returning its
// name. A tag "v0.3.0" and a version "0.3.0" name the same release.
func (idx Index) Archive(version, goos, goarch string) (string, Asset, error) {
	archives, ok := idx.Releases[version]
	if !ok {
		archives, ok = idx.Releases[strings.TrimPrefix(version, "v")]
	}
	if !ok {
		archives, ok = idx.Releases["v"+version]
	}
	if !ok {
		return "", Asset{}, fmt.Errorf("%w %s: its index lists %s", ErrUnknownVersion, version, strings.Join(idx.versions(), ", "))
	}
	var platforms []string
	for name, a := range archives {
		if a.OS == goos && a.Arch == goarch {
			return name, a, nil
		}
		platforms = append(platforms, a.OS+"/"+a.Arch)
	}
	sort.Strings(platforms)
	return "", Asset{}, fmt.Errorf("%w: crdlab %s has no %s/%s archive, only %s", ErrNoPlatform, version, goos, goarch, strings.Join(platforms, ", "))
}

func (idx Index) versions() []string {
	var v []string
	for version := range idx.Releases {
		v = append(v, version)
	}
	sort.Strings(v)
	return v
}

// ComponentsArchive picks the archive of minor's components of version for
// goos/goarch, returning its name.
func (idx Index) ComponentsArchive(version, minor, goos, goarch string) (string, Asset, error) {
	var have []string
	for name, a := range idx.Components[version] {
		if a.Kubernetes == minor && a.OS == goos && a.Arch == goarch {
			return name, a, nil
		}
		have = append(have, ComponentsBinary(a.Kubernetes)+" for "+a.OS+"/"+a.Arch)
	}
	sort.Strings(have)
	listed := "no components at all"
	if len(have) > 0 {
		listed = "only " + strings.Join(have, ", ")
	}
	return "", Asset{}, fmt.Errorf("%w: crdlab %s has no %s archive for %s/%s, %s", ErrNoComponents, version, ComponentsBinary(minor), goos, goarch, listed)
}
