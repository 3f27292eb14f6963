package componentstest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crdlab/crdlab/lab/internal/certs"
	"github.com/crdlab/crdlab/lab/internal/ports"
	"github.com/crdlab/crdlab/lab/labtest/release"
)

// Want is what the executable under test must be.
type Want struct {
	Minor      string // "1.36": the module's folder, the executable's name
	Kubernetes string // "v1.36.5": k8s.io/kubernetes in the module's go.mod
}

// Build builds the package main in the current directory (the module's
// folder, where go test runs) as crdlab-k8s-<minor> in a temporary folder
// and returns its path: the executable as make components builds it, with
// its build information (the Kubernetes version it reports comes from it).
func Build(t *testing.T, w Want) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), release.ComponentsBinary(w.Minor))
	build := exec.Command("go", "build", "-o", exe, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -o %s .: %v\n%s", exe, err, out)
	}
	return exe
}

// CrdlabBinary returns crdlab's executable, whose etcd the components of
// every minor use: $CRDLAB_BINARY (make test-modules sets it), else the
// repository's bin/crdlab (make build).
func CrdlabBinary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("CRDLAB_BINARY"); bin != "" {
		return bin
	}
	bin, err := filepath.Abs("../../../bin/crdlab")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("no crdlab for etcd: set CRDLAB_BINARY or run make build (%v)", err)
	}
	return bin
}

// Run checks the executable exe (Build) against w.
func Run(t *testing.T, exe string, w Want) {
	crdlab := CrdlabBinary(t)
	dir := t.TempDir()
	link := func(name, target string) string {
		path := filepath.Join(dir, name)
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
		return path
	}
	etcd := link("etcd", crdlab)
	apiserver := link("kube-apiserver", exe)
	kubectl := link("kubectl", exe)
	controllerManager := link("kube-controller-manager", exe)
	scheduler := link("kube-scheduler", exe)

	t.Run("version", func(t *testing.T) { checkVersion(t, exe, crdlab, w) })
	t.Run("components' versions", func(t *testing.T) {
		for _, c := range []string{apiserver, controllerManager, scheduler} {
			out := run(t, c, "--version")
			if got, want := strings.TrimSpace(out), "Kubernetes "+w.Kubernetes; got != want {
				t.Errorf("%s --version printed %q, want %q", filepath.Base(c), got, want)
			}
		}
		var v struct {
			ClientVersion struct{ GitVersion string } `json:"clientVersion"`
		}
		if err := json.Unmarshal([]byte(run(t, kubectl, "version", "--client", "-o", "json")), &v); err != nil {
			t.Fatal(err)
		}
		if v.ClientVersion.GitVersion != w.Kubernetes {
			t.Errorf("kubectl version --client: %q, want %s", v.ClientVersion.GitVersion, w.Kubernetes)
		}
	})
	t.Run("kube-apiserver --help", func(t *testing.T) {
		fast := run(t, apiserver, "--help")
		real := exec.Command(apiserver, "--help")
		real.Env = append(os.Environ(), "CRDLAB_REAL_HELP=1")
		want, err := real.CombinedOutput()
		if err != nil {
			t.Fatalf("kube-apiserver --help (%s=1): %v", "CRDLAB_REAL_HELP", err)
		}
		if fast != string(want) {
			t.Errorf("kube-apiserver --help answers %d bytes, the real one %d: run 'make generate'", len(fast), len(want))
		}
		if !strings.Contains(fast, "--etcd-servers") {
			t.Errorf("kube-apiserver --help: no --etcd-servers in %.200q", fast)
		}
	})
	t.Run("boots on crdlab's etcd, the second time by the fast path", func(t *testing.T) {
		bootTwice(t, etcd, apiserver, kubectl, w)
	})
}

// run runs exe with args and returns its stdout; it fails the test when
// exe fails.
func run(t *testing.T, exe string, args ...string) string {
	t.Helper()
	cmd := exec.Command(exe, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(exe), strings.Join(args, " "), err, stderr.Bytes())
	}
	return string(out)
}

func checkVersion(t *testing.T, exe, crdlab string, w Want) {
	out := run(t, exe, "version")
	if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
		t.Errorf("version printed %q: want one line", out)
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	var v struct{ Crdlab, Kubernetes, Go string }
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("version printed %q: %v", out, err)
	}
	for _, key := range []string{`{"crdlab":`, `,"kubernetes":`, `,"go":`} {
		if !strings.Contains(out, key) {
			t.Errorf("version printed %q: no %s", out, key)
		}
	}
	if v.Kubernetes != w.Kubernetes {
		t.Errorf("version: kubernetes %q, want %s", v.Kubernetes, w.Kubernetes)
	}
	if v.Go != runtime.Version() {
		t.Errorf("version: go %q, want %s (the go that runs this test)", v.Go, runtime.Version())
	}
	// crdlab's version as crdlab version prints it: both built from this tree.
	var crdlabVersion string
	for line := range strings.Lines(run(t, crdlab, "version")) {
		if rest, ok := strings.CutPrefix(line, "crdlab:"); ok {
			crdlabVersion = strings.TrimSpace(rest)
		}
	}
	if v.Crdlab == "" || v.Crdlab != crdlabVersion {
		t.Errorf("version: crdlab %q, want %q as %s version prints it", v.Crdlab, crdlabVersion, crdlab)
	}
	// Under its own name with anything else: a usage error, exit 2.
	err := exec.Command(exe, "serve").Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Errorf("%s serve: %v, want exit status 2", filepath.Base(exe), err)
	}
}

