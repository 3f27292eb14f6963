package main

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/crdlab/crdlab/lab/kubeminor"
)

// An unsupported --kubernetes, or CRDLAB_KUBERNETES_VERSION, is one line
// that lists the minors crdlab serves; nothing starts.
func TestUnsupportedKubernetesGolden(t *testing.T) {
	for name, tc := range map[string]struct {
		env  string
		args []string
	}{
		"kubernetes-1.20-up":       {args: []string{"up", "-d", "--kubernetes", "1.20"}},
		"kubernetes-1.99-envtest":  {args: []string{"envtest", "--kubernetes", "1.99"}},
		"kubernetes-env-1.20-up":   {env: "1.20", args: []string{"up"}},
		"kubernetes-patch-envtest": {args: []string{"envtest", "--kubernetes", "1.35.0"}},
	} {
		t.Run(name, func(t *testing.T) {
			c := newCLI(t)
			c.env = append(c.env, kubeminor.Env+"="+tc.env)
			out, code := c.run(tc.args...)
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			if n := strings.Count(out, "\n"); n != 1 {
				t.Errorf("%d lines, want one:\n%s", n, out)
			}
			goldenCompare(t, name, out)
			if left := c.processes(); len(left) != 0 {
				t.Errorf("processes left: %v", left)
			}
		})
	}
}

// A minor whose components executable is nowhere: one line that says where
// crdlab looked and how to build it.
func TestAbsentComponentsGolden(t *testing.T) {
	c := newCLI(t)
	components, cache := t.TempDir(), t.TempDir()
	c.env = append(c.env, kubeminor.DirEnv+"="+components, "XDG_CACHE_HOME="+cache, kubeminor.Env+"=")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if self, err = filepath.EvalSymlinks(self); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"envtest", "--kubernetes", "1.36"}, {"up", "-d", "--kubernetes", "v1.35"}} {
		out, code := c.run(args...)
		if code != 1 {
			t.Errorf("crdlab %s: exit %d, want 1", strings.Join(args, " "), code)
		}
		out = strings.NewReplacer(components, "<CRDLAB_COMPONENTS_DIR>", filepath.Dir(self), "<crdlab's folder>", cache, "<XDG_CACHE_HOME>").Replace(out)
		out = versionDir.ReplaceAllString(out, "components/<crdlab version>")
		out = strings.ReplaceAll(out, "/"+runtime.GOOS+"-"+runtime.GOARCH+";", "/<os>-<arch>;")
		goldenCompare(t, "kubernetes-absent-"+args[0], out)
	}
	// crdlab version says where it looked for each.
	out := c.mustRun("version")
	for _, want := range []string{
		"  " + kubeminor.BuiltIn + "  " + kubeminor.Patch(kubeminor.BuiltIn) + ", built in",
		"  1.36  not found (looked in " + components + ", " + filepath.Dir(self) + ", " + cache,
		"make components K8S=1.36)",
		"  1.35  not found (looked in " + components,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("crdlab version lacks %q:\n%s", want, out)
		}
	}
	if left := c.processes(); len(left) != 0 {
		t.Errorf("processes left: %v", left)
	}
}

// testKubernetesEnv names the minors whose seed walkthrough
// TestSeedWalkthroughOnKubernetes runs (make test-kubernetes: every
// supported minor; make test: the oldest), with their components
// executables in $CRDLAB_COMPONENTS_DIR (make components).
const testKubernetesEnv = "CRDLAB_TEST_KUBERNETES"

