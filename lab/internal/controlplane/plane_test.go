package controlplane

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
	cp := &Plane{
		Own:  true,
		Etcd: Etcd{Path: "/bin/etcd", DataDir: filepath.Join(dir, "data"), LogPath: filepath.Join(dir, "etcd.log")},
		APIServer: APIServer{
			Path: "/bin/kube-apiserver", Port: 6443, CertDir: filepath.Join(dir, "certs"), LogPath: filepath.Join(dir, "api.log"),
			Audit:                 &Audit{PolicyFile: filepath.Join(dir, "audit-policy.yaml"), LogPath: filepath.Join(dir, "audit.log")},
			Flags:                 map[string]string{"service-cluster-ip-range": "10.96.0.0/16"},
			NodeFailureToleration: "10",
			MaxRequestsInFlight:   2000, MaxMutatingRequestsInFlight: 1000,
			FeatureGates: map[string]bool{"ListFromCacheSnapshot": false},
		},
	}
	if err := cp.Prepare(); err != nil {
		t.Fatal(err)
	}
	if err := cp.Build([]string{"A=1"}, time.Minute); err != nil {
		t.Fatal(err)
	}
	etcdURL := cp.Etcd.URL()
	etcdProc, apiProc := cp.Etcd.Process(), cp.APIServer.Process()
	etcd, api := etcdProc.Args, apiProc.Args
	for _, want := range []string{
		"--data-dir=" + filepath.Join(dir, "data"), "--listen-client-urls=" + etcdURL,
		"--advertise-client-urls=" + etcdURL, "--unsafe-no-fsync=true", "--election-timeout=100",
	} {
		if !slices.Contains(etcd, want) {
			t.Errorf("etcd's flags %q lack %s", etcd, want)
		}
	}
	for _, want := range []string{
		"--secure-port=6443", "--bind-address=127.0.0.1", "--etcd-servers=" + etcdURL,
		"--authorization-mode=RBAC", "--disable-admission-plugins=ServiceAccount", "--allow-privileged=true",
		"--service-account-issuer=https://127.0.0.1:6443/", "--advertise-address=127.0.0.1",
		"--endpoint-reconciler-type=none", "--enable-priority-and-fairness=false",
		"--service-cluster-ip-range=10.96.0.0/16", "--audit-log-format=json",
		"--default-unreachable-toleration-seconds=10", "--default-not-ready-toleration-seconds=10",
		"--max-requests-inflight=2000", "--max-mutating-requests-inflight=1000",
		"--feature-gates=ListFromCacheSnapshot=false",
	} {
		if !slices.Contains(api, want) {
			t.Errorf("kube-apiserver's flags %q lack %s", api, want)
		}
	}
	if slices.Contains(api, "--service-cluster-ip-range=10.0.0.0/24") {
		t.Errorf("envtest's default stayed beside the lab's value: %q", api)
	}
	for _, flag := range []string{"cert-dir", "client-ca-file", "service-account-key-file", "service-account-signing-key-file", "audit-policy-file"} {
		path := value(api, flag)
		if path == "" {
			t.Errorf("kube-apiserver has no --%s: %q", flag, api)
			continue
		}
		if _, err := os.Stat(path); err != nil {
			t.Errorf("--%s: %v", flag, err)
		}
	}
	for _, name := range []string{ServingCertFile, ServingKeyFile} {
		if _, err := os.Stat(filepath.Join(cp.APIServer.CertDir, name)); err != nil {
			t.Errorf("serving certificate: %v", err)
		}
	}
	if apiProc.Health != "https://127.0.0.1:6443/readyz" || etcdProc.Health != etcdURL+"/health" {
		t.Errorf("health endpoints %s, %s", apiProc.Health, etcdProc.Health)
	}
	if !slices.Contains(apiProc.Env, "A=1") || !slices.ContainsFunc(apiProc.Env, func(e string) bool { return strings.HasPrefix(e, "CRDLAB_WAIT_FOR_ETCD=1m0s") }) {
		t.Errorf("kube-apiserver's environment %q", apiProc.Env)
	}
	if slices.ContainsFunc(etcdProc.Env, func(e string) bool { return strings.HasPrefix(e, "CRDLAB_WAIT_FOR_ETCD=") }) {
		t.Errorf("etcd's environment %q", etcdProc.Env)
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

// The lab's feature gates are given with the user's, and a gate the user
// names is the user's alone.
func TestFeatureGates(t *testing.T) {
	ours := map[string]bool{"ListFromCacheSnapshot": false, "A": true}
	for _, tc := range []struct {
		ours   map[string]bool
		theirs string
		want   string
	}{
		{nil, "", ""},
		{nil, "B=true", "B=true"},
		{ours, "", "A=true,ListFromCacheSnapshot=false"},
		{ours, "B=false", "A=true,ListFromCacheSnapshot=false,B=false"},
		{ours, "ListFromCacheSnapshot=true", "A=true,ListFromCacheSnapshot=true"},
		{ours, "B=true, ListFromCacheSnapshot=true", "A=true,B=true, ListFromCacheSnapshot=true"},
		{ours, "A=false,ListFromCacheSnapshot=true", "A=false,ListFromCacheSnapshot=true"},
	} {
		if got := featureGates(tc.ours, tc.theirs); got != tc.want {
			t.Errorf("featureGates(%v, %q) = %q, want %q", tc.ours, tc.theirs, got, tc.want)
		}
	}
}