// bootTwice starts etcd, then kube-apiserver with crdlab's wait for etcd,
// checks /version and that it is ready, stops kube-apiserver and starts it
// again on the same etcd: now the bootstrap objects are there, and each
// of the two patched hooks must say it found them.
func bootTwice(t *testing.T, etcdExe, apiserverExe, kubectl string, w Want) {
	dir := t.TempDir()
	clientPort, peerPort, apiPort := freePort(t), freePort(t), freePort(t)
	etcdURL := "http://127.0.0.1:" + clientPort
	peerURL := "http://127.0.0.1:" + peerPort
	start(t, filepath.Join(dir, "etcd.log"), nil, etcdExe,
		"--data-dir", filepath.Join(dir, "etcd"), "--unsafe-no-fsync",
		"--listen-client-urls", etcdURL, "--advertise-client-urls", etcdURL,
		"--listen-peer-urls", peerURL, "--initial-advertise-peer-urls", peerURL,
		"--initial-cluster", "default="+peerURL)

	ca, err := certs.NewCA("componentstest", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ca.KeyPEM()
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(dir, "sa.key")
	if err := os.WriteFile(keyFile, key, 0o600); err != nil {
		t.Fatal(err)
	}
	// kubectl's credentials: a static token of system:masters.
	const token = "componentstest"
	tokenFile := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokenFile, []byte(token+",admin,admin,system:masters\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	api := "https://127.0.0.1:" + apiPort
	args := []string{
		"--etcd-servers", etcdURL, "--cert-dir", filepath.Join(dir, "certs"),
		"--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1", "--secure-port", apiPort,
		"--service-cluster-ip-range", "10.0.0.0/24", "--authorization-mode", "RBAC",
		"--service-account-issuer", api, "--service-account-key-file", keyFile,
		"--service-account-signing-key-file", keyFile, "--token-auth-file", tokenFile,
		"--endpoint-reconciler-type", "none", // as a lab: the reconciler refuses loopback addresses
	}
	// Started together with etcd, as a lab starts them: it waits for etcd.
	env := []string{"CRDLAB_WAIT_FOR_ETCD=1m"}
	for boot := 1; boot <= 2; boot++ {
		logPath := filepath.Join(dir, fmt.Sprintf("kube-apiserver-%d.log", boot))
		stop := start(t, logPath, env, apiserverExe, args...)
		waitReady(t, api, logPath)
		var v struct{ GitVersion, Major, Minor string }
		if err := json.Unmarshal(get(t, api+"/version"), &v); err != nil {
			t.Fatal(err)
		}
		if v.GitVersion != w.Kubernetes || v.Major+"."+v.Minor != w.Minor {
			t.Errorf("boot %d: /version %+v, want %s (%s)", boot, v, w.Kubernetes, w.Minor)
		}
		out := run(t, kubectl, "--server", api, "--insecure-skip-tls-verify", "--token", token, "get", "--raw", "/version")
		if !strings.Contains(out, `"gitVersion": "`+w.Kubernetes+`"`) {
			t.Errorf("boot %d: kubectl get --raw /version printed %s, want %s", boot, out, w.Kubernetes)
		}
		stop()
		// On the empty etcd of the first boot each wrapped hook makes
		// the objects at once, with the original's own work, rather than
		// wait for the original's first try a second later.
		if made := count(t, logPath, "bootstrap objects made at once"); boot == 1 && made != 2 {
			t.Errorf("first boot on an empty etcd: %d hooks say 'bootstrap objects made at once' in %s, want 2 (rbac/bootstrap-roles, scheduling/bootstrap-system-priority-classes): the post-start patch did not make them", made, logPath)
		}
		if found := count(t, logPath, "bootstrap objects found"); boot == 2 && found != 2 {
			t.Errorf("second boot on a bootstrapped etcd: %d hooks say 'bootstrap objects found' in %s, want 2 (rbac/bootstrap-roles, scheduling/bootstrap-system-priority-classes): the post-start patch did not apply", found, logPath)
		}
	}
}

// start starts exe with args, its output to logPath, and returns a func
// that stops it (also called when the test ends).
func start(t *testing.T, logPath string, env []string, exe string, args ...string) (stop func()) {
	t.Helper()
	log, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Env = append(os.Environ(), env...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); log.Close(); close(done) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}
	t.Cleanup(stop)
	return stop
}

func freePort(t *testing.T) string {
	t.Helper()
	p, err := ports.Free(1)
	if err != nil {
		t.Fatal(err)
	}
	return strconv.Itoa(p[0])
}

var insecure = &http.Client{
	Timeout:   5 * time.Second,
	Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // the apiserver's self-signed serving certificate
}

// waitReady polls /readyz until it answers ok, for at most two minutes.
func waitReady(t *testing.T, api, logPath string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, api+"/readyz", nil)
		if resp, err := insecure.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-ctx.Done():
			log, _ := os.ReadFile(logPath)
			t.Fatalf("kube-apiserver not ready within 2m; its log:\n%s", tail(log, 4000))
		case <-tick.C:
		}
	}
}

func get(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := insecure.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s\n%s", url, resp.Status, b.Bytes())
	}
	return b.Bytes()
}

// count counts the lines of the file at path that contain s.
func count(t *testing.T, path, s string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if strings.Contains(sc.Text(), s) {
			n++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
