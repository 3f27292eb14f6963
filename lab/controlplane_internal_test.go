package lab

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The command lines the lab builds are envtest's, with the lab's tuning
// for its own binaries, and what the lab sets wins over a default; the
// files they name exist.
func TestControlPlaneCommandLines(t *testing.T) {
	dir := t.TempDir()
	cp, err := newControlPlane(controlPlaneSpec{
		etcdPath: "/bin/etcd", apiPath: "/bin/kube-apiserver", self: true,
		dataDir: filepath.Join(dir, "data"), certDir: filepath.Join(dir, "certs"), port: 6443,
	})
	if err != nil {
		t.Fatal(err)
	}
	cp.apiArgs.Set("service-cluster-ip-range", "10.96.0.0/16")
	cp.children(filepath.Join(dir, "etcd.log"), filepath.Join(dir, "api.log"), []string{"A=1"}, time.Minute)

	etcd, api := cp.etcd.Args, cp.apiserver.Args
	for _, want := range []string{
		"--data-dir=" + filepath.Join(dir, "data"), "--listen-client-urls=" + cp.etcdURL,
		"--advertise-client-urls=" + cp.etcdURL, "--unsafe-no-fsync=true", "--election-timeout=100",
	} {
		if !slices.Contains(etcd, want) {
			t.Errorf("etcd's flags %q lack %s", etcd, want)
		}
	}
	for _, want := range []string{
		"--secure-port=6443", "--bind-address=127.0.0.1", "--etcd-servers=" + cp.etcdURL,
		"--authorization-mode=RBAC", "--disable-admission-plugins=ServiceAccount", "--allow-privileged=true",
		"--service-account-issuer=https://127.0.0.1:6443/", "--advertise-address=127.0.0.1",
		"--endpoint-reconciler-type=none", "--enable-priority-and-fairness=false",
		"--service-cluster-ip-range=10.96.0.0/16",
	} {
		if !slices.Contains(api, want) {
			t.Errorf("kube-apiserver's flags %q lack %s", api, want)
		}
	}
	if slices.Contains(api, "--service-cluster-ip-range=10.0.0.0/24") {
		t.Errorf("envtest's default stayed beside the lab's value: %q", api)
	}
	for _, flag := range []string{"cert-dir", "client-ca-file", "service-account-key-file", "service-account-signing-key-file"} {
		path := value(api, flag)
		if path == "" {
			t.Errorf("kube-apiserver has no --%s: %q", flag, api)
			continue
		}
		if _, err := os.Stat(path); err != nil {
			t.Errorf("--%s: %v", flag, err)
		}
	}
	for _, name := range []string{servingCertFile, servingKeyFile} {
		if _, err := os.Stat(filepath.Join(cp.certDir, name)); err != nil {
			t.Errorf("serving certificate: %v", err)
		}
	}
	if cp.apiserver.Health != "https://127.0.0.1:6443/readyz" || cp.etcd.Health != cp.etcdURL+"/health" {
		t.Errorf("health endpoints %s, %s", cp.apiserver.Health, cp.etcd.Health)
	}
	if !slices.Contains(cp.apiserver.Env, "A=1") || !slices.ContainsFunc(cp.apiserver.Env, func(e string) bool { return strings.HasPrefix(e, "CRDLAB_WAIT_FOR_ETCD=1m0s") }) {
		t.Errorf("kube-apiserver's environment %q", cp.apiserver.Env)
	}
	if slices.ContainsFunc(cp.etcd.Env, func(e string) bool { return strings.HasPrefix(e, "CRDLAB_WAIT_FOR_ETCD=") }) {
		t.Errorf("etcd's environment %q", cp.etcd.Env)
	}
}

// value returns the value of --name=value in args.
func value(args []string, name string) string {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v
		}
	}
	return ""
}
