package lab

import (
	"context"
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/crdlab/crdlab/lab/internal/certs"
	"github.com/crdlab/crdlab/lab/internal/kubedefaults"
	"github.com/crdlab/crdlab/lab/internal/ports"
	"github.com/crdlab/crdlab/lab/internal/proc"
	"github.com/crdlab/crdlab/lab/multicall"
)

// The lab runs etcd and kube-apiserver itself, as proc.Child, like every
// other process of it: it builds their command lines from envtest's flag
// defaults (rendered through envtest.Arguments, so that the lab's tuning and
// Options.APIServerFlags override them as they would envtest's), makes their
// certificates and provisions their users. envtest only installs (see
// installEnvironment).

// certLifetime is how long a control plane's certificates are valid.
const certLifetime = 10 * 365 * 24 * time.Hour

// Files of a control plane's cert dir, as envtest names them.
const (
	servingCertFile = "apiserver.crt"
	servingKeyFile  = "apiserver.key"
	saCertFile      = "sa-signer.crt"
	saKeyFile       = "sa-signer.key"
	clientCAFile    = "client-cert-auth-ca.crt"
)

// controlPlane is a lab's etcd and kube-apiserver.
type controlPlane struct {
	etcdPath, apiPath string
	// together: they are this program's own, started at the same time
	// (kube-apiserver waits for etcd through multicall.WaitForEtcdEnv).
	together bool

	etcdURL   string // http://127.0.0.1:PORT
	apiAddr   string // 127.0.0.1:PORT
	certDir   string
	servingCA []byte    // PEM of the CA that signed apiserver.crt
	clientCA  *certs.CA // signs the users' client certificates

	// The flags set over envtest's defaults (the lab's tuning, its
	// components' needs, Options.APIServerFlags), and those defaults.
	etcdArgs, apiArgs *envtest.Arguments
	etcdDefaults      map[string][]string
	apiDefaults       map[string][]string

	etcd, apiserver *proc.Child // once children made them
}

// controlPlaneSpec says what newControlPlane builds.
type controlPlaneSpec struct {
	etcdPath, apiPath string
	self              bool   // this program's own binaries: tuned, started together
	dataDir           string // etcd's
	certDir           string // made afresh
	port              int    // kube-apiserver's; zero: a free port
}

// newControlPlane makes the certificates of a control plane and the
// command lines of its etcd and kube-apiserver, with envtest's defaults
// and, for this program's own binaries, the lab's tuning.
func newControlPlane(spec controlPlaneSpec) (*controlPlane, error) {
	cp := &controlPlane{etcdPath: spec.etcdPath, apiPath: spec.apiPath, together: spec.self, certDir: spec.certDir}
	free, err := ports.Free(3)
	if err != nil {
		return nil, err
	}
	if spec.port != 0 {
		free[2] = spec.port
	}
	cp.etcdURL = "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(free[0]))
	peerURL := "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(free[1]))
	cp.apiAddr = net.JoinHostPort("127.0.0.1", strconv.Itoa(free[2]))
	if err := cp.makeCerts(); err != nil {
		return nil, err
	}

	// etcd: envtest's defaults (controlplane.Etcd.defaultArgs).
	cp.etcdArgs = envtest.EmptyArguments()
	cp.etcdDefaults = map[string][]string{
		"listen-peer-urls":      {peerURL},
		"data-dir":              {spec.dataDir},
		"advertise-client-urls": {cp.etcdURL},
		"listen-client-urls":    {cp.etcdURL},
	}
	if spec.self || hasFlag(spec.etcdPath, "unsafe-no-fsync") {
		cp.etcdDefaults["unsafe-no-fsync"] = []string{"true"}
	}

	// kube-apiserver: envtest's defaults (controlplane.APIServer.defaultArgs
	// and its minimal defaults), and its client certificate authentication
	// (CertAuthn.Configure).
	cp.apiArgs = envtest.EmptyArguments()
	cp.apiDefaults = map[string][]string{
		"service-cluster-ip-range":         {"10.0.0.0/24"},
		"allow-privileged":                 {"true"},
		"disable-admission-plugins":        {strings.Join(kubedefaults.DisabledAdmissionPlugins(), ",")},
		"cert-dir":                         {cp.certDir},
		"authorization-mode":               {"RBAC"},
		"secure-port":                      {strconv.Itoa(free[2])},
		"bind-address":                     {"127.0.0.1"},
		"service-account-issuer":           {cp.host()},
		"service-account-key-file":         {filepath.Join(cp.certDir, saCertFile)},
		"service-account-signing-key-file": {filepath.Join(cp.certDir, saKeyFile)},
		"etcd-servers":                     {cp.etcdURL},
	}
	if !spec.self && hasFlag(spec.apiPath, "insecure-port") {
		cp.apiDefaults["insecure-port"] = []string{"0"} // before Kubernetes 1.24
	}
	cp.apiArgs.Set("client-ca-file", cp.clientCAFile())
	// On loopback only. The endpoint reconciler refuses loopback addresses
	// for the kubernetes Service, so it is off (the Service exists, without
	// endpoints).
	cp.apiArgs.Set("advertise-address", "127.0.0.1")
	cp.apiArgs.Set("endpoint-reconciler-type", "none")
	if spec.self {
		for k, v := range etcdTuning {
			cp.etcdArgs.Set(k, v)
		}
		for k, v := range apiServerTuning {
			cp.apiArgs.Set(k, v)
		}
	}
	return cp, nil
}

