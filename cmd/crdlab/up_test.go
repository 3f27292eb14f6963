package main

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/scenarios"
)

const crdYAML = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.test.crdlab.dev
spec:
  group: test.crdlab.dev
  names: {kind: Widget, plural: widgets, singular: widget, shortNames: [wd]}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, minimum: 1, maximum: 10}
`

const crYAML = `apiVersion: test.crdlab.dev/v1
kind: Widget
metadata: {name: w1, namespace: default}
spec: {size: 3}
`

// A detached lab serves Debian's kubectl and crdlab's own, and down leaves
// no process behind.
func TestUpDetachedServesKubectlAndDownStopsAll(t *testing.T) {
	c := newCLI(t)
	out := c.mustRun("up", "-d")
	for _, want := range []string{"lab ready", "export KUBECONFIG=" + filepath.Join(c.stateDir, "kubeconfig"), "crdlab down"} {
		if !strings.Contains(out, want) {
			t.Errorf("up -d output lacks %q:\n%s", want, out)
		}
	}
	fi, err := os.Stat(filepath.Join(c.stateDir, "kubeconfig"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("kubeconfig: %v, mode %v; want mode 0600", err, fi)
	}
	tree := c.labTree()
	names := map[string]bool{}
	for _, p := range tree {
		names[p.Name] = true
	}
	for _, want := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler"} {
		if !names[want] {
			t.Fatalf("lab tree %+v lacks %s", tree, want)
		}
	}
	listens := listenAddrs(t, tree)
	if len(listens) < 4 {
		t.Errorf("the lab listens on %v; want at least etcd, apiserver, controller-manager, scheduler", listens)
	}
	for _, a := range listens {
		if !strings.HasPrefix(a, loopbackHex) {
			t.Errorf("the lab listens on %s, not on 127.0.0.1", a)
		}
	}

	if out := c.mustRun("status"); !strings.Contains(out, "running") || !strings.Contains(out, "https://127.0.0.1:") {
		t.Errorf("status:\n%s", out)
	}
	if out := c.kubectl("", "get", "ns"); !strings.Contains(out, "kube-system") {
		t.Errorf("kubectl get ns:\n%s", out)
	}
	c.kubectl(crdYAML, "apply", "-f", "-")
	c.kubectl("", "wait", "--for=condition=Established", "crd/widgets.test.crdlab.dev", "--timeout=30s")
	c.kubectl(crYAML, "apply", "-f", "-")
	if out := c.kubectl("", "get", "wd", "w1", "-o", "jsonpath={.spec.size}"); out != "3" {
		t.Errorf("kubectl get wd w1: %q, want size 3", out)
	}

	// The seed's User, installed by up: its valid and invalid custom resources.
	c.kubectl("", "apply", "-f", "../../fixtures/samples/user-admin.yaml")
	for _, args := range [][]string{{"get", "u"}, {"get", "users.auth.ilinux.io"}, {"get", "all"}} {
		if out := c.kubectl("", args...); !strings.Contains(out, "admin") {
			t.Errorf("kubectl %v does not list the User admin:\n%s", args, out)
		}
	}
	if out := c.kubectl("", "explain", "user.spec"); !strings.Contains(out, "userID") || !strings.Contains(out, "-required-") {
		t.Errorf("kubectl explain user.spec:\n%s", out)
	}
	if out := c.kubectlFails("apply", "-f", "../../fixtures/samples/user-tony-invalid.yaml"); !strings.Contains(out, "spec.userID") || !strings.Contains(out, "65535") {
		t.Errorf("tony was refused without naming spec.userID and 65535:\n%s", out)
	}
	if out := c.kubectlFails("apply", "-f", "../../fixtures/samples/user-no-groups-invalid.yaml"); !strings.Contains(out, "spec.groups: Required value") {
		t.Errorf("a User without groups was refused without naming spec.groups:\n%s", out)
	}
	// The WebApp operator runs inside crdlab up.
	c.kubectl("", "apply", "-f", "../../fixtures/samples/webapp-shop.yaml")
	c.kubectl("", "wait", "--for=condition=Available", "webapp/shop", "--timeout=60s")
	if out := c.kubectl("", "get", "deployment,service", "shop", "-o", "name"); !strings.Contains(out, "deployment.apps/shop") || !strings.Contains(out, "service/shop") {
		t.Errorf("the WebApp shop has no Deployment and Service:\n%s", out)
	}

	// The Redis operator runs inside crdlab up: a cluster, kubectl scale,
	// CEL refusals, a backup, deletion through the finalizer.
	c.kubectl("", "apply", "-f", "../../fixtures/samples/redis-cache.yaml")
	c.kubectl("", "wait", "--for=condition=Ready", "rediscluster/cache", "--timeout=90s")
	if out := c.kubectl("", "get", "pods", "-l", "app.kubernetes.io/instance=cache", "--field-selector=status.phase=Running", "-o", "name"); strings.Count(out, "pod/cache-") != 6 {
		t.Errorf("want 6 Running Pods of the RedisCluster cache:\n%s", out)
	}
	c.kubectl("", "scale", "rediscluster", "cache", "--replicas=4")
	c.kubectl("", "wait", "--for=jsonpath={.status.shards}=4", "rediscluster/cache", "--timeout=90s")
	c.kubectl("", "wait", "--for=condition=Ready", "rediscluster/cache", "--timeout=90s")
	if out := c.kubectl("", "get", "statefulset", "cache", "-o", "jsonpath={.status.readyReplicas}"); out != "8" {
		t.Errorf("after kubectl scale --replicas=4: statefulset ready %q, want 8", out)
	}
	if out := c.kubectlFails("apply", "-f", "../../fixtures/samples/redis-two-shards-invalid.yaml"); !strings.Contains(out, "at least 3 shards") {
		t.Errorf("a 2-shard cluster was refused without the CEL rule's message:\n%s", out)
	}
	if out := c.kubectlFails("patch", "rediscluster", "cache", "--type=merge", "-p", `{"spec":{"replicasPerShard":2}}`); !strings.Contains(out, "replicasPerShard is immutable") {
		t.Errorf("a change of replicasPerShard was refused without the CEL rule's message:\n%s", out)
	}
	c.kubectl("", "apply", "-f", "../../fixtures/samples/redis-backup.yaml")
	c.kubectl("", "wait", "--for=jsonpath={.status.phase}=Succeeded", "redisbackup/cache-nightly", "--timeout=60s")
	c.kubectl("", "delete", "rediscluster", "cache", "--timeout=60s")
	c.kubectl("", "wait", "--for=delete", "statefulset/cache", "redisbackup/cache-nightly", "--timeout=60s")

	// The aggregated API server: kubectl top through the aggregator, and
	// the lab's own group.
	c.kubectl("", "wait", "--for=condition=Available", "apiservice/v1beta1.metrics.k8s.io", "apiservice/v1alpha1.lab.crdlab.dev", "--timeout=60s")
	if out := c.kubectl("", "top", "nodes"); strings.Count(out, "lab-node-") != 3 {
		t.Errorf("kubectl top nodes:\n%s", out)
	}
	if out := c.kubectl("", "get", "--raw", "/apis/lab.crdlab.dev/v1alpha1/summaries/lab"); !strings.Contains(out, `"nodes":3`) {
		t.Errorf("the lab summary:\n%s", out)
	}

	// One WebApp, read in both versions through the conversion webhook;
	// the defaulting webhook's label; the validating webhook's refusal.
	c.kubectl(`apiVersion: samples.crdlab.dev/v1alpha1
