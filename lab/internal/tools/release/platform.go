package main

import (
	"fmt"
	"strings"

	format "github.com/crdlab/crdlab/lab/labtest/release"
)

// Platform is a target of a release: GOOS and GOARCH.
type Platform struct {
	OS   string
	Arch string
}

// ParsePlatform reads "linux/amd64".
func ParsePlatform(s string) (Platform, error) {
	goos, arch, ok := strings.Cut(s, "/")
	if !ok || goos == "" || arch == "" || strings.ContainsAny(arch, "/ ") {
		return Platform{}, fmt.Errorf("platform %q: want <os>/<arch>, as linux/amd64", s)
	}
	return Platform{OS: goos, Arch: arch}, nil
}

// ParsePlatforms reads each of args with ParsePlatform, at least one.
func ParsePlatforms(args []string) ([]Platform, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("no platform given: name one or more, as linux/amd64 darwin/arm64")
	}
	var ps []Platform
	for _, a := range args {
		p, err := ParsePlatform(a)
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	return ps, nil
}

func (p Platform) String() string { return p.OS + "/" + p.Arch }

// ArchiveName is the file name of version's archive of crdlab for p (the
// release format's name).
func ArchiveName(version string, p Platform) string {
	return format.ArchiveName(version, p.OS, p.Arch)
}
