package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// runRelease writes binary (archive name's crdlab) to a temporary folder,
// runs "crdlab version" and checks that it prints version as crdlab's; with
// boot, it then boots a lab with it, as a new user would on a machine that
// never had crdlab (see boot).
func runRelease(ctx context.Context, name string, binary []byte, version string, bootIt bool) error {
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
	if err := boot(ctx, dir, bin); err != nil {
		return fmt.Errorf("%w: the crdlab of %s: %w", ErrBoot, name, err)
	}
	return nil
}

// boot runs "crdlab up -d", "kubectl get nodes" on the lab's kubeconfig
// and "crdlab down", with a HOME and a user cache dir of their own, empty,
// and no CRDLAB_* variable: nothing of this machine's builds or labs is
// reachable. kubectl is the one on PATH (make test-deps installs Debian's),
// else the archive's own "crdlab kubectl".
func boot(ctx context.Context, dir, bin string) (err error) {
	home := filepath.Join(dir, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
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
	if _, err := run(bin, "up", "-d", "--state-dir", state); err != nil {
		return err
	}
	defer func() {
		if _, downErr := run(bin, "down", "--state-dir", state); downErr != nil && err == nil {
			err = downErr
		}
	}()
	kubectl := []string{"--kubeconfig", filepath.Join(state, "kubeconfig"), "get", "nodes", "--no-headers"}
	name, lookErr := exec.LookPath("kubectl")
	if lookErr != nil {
		name, kubectl = bin, append([]string{"kubectl"}, kubectl...)
	}
	out, err := run(name, kubectl...)
	if err != nil {
		return err
	}
	if ready := strings.Count(out, " Ready "); ready == 0 {
		return fmt.Errorf("kubectl get nodes shows no Ready node:\n%s", out)
	}
	fmt.Printf("%s: crdlab up -d, kubectl get nodes (%d Ready), crdlab down: ok\n", filepath.Base(bin), strings.Count(out, " Ready "))
	return nil
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
