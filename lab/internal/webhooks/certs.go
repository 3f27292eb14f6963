// Package webhooks serves a lab's calls to the webhooks of a user's own
// server: it reads the user's webhook configurations, makes the serving
// certificate for 127.0.0.1, rewrites every clientConfig (and every CRD's
// conversion webhook) to a front on 127.0.0.1 that forwards each call to
// the user's server and puts it on the timeline.
package webhooks

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/crdlab/crdlab/lab/internal/certs"
	"github.com/crdlab/crdlab/lab/writefile"
)

// Files of a cert dir, named as controller-runtime's webhook server reads
// them.
const (
	CAFile   = "ca.crt"
	CertFile = "tls.crt"
	KeyFile  = "tls.key"
)

// certLifetime is how long a serving certificate is valid; one with less
// than a day left is made again.
const certLifetime = 365 * 24 * time.Hour

// Certs are the serving certificate and key of the webhooks and the CA
// that signed it, kept in Dir.
type Certs struct {
	Dir  string
	CA   []byte // PEM, the configurations' caBundle
	pool *x509.CertPool
	pair tls.Certificate
}

// EnsureCerts returns the certificates in dir, made there if dir holds
// none or none still valid for 127.0.0.1, so that a webhook server started
// once keeps working across labs on the same state dir.
func EnsureCerts(dir string) (*Certs, error) {
	if c, err := loadCerts(dir); err == nil {
		return c, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("unable to make the webhook cert dir: %w", err)
	}
	ca, err := certs.NewCA("crdlab webhook CA", certLifetime)
	if err != nil {
		return nil, err
	}
	cert, key, err := ca.Issue("127.0.0.1", x509.ExtKeyUsageServerAuth, "127.0.0.1", "localhost")
	if err != nil {
		return nil, fmt.Errorf("unable to make the webhook serving certificate: %w", err)
	}
	files := map[string][]byte{
		CAFile:   ca.PEM,
		CertFile: cert,
		KeyFile:  key,
	}
	// The key first, the CA last: a half-written dir has no CA and is made
	// again.
	for _, name := range []string{KeyFile, CertFile, CAFile} {
		if err := writefile.Atomic(filepath.Join(dir, name), files[name], 0o600); err != nil {
			return nil, err
		}
	}
	return loadCerts(dir)
}

func loadCerts(dir string) (*Certs, error) {
	caPEM, err := os.ReadFile(filepath.Join(dir, CAFile))
	if err != nil {
		return nil, err
	}
	pair, err := tls.LoadX509KeyPair(filepath.Join(dir, CertFile), filepath.Join(dir, KeyFile))
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, errors.New("no CA certificate")
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return nil, err
	}
	if time.Until(leaf.NotAfter) < 24*time.Hour {
		return nil, errors.New("expires within a day")
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: "127.0.0.1"}); err != nil {
		return nil, err
	}
	return &Certs{Dir: dir, CA: bytes.TrimSpace(caPEM), pool: pool, pair: pair}, nil
}