// makeCerts writes the apiserver's serving certificate, the service account
// signing key and the client CA into the cert dir, under envtest's names.
func (cp *controlPlane) makeCerts() error {
	if err := os.RemoveAll(cp.certDir); err != nil {
		return fmt.Errorf("unable to clear cert dir %s: %w", cp.certDir, err)
	}
	if err := os.MkdirAll(cp.certDir, 0o700); err != nil {
		return fmt.Errorf("unable to create cert dir %s: %w", cp.certDir, err)
	}
	serving, err := certs.NewCA("crdlab kube-apiserver CA", certLifetime)
	if err != nil {
		return err
	}
	cert, key, err := serving.Issue("localhost", x509.ExtKeyUsageServerAuth, "localhost", "127.0.0.1")
	if err != nil {
		return err
	}
	sa, err := certs.NewCA("crdlab service accounts", certLifetime)
	if err != nil {
		return err
	}
	saKey, err := sa.KeyPEM()
	if err != nil {
		return err
	}
	if cp.clientCA, err = certs.NewCA("crdlab client CA", certLifetime); err != nil {
		return err
	}
	cp.servingCA = serving.PEM
	return certs.WriteFiles(map[string][]byte{
		filepath.Join(cp.certDir, servingCertFile): cert,
		filepath.Join(cp.certDir, servingKeyFile):  key,
		filepath.Join(cp.certDir, saCertFile):      sa.PEM,
		filepath.Join(cp.certDir, saKeyFile):       saKey,
		cp.clientCAFile():                          cp.clientCA.PEM,
	})
}

// clientCAFile is kube-apiserver's --client-ca-file.
func (cp *controlPlane) clientCAFile() string { return filepath.Join(cp.certDir, clientCAFile) }

// host is kube-apiserver's URL, as envtest gives it to clients.
func (cp *controlPlane) host() string { return "https://" + cp.apiAddr + "/" }

// children makes the processes of the control plane from its command
// lines as they are now; env is added to their environment, and, to this
// program's own, multicall.BootGCEnviron. kube-apiserver started together
// with etcd waits for it for up to wait.
func (cp *controlPlane) children(etcdLog, apiLog string, env []string, wait time.Duration) {
	if cp.together {
		env = append(env[:len(env):len(env)], multicall.BootGCEnviron()...)
	}
	cp.etcd = &proc.Child{
		Name:    multicall.Etcd,
		Path:    cp.etcdPath,
		Args:    cp.etcdArgs.AsStrings(cp.etcdDefaults),
		Env:     env,
		Health:  cp.etcdURL + "/health",
		LogPath: etcdLog,
	}
	apiEnv := env
	if cp.together {
		apiEnv = append(apiEnv[:len(apiEnv):len(apiEnv)], multicall.WaitForEtcdEnv+"="+wait.String())
	}
	cp.apiserver = &proc.Child{
		Name:    multicall.KubeAPIServer,
		Path:    cp.apiPath,
		Args:    cp.apiArgs.AsStrings(cp.apiDefaults),
		Env:     apiEnv,
		Health:  "https://" + cp.apiAddr + "/readyz",
		LogPath: apiLog,
	}
}

// start starts etcd and kube-apiserver and returns once kube-apiserver is
// ready. This program's own binaries start together: kube-apiserver's
// process start, package init and flag handling (about a tenth of a
// second) need no etcd, and it waits for etcd to answer before it builds
// its storage (multicall.WaitForEtcdEnv), so that no etcd client of its
// own ever meets a refused connection and backs off for a second. When
// etcd fails, kube-apiserver is stopped at once. Other binaries start one
// after the other, as envtest starts them. A failed start is a
// *proc.StartError naming the process.
func (cp *controlPlane) start(ctx context.Context, timeout time.Duration) error {
	if !cp.together {
		if err := cp.etcd.Start(ctx, timeout); err != nil {
			return err
		}
		return cp.apiserver.Start(ctx, timeout)
	}
	apiDone := make(chan error, 1)
	go func() { apiDone <- cp.apiserver.Start(ctx, timeout) }()
	if err := cp.etcd.Start(ctx, timeout); err != nil {
		_ = cp.apiserver.Stop(0)
		_ = <-apiDone // ended by that Stop: etcd's error is the one to return
		return err
	}
	return <-apiDone
}

// stop stops kube-apiserver at once (a lab has no use for its graceful
// shutdown, which drains requests and watches for about a second: etcd
// holds everything it wrote), then etcd, cleanly, within grace.
func (cp *controlPlane) stop(grace time.Duration) []error {
	var errs []error
	for _, c := range []struct {
		child *proc.Child
		grace time.Duration
	}{{cp.apiserver, 0}, {cp.etcd, grace}} {
		if c.child == nil {
			continue
		}
		if err := c.child.Stop(c.grace); err != nil {
			errs = append(errs, fmt.Errorf("unable to stop %s: %w", c.child.Name, err))
		}
	}
	return errs
}

// addUser provisions user, in groups, with a client certificate of the
// control plane's client CA, and returns a configuration for it on base.
func (cp *controlPlane) addUser(user string, groups []string, base *rest.Config) (*rest.Config, error) {
	cert, key, err := cp.clientCA.IssueClient(user, groups...)
	if err != nil {
		return nil, fmt.Errorf("unable to provision user %s: %w", user, err)
	}
	cfg := &rest.Config{}
	if base != nil {
		cfg = rest.CopyConfig(base)
	}
	cfg.Host = cp.host()
	cfg.CAData = cp.servingCA
	cfg.CertData, cfg.KeyData = cert, key
	return cfg, nil
}

// hasFlag reports whether the binary at path lists flag in its --help, as
// envtest checks it (for binaries other than this program's own, whose
// flags the lab knows).
func hasFlag(path, flag string) bool {
	out, err := exec.Command(path, "--help").CombinedOutput() //nolint:gosec // the user's chosen binary
	if err != nil {
		return false
	}
	return regexp.MustCompile(`(?m)^\s*--` + regexp.QuoteMeta(flag) + `\b`).Match(out)
}
