package controlplane

import (
	"crypto/x509"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/crdlab/crdlab/lab/internal/certs"
	"github.com/crdlab/crdlab/lab/internal/kubedefaults"
	"github.com/crdlab/crdlab/lab/internal/proc"
	"github.com/crdlab/crdlab/lab/multicall"
)

// apiServerTuning are the flags the lab adds when it runs its own, compiled
// in kube-apiserver (and so knows its version). Each one removes start-up or
// steady-state work a single-user local lab does not need; see docs/boot.md
// for what each saved.
var apiServerTuning = map[string]string{
	"profiling": "false",
	// API Priority and Fairness queues every request by flow schema and
	// priority level to keep one tenant from starving the others. A lab has
	// one user; the queueing only costs each request, most in a scale-up.
	// The flowcontrol.apiserver.k8s.io API is still served.
	"enable-priority-and-fairness": "false",
}

// certLifetime is how long a control plane's certificates are valid.
const certLifetime = 10 * 365 * 24 * time.Hour

// Files of the cert dir, as envtest names them.
const (
	ServingCertFile = "apiserver.crt"
	ServingKeyFile  = "apiserver.key"
	saCertFile      = "sa-signer.crt"
	saKeyFile       = "sa-signer.key"
	clientCAFile    = "client-cert-auth-ca.crt"
)

// APIServer is a lab's kube-apiserver, on 127.0.0.1, authenticating clients
// by certificates of its own client CA, on the etcd of its Plane.
type APIServer struct {
	// Path is the kube-apiserver executable.
	Path string
	// Port is its secure port on 127.0.0.1. Zero: a free port.
	Port int
	// CertDir holds its certificates, made afresh by Plane.Prepare; a
	// component that kube-apiserver is configured for (Aggregation) may
	// add its own there.
	CertDir string
	// LogPath is where its output goes.
	LogPath string

	// Audit, if set, has it write an audit log.
	Audit *Audit
	// Aggregation, if set, configures it for aggregated API servers.
	Aggregation *Aggregation
	// NodeFailureToleration, if set, is how many seconds the Pods of a
	// node that is not ready or unreachable stay bound to it before they
	// are evicted (the default tolerations it gives every Pod).
	NodeFailureToleration string
	// MaxRequestsInFlight and MaxMutatingRequestsInFlight, if set, are how
	// many read-only and mutating requests it serves at once; over them it
	// answers 429 Too Many Requests (priority and fairness being off, the
	// only limits). Zero: Kubernetes' defaults, 400 and 200.
	MaxRequestsInFlight, MaxMutatingRequestsInFlight int
	// FeatureGates, if set, are given in --feature-gates; a gate that a
	// feature-gates of Flags names is that flag's alone.
	FeatureGates map[string]bool
	// Flags are set over everything else, as name=value pairs without the
	// leading dashes (lab.Options.APIServerFlags).
	Flags map[string]string

	own              bool // this program's own kube-apiserver (Plane.Own)
	addr             string
	etcdURL          string
	insecurePortFlag bool      // other binaries: before Kubernetes 1.24
	servingCA        []byte    // PEM of the CA that signed apiserver.crt
	clientCA         *certs.CA // signs the users' client certificates
	process          *proc.Child
}

// Audit is kube-apiserver's audit log.
type Audit struct {
	PolicyFile string // written by Plane.Build (AuditPolicy)
	LogPath    string // JSON lines, rotated at 50 MB, one backup
}

// Aggregation is what kube-apiserver needs to front aggregated API
// servers: the front-proxy client certificate it presents to them, the
// request-header CA and headers they check it with, and the egress
// selector that sends its traffic to them.
type Aggregation struct {
	RequestHeaderCAFile  string
	AllowedNames         string
	UserHeader           string
	GroupHeader          string
	ExtraHeadersPrefix   string
	ProxyClientCertFile  string
	ProxyClientKeyFile   string
	EgressSelectorConfig string
}

// Host is kube-apiserver's URL, as envtest gives it to clients.
func (a *APIServer) Host() string { return "https://" + a.addr + "/" }

// ServingCA is the PEM of the CA that signed kube-apiserver's serving
// certificate.
func (a *APIServer) ServingCA() []byte { return a.servingCA }

// ClientCAFile is kube-apiserver's --client-ca-file.
func (a *APIServer) ClientCAFile() string {
	if f, ok := a.Flags["client-ca-file"]; ok {
		return f
	}
	return filepath.Join(a.CertDir, clientCAFile)
}

// Process is kube-apiserver's process, once Plane.Build made it.
func (a *APIServer) Process() *proc.Child { return a.process }

// listen sets kube-apiserver's address on port of 127.0.0.1 and its etcd.
func (a *APIServer) listen(port int, etcdURL string) {
	a.addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	a.etcdURL = etcdURL
	a.insecurePortFlag = !a.own && hasFlag(a.Path, "insecure-port")
}