// componentsDir is where make components puts the components
// executables: bin/, next to bin/crdlab.
func componentsDir(t *testing.T) string {
	t.Helper()
	if dir := os.Getenv(kubeminor.DirEnv); dir != "" {
		return dir
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "bin"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// kubectlVersion runs Debian's kubectl version against the lab.
func (c *cli) kubectlVersion() string {
	c.t.Helper()
	cmd := exec.Command("kubectl", "version")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+filepath.Join(c.stateDir, "kubeconfig"))
	out, err := cmd.CombinedOutput()
	if err != nil && !strings.Contains(string(out), "Server Version") { // it warns of the skew with a non-zero status
		c.t.Fatalf("kubectl version: %v\n%s", err, out)
	}
	return string(out)
}

// versionDir is the cache's folder of a crdlab version.
var versionDir = regexp.MustCompile(`components/[^/ ,;]+`)

// Acceptance 1 of issue 31: on each minor of $CRDLAB_TEST_KUBERNETES, 'up
// -d --kubernetes' serves that minor (Debian's kubectl, status, crdlab's
// kubectl say so), the seed walkthrough passes (the User CRD installed, an
// invalid User refused, delete-pod), and the data dir it wrote is refused
// by a lab of another minor, left as it is.
func TestSeedWalkthroughOnKubernetes(t *testing.T) {
	minors := strings.Fields(strings.ReplaceAll(os.Getenv(testKubernetesEnv), ",", " "))
	if len(minors) == 0 {
		t.Skipf("%s is not set: make test-kubernetes runs this on every supported minor, make test on the oldest", testKubernetesEnv)
	}
	dir := componentsDir(t)
	for _, m := range minors {
		t.Run(m, func(t *testing.T) {
			minor, err := kubeminor.Parse(testKubernetesEnv, m)
			if err != nil {
				t.Fatal(err)
			}
			patch := kubeminor.Patch(minor)
			c := newCLI(t)
			c.env = append(c.env, kubeminor.DirEnv+"="+dir, kubeminor.Env+"=")
			data := filepath.Join(t.TempDir(), "data")
			c.mustRun("up", "-d", "--kubernetes", minor, "--data-dir", data)

			if out := c.kubectlVersion(); !strings.Contains(out, "Server Version: "+patch) {
				t.Errorf("Debian's kubectl version does not say Server Version: %s:\n%s", patch, out)
			}
			if out := c.mustRun("status"); !strings.Contains(out, "kubernetes: "+patch) {
				t.Errorf("status does not say kubernetes: %s:\n%s", patch, out)
			}
			if out := c.mustRun("kubectl", "version"); !strings.Contains(out, "Client Version: "+patch) || !strings.Contains(out, "Server Version: "+patch) {
				t.Errorf("crdlab kubectl version is not %s on both sides:\n%s", patch, out)
			}
			if out := c.mustRun("version"); !strings.Contains(out, "  "+minor+"  "+patch) {
				t.Errorf("crdlab version does not list %s as %s:\n%s", minor, patch, out)
			}
			// Every node reports a kubelet of the lab's own release, never
			// one newer than its apiserver (the built-in minor's).
			kubelets := strings.Fields(c.kubectl("", "get", "nodes", "-o", "jsonpath={.items[*].status.nodeInfo.kubeletVersion}"))
			if len(kubelets) == 0 {
				t.Errorf("kubectl get nodes lists no kubeletVersion")
			}
			for _, v := range kubelets {
				if v != patch+"-crdlab" {
					t.Errorf("a node of the Kubernetes %s lab reports kubelet %s; want %s-crdlab (all: %v)", minor, v, patch, kubelets)
				}
			}

			// The seed: the User CRD, a User, the invalid ones refused.
			c.kubectl("", "get", "crd", "users.auth.ilinux.io")
			c.kubectl("", "apply", "-f", "../../fixtures/samples/user-admin.yaml")
			if out := c.kubectl("", "get", "u"); !strings.Contains(out, "admin") {
				t.Errorf("kubectl get u does not list the User admin:\n%s", out)
			}
			if out := c.kubectlFails("apply", "-f", "../../fixtures/samples/user-tony-invalid.yaml"); !strings.Contains(out, "spec.userID") || !strings.Contains(out, "65535") {
				t.Errorf("tony was refused without naming spec.userID and 65535:\n%s", out)
			}
			out, code := c.run("scenario", "run", "delete-pod")
			if code != 0 || !strings.Contains(out, "PASS delete-pod") || !strings.Contains(out, "replicaset           CREATE  pod/web-") {
				t.Errorf("scenario run delete-pod: exit %d:\n%s", code, out)
			}
			c.mustRun("down")

			// The data dir keeps its minor: another minor's lab refuses it.
			other := kubeminor.BuiltIn
			if minor == kubeminor.BuiltIn {
				other = kubeminor.Supported()[0]
			}
			d := dataDir{dir: data}
			d.before = d.sums(t)
			out, code = c.run("up", "-d", "--kubernetes", other, "--data-dir", data)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			last := lines[len(lines)-1]
			if code == 0 {
				t.Fatalf("a lab of Kubernetes %s started on the data dir of %s:\n%s", other, minor, out)
			}
			for _, want := range []string{"--data-dir", data, "Kubernetes " + patch, "runs Kubernetes " + kubeminor.Patch(other), "left as it is", "--kubernetes " + minor} {
				if !strings.Contains(last, want) {
					t.Errorf("refusal %q does not name %q", last, want)
				}
			}
			if now := d.sums(t); !maps.Equal(now, d.before) {
				t.Errorf("the refused data dir was modified")
			}
			if left := c.processes(); len(left) != 0 {
				t.Errorf("processes left: %v", left)
			}
		})
	}
}

// Issue 37: a components executable that another user planted, mode 0777,
// is run neither by 'crdlab version' (which lists it as refused, with the
// reason) nor by 'up --kubernetes' or 'envtest --kubernetes' (one line that
// names it, why, and what to do): the planted script would create a file.
func TestUntrustedComponentsAreNotRun(t *testing.T) {
	minor := kubeminor.ComponentsMinors()[0]
	for name, plant := range map[string]func(t *testing.T, dir, path string){
		"another user's, mode 0777": func(t *testing.T, _, path string) {
			if err := os.Chown(path, 65534, 65534); err != nil {
				t.Skipf("chown to uid 65534 needs root: %v", err)
			}
			if err := os.Chmod(path, 0o777); err != nil {
				t.Fatal(err)
			}
		},
		"in a folder writable by all": func(t *testing.T, dir, _ string) {
			if err := os.Chmod(dir, 0o777); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir, marker := t.TempDir(), filepath.Join(t.TempDir(), "ran")
			path := filepath.Join(dir, kubeminor.Name(minor))
			script := "#!/bin/sh\ntouch '" + marker + "'\necho '{\"crdlab\":\"(devel)\",\"kubernetes\":\"" + kubeminor.Patch(minor) + "\",\"go\":\"go1.26.0\"}'\n"
			if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			plant(t, dir, path)
			c := newCLI(t)
			c.env = append(c.env, kubeminor.DirEnv+"="+dir, "XDG_CACHE_HOME="+t.TempDir(), kubeminor.Env+"=")

			out := c.mustRun("version")
			if want := "  " + minor + "  refused, not run: " + kubeminor.Name(minor) + ": components executable not trusted: " + path; !strings.Contains(out, want) {
				t.Errorf("crdlab version does not say %q:\n%s", want, out)
			}
			for _, args := range [][]string{{"up", "-d", "--kubernetes", minor}, {"envtest", "--kubernetes", minor}} {
				out, code := c.run(args...)
				if code != 1 || strings.Count(out, "\n") != 1 || !strings.Contains(out, path) || !strings.Contains(out, "does not run it") {
					t.Errorf("crdlab %s: exit %d, want 1 and one line naming %s:\n%s", strings.Join(args, " "), code, path, out)
				}
			}
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("%s was run", path)
			}
			if left := c.processes(); len(left) != 0 {
				t.Errorf("processes left: %v", left)
			}
		})
	}
}
