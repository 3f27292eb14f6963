package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/crdlab/crdlab/lab/kubeminor"
)

// hook is a kube-apiserver Prepare hook the components of every minor from
// since on get (lab/internal/kubecmd.Prepare): the one place a minor's
// difference is chosen.
type hook struct {
	Since int    // the first minor (1.<since>) that needs it
	Pkg   string // the package that holds it
	Expr  string // the hook, as main.go names it
}

var hooks = []hook{
	{Since: 37, Pkg: "github.com/crdlab/crdlab/lab/internal/kubecmd/informername", Expr: "informername.Set"},
}

// gen is what minorgen writes: a module per minor of the list not built in.
type gen struct {
	root     string
	list     string // the list's path, for messages
	releases []kubeminor.Release
}

func load(root, list string) (*gen, error) {
	if list == "" {
		list = filepath.Join(root, kubeminor.File)
	}
	data, err := os.ReadFile(list)
	if err != nil {
		return nil, err
	}
	releases, err := kubeminor.ParseReleases(list, data)
	if err != nil {
		return nil, err
	}
	return &gen{root: root, list: list, releases: releases}, nil
}

// modules are the releases that get a components module.
func (g *gen) modules() []kubeminor.Release {
	var out []kubeminor.Release
	for _, r := range g.releases {
		if !r.BuiltIn {
			out = append(out, r)
		}
	}
	return out
}

func (g *gen) dir(r kubeminor.Release) string {
	return filepath.Join(g.root, "lab", "components", r.Minor)
}

// files returns the Go files of r's module, by path relative to its folder.
func (g *gen) files(r kubeminor.Release) (map[string][]byte, error) {
	data := struct {
		kubeminor.Release
		Module string
		Hooks  []hook
	}{Release: r, Module: "github.com/crdlab/crdlab/lab/components/" + r.Minor}
	n, _ := strconv.Atoi(strings.TrimPrefix(r.Minor, "1."))
	for _, h := range hooks {
		if n >= h.Since {
			data.Hooks = append(data.Hooks, h)
		}
	}
	out := map[string][]byte{}
	for name, t := range templates {
		var b bytes.Buffer
		if err := t.Execute(&b, data); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[name] = b.Bytes()
	}
	return out, nil
}

// write writes every module and tidies it.
func (g *gen) write(tidy bool) error {
	for _, r := range g.modules() {
		dir := g.dir(r)
		files, err := g.files(r)
		if err != nil {
			return err
		}
		mod, err := g.goMod(r)
		if err != nil {
			return err
		}
		files["go.mod"] = mod
		for name, content := range files {
			path := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(path, content, 0o644); err != nil {
				return err
			}
		}
		if tidy {
			cmd := exec.Command("go", "mod", "tidy")
			cmd.Dir, cmd.Stdout, cmd.Stderr = dir, os.Stdout, os.Stderr
			cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("%s: go mod tidy: %w", dir, err)
			}
		}
		fmt.Printf("minorgen: wrote %s (Kubernetes %s)\n", dir, r.Kubernetes)
	}
	return nil
}

// errStale: a module differs from what minorgen writes.
var errStale = errors.New("stale: run go run ./lab/internal/minorgen (make components-modules) and commit")

// check compares every module with what write would write (go.mod: its
// module, go, godebug and replace lines, which tidy leaves alone) and the
// folders of lab/components with the list.
func (g *gen) check() error {
	var problems []string
	want := map[string]bool{}
	for _, r := range g.modules() {
		want[r.Minor] = true
		dir := g.dir(r)
		files, err := g.files(r)
		if err != nil {
			return err
		}
		for name, content := range files {
			have, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil || !bytes.Equal(have, content) {
				problems = append(problems, filepath.Join(dir, name))
			}
		}
		mod, err := g.goMod(r)
		if err != nil {
			return err
		}
		have, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err != nil {
			problems = append(problems, filepath.Join(dir, "go.mod")+": "+err.Error())
		} else if diff := sameModule(mod, have); diff != "" {
			problems = append(problems, filepath.Join(dir, "go.mod")+": "+diff)
		}
	}
	entries, err := os.ReadDir(filepath.Join(g.root, "lab", "components"))
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() && !want[e.Name()] {
			problems = append(problems, fmt.Sprintf("lab/components/%s: not a minor of %s (remove the folder, or add its line)", e.Name(), g.list))
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return fmt.Errorf("%w:\n  %s", errStale, strings.Join(problems, "\n  "))
	}
	return nil
}

// upstreamGoMod returns k8s.io/kubernetes' own go.mod at version, from the
// module cache (only the go.mod is downloaded when missing, not the module).
func upstreamGoMod(version string) ([]byte, error) {
	cmd := exec.Command("go", "list", "-m", "-json", "k8s.io/kubernetes@"+version)
	cmd.Dir = os.TempDir() // outside any module: this module's replace directives do not apply
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -m k8s.io/kubernetes@%s: %w", version, err)
	}
	var m struct{ GoMod string }
	if err := json.Unmarshal(out, &m); err != nil {
		return nil, err
	}
	return os.ReadFile(m.GoMod)
}