// args is kube-apiserver's command line, the one place it is assembled:
// envtest's defaults (controlplane.APIServer.defaultArgs and its minimal
// defaults) and its client certificate authentication
// (CertAuthn.Configure), on loopback only; the lab's tuning for its own
// kube-apiserver; the audit log and aggregation if asked for; and Flags
// over all of them.
func (a *APIServer) args() []string {
	defaults := map[string][]string{
		"service-cluster-ip-range":         {"10.0.0.0/24"},
		"allow-privileged":                 {"true"},
		"disable-admission-plugins":        {strings.Join(kubedefaults.DisabledAdmissionPlugins(), ",")},
		"cert-dir":                         {a.CertDir},
		"authorization-mode":               {"RBAC"},
		"secure-port":                      {a.port()},
		"bind-address":                     {"127.0.0.1"},
		"service-account-issuer":           {a.Host()},
		"service-account-key-file":         {filepath.Join(a.CertDir, saCertFile)},
		"service-account-signing-key-file": {filepath.Join(a.CertDir, saKeyFile)},
		"etcd-servers":                     {a.etcdURL},
	}
	if a.insecurePortFlag {
		defaults["insecure-port"] = []string{"0"}
	}
	args := envtest.EmptyArguments()
	args.Set("client-ca-file", filepath.Join(a.CertDir, clientCAFile))
	// The endpoint reconciler refuses loopback addresses for the
	// kubernetes Service, so it is off (the Service exists, without
	// endpoints).
	args.Set("advertise-address", "127.0.0.1")
	args.Set("endpoint-reconciler-type", "none")
	if a.own {
		for k, v := range apiServerTuning {
			args.Set(k, v)
		}
	}
	if au := a.Audit; au != nil {
		args.Set("audit-policy-file", au.PolicyFile)
		args.Set("audit-log-path", au.LogPath)
		args.Set("audit-log-format", "json")
		args.Set("audit-log-maxsize", "50") // MB, then rotated
		args.Set("audit-log-maxbackup", "1")
	}
	if ag := a.Aggregation; ag != nil {
		args.Set("requestheader-client-ca-file", ag.RequestHeaderCAFile)
		args.Set("requestheader-allowed-names", ag.AllowedNames)
		args.Set("requestheader-username-headers", ag.UserHeader)
		args.Set("requestheader-group-headers", ag.GroupHeader)
		args.Set("requestheader-extra-headers-prefix", ag.ExtraHeadersPrefix)
		args.Set("proxy-client-cert-file", ag.ProxyClientCertFile)
		args.Set("proxy-client-key-file", ag.ProxyClientKeyFile)
		args.Set("egress-selector-config-file", ag.EgressSelectorConfig)
	}
	if s := a.NodeFailureToleration; s != "" {
		args.Set("default-not-ready-toleration-seconds", s)
		args.Set("default-unreachable-toleration-seconds", s)
	}
	if n := a.MaxRequestsInFlight; n > 0 {
		args.Set("max-requests-inflight", strconv.Itoa(n))
	}
	if n := a.MaxMutatingRequestsInFlight; n > 0 {
		args.Set("max-mutating-requests-inflight", strconv.Itoa(n))
	}
	for k, v := range a.Flags {
		args.Set(k, v)
	}
	if gates := featureGates(a.FeatureGates, a.Flags["feature-gates"]); gates != "" {
		args.Set("feature-gates", gates)
	}
	return args.AsStrings(defaults)
}

func (a *APIServer) port() string {
	_, port, _ := net.SplitHostPort(a.addr)
	return port
}

// makeCerts writes the serving certificate, the service account signing
// key and the client CA into CertDir, under envtest's names.
func (a *APIServer) makeCerts() error {
	if err := os.RemoveAll(a.CertDir); err != nil {
		return fmt.Errorf("unable to clear cert dir %s: %w", a.CertDir, err)
	}
	if err := os.MkdirAll(a.CertDir, 0o700); err != nil {
		return fmt.Errorf("unable to create cert dir %s: %w", a.CertDir, err)
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
	if a.clientCA, err = certs.NewCA("crdlab client CA", certLifetime); err != nil {
		return err
	}
	a.servingCA = serving.PEM
	return certs.WriteFiles(map[string][]byte{
		filepath.Join(a.CertDir, ServingCertFile): cert,
		filepath.Join(a.CertDir, ServingKeyFile):  key,
		filepath.Join(a.CertDir, saCertFile):      sa.PEM,
		filepath.Join(a.CertDir, saKeyFile):       saKey,
		filepath.Join(a.CertDir, clientCAFile):    a.clientCA.PEM,
	})
}

// AddUser provisions user, in groups, with a client certificate of
// kube-apiserver's client CA, and returns a configuration for it on base.
func (a *APIServer) AddUser(user string, groups []string, base *rest.Config) (*rest.Config, error) {
	cert, key, err := a.clientCA.IssueClient(user, groups...)
	if err != nil {
		return nil, fmt.Errorf("unable to provision user %s: %w", user, err)
	}
	cfg := &rest.Config{}
	if base != nil {
		cfg = rest.CopyConfig(base)
	}
	cfg.Host = a.Host()
	cfg.CAData = a.servingCA
	cfg.CertData, cfg.KeyData = cert, key
	return cfg, nil
}

// build makes kube-apiserver's process from its command line, writing
// the audit policy it names first.
func (a *APIServer) build(env []string) error {
	if a.Audit != nil {
		if err := os.WriteFile(a.Audit.PolicyFile, []byte(AuditPolicy), 0o600); err != nil {
			return fmt.Errorf("unable to write the audit policy: %w", err)
		}
	}
	a.process = &proc.Child{
		Name:    multicall.KubeAPIServer,
		Path:    a.Path,
		Args:    a.args(),
		Env:     env,
		Health:  "https://" + a.addr + "/readyz",
		LogPath: a.LogPath,
	}
	return nil
}

// featureGates is the value of --feature-gates: theirs (the value of a
// feature-gates flag, name=bool pairs), and each of ours that theirs does
// not name, ours first, in order of name.
func featureGates(ours map[string]bool, theirs string) string {
	named := map[string]bool{}
	for kv := range strings.SplitSeq(theirs, ",") {
		name, _, _ := strings.Cut(kv, "=")
		named[strings.TrimSpace(name)] = true
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(ours)) {
		if !named[name] {
			out = append(out, name+"="+strconv.FormatBool(ours[name]))
		}
	}
	if strings.TrimSpace(theirs) != "" {
		out = append(out, theirs)
	}
	return strings.Join(out, ",")
}
