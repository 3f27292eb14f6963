package main

import (
	"fmt"
	"strings"

	"github.com/crdlab/crdlab/lab/kubeminor"
	format "github.com/crdlab/crdlab/lab/labtest/release"
)

// ComponentsBinary is the executable of minor's components (the release
// format's name).
func ComponentsBinary(minor string) string { return format.ComponentsBinary(minor) }

// ComponentsArchiveName is the file name of version's archive of minor's
// components for p (the release format's name).
func ComponentsArchiveName(minor, version string, p Platform) string {
	return format.ComponentsArchiveName(minor, version, p.OS, p.Arch)
}

// ParseMinors reads a list of Kubernetes minors, "1.35 1.36" or
// "1.35,1.36": each 1.<minor> (kubeminor.ParseVersion), none twice. Empty: none.
func ParseMinors(s string) ([]string, error) {
	var minors []string
	seen := map[string]bool{}
	for _, m := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		if v, ok := kubeminor.ParseVersion(m); !ok || v.V || v.Rest != "" {
			return nil, fmt.Errorf("minor %q: want 1.<minor>, as 1.36", m)
		}
		if seen[m] {
			return nil, fmt.Errorf("minor %s given twice", m)
		}
		seen[m] = true
		minors = append(minors, m)
	}
	return minors, nil
}

// componentsArchive is one components archive a release has.
type componentsArchive struct {
	minor    string
	platform Platform
}

// componentsArchives are the components archives of opts: each of
// opts.Components for each of opts.ComponentPlatforms.
func componentsArchives(opts Options) map[string]componentsArchive {
	archives := map[string]componentsArchive{}
	for _, p := range opts.ComponentPlatforms {
		for _, m := range opts.Components {
			archives[ComponentsArchiveName(m, opts.Version, p)] = componentsArchive{minor: m, platform: p}
		}
	}
	return archives
}
