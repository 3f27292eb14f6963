package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/crdlab/crdlab/lab/labtest/control"
)

// runRelease writes binary (archive name's crdlab) to a temporary folder,
// runs "crdlab version" and checks that it prints version as crdlab's; with
// boot, it then boots a lab with it, as a new user would on a machine that
// never had crdlab (see boot), and one on each minor of components (the
// crdlab-k8s-<minor> executables, written next to crdlab as one unpacks
// their archives).
func runRelease(ctx context.Context, name string, binary []byte, components map[string][]byte, version string, bootIt bool) error {
	dir, err := os.MkdirTemp("", "crdlab-release-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "crdlab")
	if err := os.WriteFile(bin, binary, 0o755); err != nil {
		return err
	}
	out, err := exec.CommandContext(ctx, bin, "version").Output()
	if err != nil {
		return fmt.Errorf("%w: crdlab version of %s: %w", ErrVersion, name, err)
	}
	if got := printedVersion(out); got != version {
		return fmt.Errorf("%w: the crdlab of %s prints crdlab version %q, want %q:\n%s", ErrVersion, name, got, version, out)
	}
	if !bootIt {
		return nil
	}
	if err := boot(ctx, dir, bin, ""); err != nil {
		return fmt.Errorf("%w: the crdlab of %s: %w", ErrBoot, name, err)
	}
	for _, minor := range slices.Sorted(maps.Keys(components)) {
		if err := os.WriteFile(filepath.Join(dir, ComponentsBinary(minor)), components[minor], 0o755); err != nil {
			return err
		}
		if err := boot(ctx, dir, bin, minor); err != nil {
			return fmt.Errorf("%w: the crdlab of %s with %s next to it: %w", ErrBoot, name, ComponentsBinary(minor), err)
		}
	}
	return nil
}

// boot runs "crdlab up -d" (with minor, "--kubernetes minor"), "kubectl
// get nodes" on the lab's kubeconfig (with minor, "kubectl version" too,
// which must say the server is of minor) and "crdlab down", with a HOME
// and a user cache dir of their own, empty, and no CRDLAB_* variable:
// nothing of this machine's builds or labs is reachable. kubectl is the
// one on PATH (make test-deps installs Debian's), else the archive's own
// "crdlab kubectl".
func boot(ctx context.Context, dir, bin, minor string) (err error) {
	home, err := os.MkdirTemp(dir, "home-")
	if err != nil {
		return err
	}
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(name, "CRDLAB_"), name == "KUBECONFIG", name == "HOME", strings.HasPrefix(name, "XDG_"):
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+home, "XDG_CACHE_HOME="+filepath.Join(home, ".cache"))
	run := func(name string, args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Env, cmd.Dir = env, home
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return out.String(), fmt.Errorf("%s %s: %w\n%s", filepath.Base(name), strings.Join(args, " "), err, out.String())
		}
		return out.String(), nil
	}
	state := filepath.Join(home, ".crdlab")
	up := control.UpOptions{StateDir: state, Detach: true, Kubernetes: minor}
	if _, err := run(bin, up.Args()...); err != nil {
		return err
	}
	defer func() {
		if _, downErr := run(bin, "down", "--state-dir", state); downErr != nil && err == nil {
			err = downErr
		}
	}()
	kubeconfig := filepath.Join(state, "kubeconfig")
	kubectl := func(args ...string) (string, error) {
		args = append([]string{"--kubeconfig", kubeconfig}, args...)
		if name, err := exec.LookPath("kubectl"); err == nil {
			return run(name, args...)
		}
		return run(bin, append([]string{"kubectl"}, args...)...)
	}
	out, err := kubectl("get", "nodes", "--no-headers")
	if err != nil {
		return err
	}
	if ready := strings.Count(out, " Ready "); ready == 0 {
		return fmt.Errorf("kubectl get nodes shows no Ready node:\n%s", out)
	}
	server := ","
	if minor != "" {
		if server, err = serverVersion(kubectl); err != nil {
			return err
		}
		if !strings.HasPrefix(server, "v"+minor+".") {
			return fmt.Errorf("crdlab up --kubernetes %s: kubectl version says the server is %s", minor, server)
		}
		server = " --kubernetes " + minor + ", kubectl version: " + server + ","
	}
	fmt.Printf("%s: crdlab up -d%s kubectl get nodes (%d Ready), crdlab down: ok\n", filepath.Base(bin), server, strings.Count(out, " Ready "))
	return nil
}

// serverVersion is the server's gitVersion in "kubectl version -o json".
func serverVersion(kubectl func(args ...string) (string, error)) (string, error) {
	out, err := kubectl("version", "-o", "json")
	if err != nil {
		return "", err
	}
	var v struct {
		ServerVersion struct {
			GitVersion string `json:"gitVersion"`
		} `json:"serverVersion"`
	}
	// A version skew warning (stderr, in out too) may come first.
	if err := json.NewDecoder(strings.NewReader(out[max(strings.Index(out, "{"), 0):])).Decode(&v); err != nil {
		return "", fmt.Errorf("kubectl version -o json: %w:\n%s", err, out)
	}
	if v.ServerVersion.GitVersion == "" {
		return "", fmt.Errorf("kubectl version -o json printed no server version:\n%s", out)
	}
	return v.ServerVersion.GitVersion, nil
}

// printedVersion is crdlab's version in the output of "crdlab version",
// the line "crdlab:   <version>".
func printedVersion(out []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "crdlab:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
