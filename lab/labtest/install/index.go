package install

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Index is a release folder's index.json, as 'make release' writes it.
type Index struct {
	// Releases are the archives of each version, by archive name.
	Releases map[string]map[string]Archive `json:"releases"`
	// Components are the archives of the components executables
	// (crdlab-k8s-<minor>) of each version, by archive name; a release made
	// before them has none.
	Components map[string]map[string]Archive `json:"components,omitempty"`
}

// Archive is one platform's archive in an Index.
type Archive struct {
	// Kubernetes is a components archive's minor, as "1.36".
	Kubernetes string `json:"kubernetes,omitempty"`
	OS         string `json:"os"`
	Arch       string `json:"arch"`
	SHA256     string `json:"sha256"`
	// URL is where the release was published; Download fetches the archive
	// from the folder the index came from instead, so that mirrors work.
	URL string `json:"url"`
}

// parseIndex reads an index.json.
func parseIndex(data []byte) (Index, error) {
	var idx Index
	if err := json.Unmarshal(data, &idx); err != nil {
		return idx, err
	}
	if len(idx.Releases) == 0 {
		return idx, fmt.Errorf("no releases")
	}
	return idx, nil
}

// archive picks the archive of version for goos/goarch, returning its name.
func (idx Index) archive(version, goos, goarch string) (string, Archive, error) {
	archives, ok := idx.Releases[version]
	if !ok {
		// A tag "v0.3.0" and a version "0.3.0" name the same release.
		archives, ok = idx.Releases[strings.TrimPrefix(version, "v")]
	}
	if !ok {
		archives, ok = idx.Releases["v"+version]
	}
	if !ok {
		return "", Archive{}, fmt.Errorf("%w %s: its index lists %s", ErrUnknownVersion, version, strings.Join(idx.versions(), ", "))
	}
	var platforms []string
	for name, a := range archives {
		if a.OS == goos && a.Arch == goarch {
			return name, a, nil
		}
		platforms = append(platforms, a.OS+"/"+a.Arch)
	}
	sort.Strings(platforms)
	return "", Archive{}, fmt.Errorf("%w: crdlab %s has no %s/%s archive, only %s", ErrNoPlatform, version, goos, goarch, strings.Join(platforms, ", "))
}

func (idx Index) versions() []string {
	var v []string
	for version := range idx.Releases {
		v = append(v, version)
	}
	sort.Strings(v)
	return v
}

// componentsArchive picks the archive of minor's components of version
// for goos/goarch, returning its name.
func (idx Index) componentsArchive(version, minor, goos, goarch string) (string, Archive, error) {
	archives := idx.Components[version]
	var have []string
	for name, a := range archives {
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
	return "", Archive{}, fmt.Errorf("%w: crdlab %s has no %s archive for %s/%s, %s", ErrNoComponents, version, ComponentsBinary(minor), goos, goarch, listed)
}