kind: WebApp
metadata: {name: acc}
spec: {image: "nginx:1.27", port: 7070}
`, "apply", "-f", "-")
	alpha := c.kubectl("", "get", "webapps.v1alpha1.samples.crdlab.dev", "-o", `jsonpath={range .items[*]}{.metadata.name} {.apiVersion} {.spec.port}{"\n"}{end}`)
	v1 := c.kubectl("", "get", "webapps.v1.samples.crdlab.dev", "-o", `jsonpath={range .items[*]}{.metadata.name} {.apiVersion} {.spec.container.port} {.metadata.labels.app\.kubernetes\.io/name}{"\n"}{end}`)
	if !strings.Contains(alpha, "acc samples.crdlab.dev/v1alpha1 7070") || !strings.Contains(v1, "acc samples.crdlab.dev/v1 7070 acc") {
		t.Errorf("the WebApp in both versions:\nv1alpha1: %s\nv1: %s", alpha, v1)
	}
	refused := c.kubectlFails("create", "-f", writeTemp(t, `apiVersion: samples.crdlab.dev/v1
kind: WebApp
metadata: {name: acc2}
spec: {container: {image: nginx, port: 7070}}
`))
	if !strings.Contains(refused, `7070 is already used by webapp/acc in namespace default`) {
		t.Errorf("a WebApp on a taken port:\n%s", refused)
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		tl, _ := os.ReadFile(filepath.Join(c.stateDir, "logs", "timeline.log"))
		if strings.Contains(string(tl), "CONVERT  webapp/acc  v1 → v1alpha1") && strings.Contains(string(tl), "DENIED  webapp/acc2") {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("the timeline lacks the conversion of webapp/acc or the refusal of acc2:\n%s", tl)
			break
		}
		time.Sleep(50 * time.Millisecond) // polling a file the lab writes
	}
	c.kubectl("", "delete", "webapp", "acc")

	// Every built-in scenario passes against 'crdlab up -d', and so does a
	// user's own file; one at scale (spec.lab) is skipped, saying how to
	// run it (make test-scale does).
	builtin, err := scenarios.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	atScale := 0
	for _, s := range builtin {
		if s.Spec.Lab != nil {
			atScale++
		}
	}
	if out, code := c.run("scenario", "run", "--all"); code != 0 || strings.Count(out, "\nPASS ") != len(builtin)-atScale ||
		strings.Count(out, "SKIPPED scale-out ") != atScale {
		t.Errorf("scenario run --all: exit %d, want %d PASS and %d skipped at scale:\n%s", code, len(builtin)-atScale, atScale, out)
	} else if !strings.Contains(out, "running against the lab of 'crdlab up'") {
		t.Errorf("scenario run --all did not use the running lab:\n%s", out)
	} else if !strings.Contains(out, "RECONCILE  webapp/shop") || !strings.Contains(out, "LIST    nodemetrics/*") ||
		!strings.Contains(out, "CONVERT  webapp/shop") || !strings.Contains(out, "DENIED  webapp/cart") {
		t.Errorf("scenario run --all against 'crdlab up' lacks the lab's reconcile passes or aggregated-API requests:\n%s", out)
	}
	if out, code := c.run("scenario", "run", "../../docs/scenarios/configmap-env.yaml"); code != 0 {
		t.Errorf("scenario run of a user's file: exit %d:\n%s", code, out)
	}

	if out := c.mustRun("kubectl", "get", "ns", "default"); !strings.Contains(out, "Active") {
		t.Errorf("crdlab kubectl get ns default:\n%s", out)
	}

	if out := c.mustRun("node", "list"); strings.Count(out, "running") != 3 {
		t.Errorf("node list: want 3 running nodes:\n%s", out)
	}
	c.mustRun("node", "stop", "lab-node-2")
	if out := c.mustRun("node", "list"); !strings.Contains(out, "lab-node-2   stopped") {
		t.Errorf("node list after stop: want lab-node-2 stopped:\n%s", out)
	}
	c.mustRun("node", "start", "lab-node-2")
	if out, code := c.run("node", "stop", "no-such-node"); code == 0 || !strings.Contains(out, `"no-such-node"`) {
		t.Errorf("node stop no-such-node: exit %d, want an error naming it:\n%s", code, out)
	}

	// crdlab reset: what this test made is gone, the CRD it installed
	// stays, the node it stopped runs again; the timeline says it.
	c.mustRun("node", "stop", "lab-node-3")
	if out := c.mustRun("reset"); !strings.Contains(out, "lab reset in") {
		t.Errorf("reset:\n%s", out)
	}
	if out := c.kubectlFails("get", "wd", "w1"); !strings.Contains(out, "NotFound") {
		t.Errorf("the Widget w1 after reset:\n%s", out)
	}
	if out := c.kubectlFails("get", "webapp", "shop"); !strings.Contains(out, "NotFound") {
		t.Errorf("the WebApp shop after reset:\n%s", out)
	}
	if out := c.kubectl("", "get", "crd", "widgets.test.crdlab.dev", "-o", "name"); !strings.Contains(out, "widgets.test.crdlab.dev") {
		t.Errorf("the CRD installed since the start is gone after reset:\n%s", out)
	}
	if out := c.mustRun("node", "list"); strings.Count(out, "running") != 3 {
		t.Errorf("node list after reset: want 3 running nodes:\n%s", out)
	}
	c.mustRun("reset", "--remove-crds")
	if out := c.kubectlFails("get", "crd", "widgets.test.crdlab.dev"); !strings.Contains(out, "NotFound") {
		t.Errorf("the CRD after reset --remove-crds:\n%s", out)
	}
	if out := c.kubectl("", "get", "crd", "users.auth.ilinux.io", "-o", "name"); !strings.Contains(out, "users.auth.ilinux.io") {
		t.Errorf("a sample CRD, there at the start, is gone after reset --remove-crds:\n%s", out)
	}
	// The lab's timeline holds each line for its reorder window before it
	// writes it: the reset's line follows the command by that much.
	var tl []byte
	var tlErr error
	for deadline := time.Now().Add(10 * time.Second); ; {
		tl, tlErr = os.ReadFile(filepath.Join(c.stateDir, "logs", "timeline.log"))
		if tlErr == nil && strings.Contains(string(tl), "crdlab reset") && strings.Contains(string(tl), "CREATE  webapp/shop") || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond) // polling the file, with a deadline
	}
	if tlErr != nil || !strings.Contains(string(tl), "crdlab reset") || !strings.Contains(string(tl), "CREATE  webapp/shop") {
		t.Errorf("logs/timeline.log of a detached lab (%v) lacks the WebApp shop or the reset after 10s:\n%s", tlErr, tl)
	}

	out, code := c.run("up", "-d")
	if code == 0 || !strings.Contains(out, "already running") || !strings.Contains(out, c.stateDir) {
		t.Errorf("second up: exit %d, want an error naming the running lab and state dir:\n%s", code, out)
	}

	if out := c.mustRun("down"); !strings.Contains(out, "lab stopped") {
		t.Errorf("down:\n%s", out)
	}
	expectGone(t, tree, 0)
	if left := c.processes(); len(left) != 0 {
		t.Errorf("processes left after down: %v", left)
	}
	if _, err := os.Stat(filepath.Join(c.stateDir, "kubeconfig")); !os.IsNotExist(err) {
		t.Errorf("kubeconfig of a stopped lab still there: %v", err)
	}
	if out, code := c.run("status"); code != 3 || !strings.Contains(out, "no lab is running") {
		t.Errorf("status after down: exit %d\n%s", code, out)
	}
}

// kill -9 of a foreground 'crdlab up' leaves no child alive 5 s later.
func TestKillNineOfUpLeavesNoChildren(t *testing.T) {
	c := newCLI(t)
	cmd, tree := c.upForeground(false)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	expectGone(t, tree, 5*time.Second)
	if left := c.processes(); len(left) != 0 {
		t.Errorf("processes left 5s after kill -9: %v", left)
	}
}

// Ctrl-C in a terminal signals the whole foreground process group: the lab
// must still stop everything, in order, and exit (not restart what the
// signal reached, and not hang).
func TestInterruptOfUpsProcessGroupStopsEverything(t *testing.T) {
	c := newCLI(t)
	cmd, tree := c.upForeground(true)
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("up after Ctrl-C: %v, want exit 0", err)
		}
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("up did not exit within 60s of Ctrl-C")
	}
	expectGone(t, tree, 0)
	if left := c.processes(); len(left) != 0 {
		t.Errorf("processes left after Ctrl-C: %v", left)
	}
}

// With --data-dir, objects created before down are there after the next up.
func TestDataDirKeepsObjectsAcrossUpDown(t *testing.T) {
	c := newCLI(t)
	data := filepath.Join(t.TempDir(), "data")
	c.mustRun("up", "-d", "--data-dir", data)
	c.kubectl("", "create", "configmap", "kept", "--from-literal=answer=42")
	c.mustRun("down")
	c.mustRun("up", "-d", "--data-dir", data)
	if out := c.kubectl("", "get", "configmap", "kept", "-o", "jsonpath={.data.answer}"); out != "42" {
		t.Errorf("configmap after restart: %q, want 42", out)
	}
	c.mustRun("down")
}

// Bad input gets a one-line error naming the cause, and starts nothing.
func TestBadInput(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	busy := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}

	open := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil { // whatever the umask
		t.Fatal(err)
	}
	corrupt, otherVersion := badDataDirs(t)

	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"state dir others can write to", []string{"--state-dir", open, "up", "-d"}, []string{"--state-dir", open, "writable by other users", "chmod go-w"}},
		{"corrupted data dir", []string{"up", "-d", "--data-dir", corrupt.dir}, []string{"--data-dir", corrupt.dir, "invalid database", "left as it is"}},
		{"data dir of another version", []string{"up", "-d", "--data-dir", otherVersion.dir}, []string{"--data-dir", otherVersion.dir, "Kubernetes v1.36.1", "left as it is"}},
		{"down with nothing running", []string{"down"}, []string{"no lab is running on state dir"}},
		{"port in use", []string{"up", "--port", busy}, []string{"--port", "127.0.0.1:" + busy, "in use"}},
		{"port out of range", []string{"up", "--port", "70000"}, []string{"--port 70000"}},
		{"data dir not writable", []string{"up", "-d", "--data-dir", filepath.Join(file, "data")}, []string{"--data-dir", file}},
		{"state dir not writable", []string{"--state-dir", filepath.Join(file, "state"), "up"}, []string{"--state-dir", file}},
		{"CRD path missing", []string{"up", "--crds", filepath.Join(file, "crds")}, []string{"--crds", file}},
		{"CRD path without a CRD", []string{"up", "--crds", file}, []string{"--crds", "no CustomResourceDefinition", file}},
		{"unknown component", []string{"up", "--components", "kubelet"}, []string{"--components", `"kubelet"`}},
		{"webhook path missing", []string{"up", "--webhooks", filepath.Join(file, "webhooks")}, []string{"--webhooks", file}},
		{"webhook URL elsewhere", []string{"up", "--webhooks", "testdata/bad-webhooks/url-elsewhere.yaml"},
			[]string{"--webhooks", "url-elsewhere.yaml", "ValidatingWebhookConfiguration elsewhere, webhooks[0] (velsewhere.example.com)", `clientConfig.url "https://webhooks.example.com:8443/validate" is not on this machine`, "clientConfig.service"}},
		{"webhook manifest of another kind", []string{"up", "--webhooks", "testdata/bad-webhooks/not-a-webhook.yaml"}, []string{"--webhooks", "not-a-webhook.yaml", `kind "Deployment"`}},
		{"webhook manifest with a typo", []string{"up", "--webhooks", "testdata/bad-webhooks/unknown-field.yaml"}, []string{"--webhooks", "unknown-field.yaml", "MutatingWebhookConfiguration typo", `unknown field "sideEfects"`}},
		{"conversion webhook elsewhere", []string{"up", "--crds", "testdata/bad-webhooks/conversion-elsewhere"}, []string{"--crds", "CustomResourceDefinition things.example.com, spec.conversion.webhook", `"https://10.96.0.10/convert" is not on this machine`}},
		{"node capacity of an unknown resource", []string{"up", "--node-capacity", "gpu=1"}, []string{"--node-capacity gpu=1", `unknown resource "gpu"`, "cpu, memory or pods"}},
		{"node capacity not a quantity", []string{"up", "--node-capacity", "memory=lots"}, []string{"--node-capacity memory=lots", "not a quantity"}},
		{"node capacity not positive", []string{"up", "--node-capacity", "cpu=0"}, []string{"--node-capacity cpu=0", "must be positive"}},
		{"node pods not whole", []string{"up", "--node-capacity", "pods=1500m"}, []string{"--node-capacity pods=1500m", "whole number"}},
		{"node capacity without =", []string{"up", "--node-capacity", "cpu"}, []string{"--node-capacity", "cpu"}},
		{"web UI port in use", []string{"up", "--ui-port", busy}, []string{"--ui-port", "127.0.0.1:" + busy, "in use"}},
		{"web UI port out of range", []string{"up", "--ui-port", "-1"}, []string{"--ui-port -1"}},
		{"web UI port and no web UI", []string{"up", "--ui-port", "8080", "--no-ui"}, []string{"--ui-port 8080", "--no-ui"}},
		{"webhook port without webhooks", []string{"up", "--webhook-port", "9443"}, []string{"--webhook-port 9443", "--webhooks"}},
		{"crd migrate of a custom resource", []string{"crd", "migrate", "../../fixtures/samples/user-admin.yaml"}, []string{"user-admin.yaml", "not an apiextensions.k8s.io/v1beta1 CustomResourceDefinition"}},
		{"kubectl with nothing running", []string{"kubectl", "get", "ns"}, []string{"no lab is running", "crdlab up -d"}},
		{"state dir too long for a socket", []string{"--state-dir", filepath.Join(os.TempDir(), strings.Repeat("s", 100)), "up", "-d"}, []string{"--state-dir", "too long", "at most 107"}},
		{"unknown scenario", []string{"scenario", "run", "no-such"}, []string{`no scenario "no-such"`, "delete-pod"}},
		{"scenario file missing", []string{"scenario", "run", "./missing.yaml"}, []string{"missing.yaml"}},
		{"scenario output format", []string{"scenario", "run", "-o", "yaml", "delete-pod"}, []string{"--output", `"yaml"`}},
		{"scenario kubeconfig missing", []string{"scenario", "run", "--kubeconfig", filepath.Join(file, "kc"), "invalid-cr"}, []string{"--kubeconfig", file}},
		{"scenario junit not writable", []string{"scenario", "run", "--junit", filepath.Join(file, "r.xml"), "invalid-cr"}, []string{"--junit", file}},
		{"scenario names and --all", []string{"scenario", "run", "--all", "delete-pod"}, []string{"--all"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCLI(t)
			out, code := c.run(tc.args...)
			if code == 0 {
				t.Fatalf("exit 0, want an error:\n%s", out)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			last := lines[len(lines)-1]
			if !strings.HasPrefix(last, "Error: ") {
				t.Errorf("last line %q is not an Error: line; output:\n%s", last, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(last, w) {
					t.Errorf("error %q does not name %q", last, w)
				}
			}
			if left := c.processes(); len(left) != 0 {
				t.Errorf("processes left: %v", left)
			}
		})
	}
	for _, d := range []dataDir{corrupt, otherVersion} {
		if now := d.sums(t); !maps.Equal(now, d.before) {
			t.Errorf("a refused data dir %s was modified: %v, was %v", d.dir, now, d.before)
		}
	}
}

// dataDir is a data dir and the checksums of its files.
type dataDir struct {
	dir    string
	before map[string]string
}

func (d dataDir) sums(t *testing.T) map[string]string {
	t.Helper()
	sums := map[string]string{}
	err := filepath.WalkDir(d.dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		sums[path] = fmt.Sprintf("%x", sha256.Sum256(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sums
}

// badDataDirs makes, with a lab of its own, a data dir with a corrupted
// etcd database and one that says another Kubernetes version wrote it.
func badDataDirs(t *testing.T) (corrupt, otherVersion dataDir) {
	t.Helper()
	good := filepath.Join(t.TempDir(), "data")
	c := newCLI(t)
	c.mustRun("up", "-d", "--data-dir", good, "--components", "none")
	c.mustRun("down")
	corrupt.dir, otherVersion.dir = filepath.Join(t.TempDir(), "corrupt"), filepath.Join(t.TempDir(), "other")
	for _, dir := range []string{corrupt.dir, otherVersion.dir} {
		if out, err := exec.Command("cp", "-a", good, dir).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v\n%s", err, out)
		}
	}
	db := filepath.Join(corrupt.dir, "etcd", "member", "snap", "db")
	f, err := os.OpenFile(db, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(bytes.Repeat([]byte{0xde, 0xad}, 8192), 0); err != nil { // its bbolt header and meta pages
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	meta := `{"kubernetes": "v1.36.1", "etcd": "v3.6.4", "crdlab": "v0.1.0"}`
	if err := os.WriteFile(filepath.Join(otherVersion.dir, "crdlab-data.json"), []byte(meta), 0o600); err != nil {
		t.Fatal(err)
	}
	corrupt.before, otherVersion.before = corrupt.sums(t), otherVersion.sums(t)
	return corrupt, otherVersion
}

// Four labs started at the same moment on four state dirs: no port clash,
// no race on the files they share (the etcd template in the cache dir),
// each serves on its own, and each stops with nothing left (envtest's
// #1363 and #1909 are the anchor).
func TestFourLabsAtOnce(t *testing.T) {
	clis := make([]*cli, 4)
	for i := range clis {
		clis[i] = newCLI(t)
	}
	type result struct {
		out  string
		code int
	}
	results := make([]result, len(clis))
	var wg sync.WaitGroup
	for i, c := range clis {
		wg.Go(func() {
			var out bytes.Buffer
			cmd := c.command("up", "-d", "--no-samples", "--nodes", "1")
			cmd.Stdout, cmd.Stderr = &out, &out
			code := 0
			if err := cmd.Run(); err != nil {
				code = -1
				if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
					code = ee.ExitCode()
				}
			}
			results[i] = result{out.String(), code}
		})
	}
	wg.Wait()
	endpoints := map[string]int{}
	for i, r := range results {
		if r.code != 0 {
			t.Fatalf("lab %d: up -d exited %d:\n%s", i, r.code, r.out)
		}
		st, err := control.Dir(clis[i].stateDir).Status()
		if err != nil {
			t.Fatalf("lab %d: %v", i, err)
		}
		if j, dup := endpoints[st.Endpoint]; dup {
			t.Errorf("labs %d and %d both serve %s", j, i, st.Endpoint)
		}
		endpoints[st.Endpoint] = i
	}
	// Ready means ready: a Deployment created the moment up -d returned
	// gets its Pods, scheduled and Running on the lab's node.
	for i, c := range clis {
		c.kubectl("", "create", "deployment", "at-ready", "--image=nginx", "--replicas=2")
		if out := c.kubectl("", "wait", "--for=condition=Available", "deployment/at-ready", "--timeout=90s"); !strings.Contains(out, "condition met") {
			t.Errorf("lab %d: the Deployment created at ready is not Available:\n%s", i, out)
		}
	}
	// Each is its own cluster: a namespace made in one is in no other.
	for i, c := range clis {
		c.kubectl("", "create", "namespace", fmt.Sprintf("only-in-lab-%d", i))
	}
	for i, c := range clis {
		out := c.kubectl("", "get", "namespaces", "-o", "name")
		for j := range clis {
			if has := strings.Contains(out, fmt.Sprintf("only-in-lab-%d", j)); has != (i == j) {
				t.Errorf("lab %d lists namespace only-in-lab-%d: %v\n%s", i, j, has, out)
			}
		}
	}
	for i, c := range clis {
		tree := c.labTree()
		if out, code := c.run("down"); code != 0 {
			t.Errorf("lab %d: down exited %d:\n%s", i, code, out)
		}
		expectGone(t, tree, 0)
	}
}

// writeTemp writes content to a temporary file and returns its path.
func writeTemp(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "object.yaml")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRBACWorksTheMomentALabIsReady: 'up -d' returns when the apiserver's
// bootstrap hooks found the bootstrap RBAC policy (not after their 1 s
// poll); at that moment RBAC authorizes with it, as Debian's kubectl sees.
func TestRBACWorksTheMomentALabIsReady(t *testing.T) {
	c := newCLI(t)
	c.mustRun("up", "-d", "--components", "none", "--no-samples", "--no-ui")
	defer c.mustRun("down")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"auth", "can-i", "list", "pods", "--as", "system:kube-scheduler"}, "yes"},
		{[]string{"auth", "can-i", "create", "replicasets.apps", "-n", "default", "--as", "system:serviceaccount:kube-system:deployment-controller"}, "yes"},
		{[]string{"auth", "can-i", "get", "/apis", "--as", "alice"}, "yes"},
		{[]string{"auth", "can-i", "list", "pods", "-n", "default", "--as", "alice"}, "no"},
	} {
		cmd := exec.Command("kubectl", tc.args...)
		cmd.Env = append(os.Environ(), "KUBECONFIG="+control.Dir(c.stateDir).Kubeconfig())
		out, _ := cmd.CombinedOutput() // can-i exits 1 for "no"
		if got := strings.TrimSpace(string(out)); got != tc.want {
			t.Errorf("kubectl %s: %q, want %q", strings.Join(tc.args, " "), got, tc.want)
		}
	}
	if log, err := os.ReadFile(control.Dir(c.stateDir).Log("kube-apiserver")); err != nil || strings.Count(string(log), "bootstrap objects found") != 2 {
		t.Errorf("the apiserver's log does not say both bootstrap hooks found their objects (%v)", err)
	}
}
