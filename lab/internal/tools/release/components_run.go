package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// componentsVersion is what "crdlab-k8s-<minor> version" prints: one JSON
// object.
type componentsVersion struct {
	Crdlab     string `json:"crdlab"`
	Kubernetes string `json:"kubernetes"`
	Go         string `json:"go"`
}

// runComponents writes binary (archive name's crdlab-k8s-<minor>) to a
// temporary folder under its own name, runs "version" and checks that it
// prints the release's version as crdlab's and a Kubernetes of minor.
func runComponents(ctx context.Context, name string, binary []byte, minor, version string) error {
	dir, err := os.MkdirTemp("", "crdlab-release-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, ComponentsBinary(minor))
	if err := os.WriteFile(bin, binary, 0o755); err != nil {
		return err
	}
	out, err := exec.CommandContext(ctx, bin, "version").Output()
	if err != nil {
		return fmt.Errorf("%w: %s version of %s: %w", ErrVersion, ComponentsBinary(minor), name, err)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	var v componentsVersion
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("%w: %s version of %s prints %q, not {\"crdlab\":..., \"kubernetes\":..., \"go\":...}: %w", ErrVersion, ComponentsBinary(minor), name, out, err)
	}
	if v.Crdlab != version || !strings.HasPrefix(v.Kubernetes, "v"+minor+".") {
		return fmt.Errorf("%w: the %s of %s says crdlab %q and Kubernetes %q, want %s and v%s.x", ErrVersion, ComponentsBinary(minor), name, v.Crdlab, v.Kubernetes, version, minor)
	}
	fmt.Printf("%s: %s version: crdlab %s, Kubernetes %s: ok\n", name, ComponentsBinary(minor), v.Crdlab, v.Kubernetes)
	return nil
}
