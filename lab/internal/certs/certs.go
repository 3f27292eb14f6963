// Package certs makes the certificates a lab's processes serve and
// authenticate with: a CA and the certificates it signs, on ECDSA P-256
// keys.
//
// Left to themselves, kube-controller-manager, kube-scheduler and an
// aggregated API server each make a self-signed serving certificate at
// start, on two RSA-2048 keys (a CA's and the server's): 25 to 150 ms of CPU
// per key on a 2-core machine, all of it while the lab boots. An ECDSA key
// takes tens of microseconds.
package certs

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"time"
)

// CA is a certificate authority that signs a lab's certificates.
type CA struct {
	cert     *x509.Certificate
	key      *ecdsa.PrivateKey
	lifetime time.Duration
	// PEM is the CA's certificate, PEM-encoded: what a client trusts (a
	// caBundle, a --client-ca-file).
	PEM []byte
}

// NewCA makes a CA named commonName whose certificates, its own included,
// are valid for lifetime.
func NewCA(commonName string, lifetime time.Duration) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(lifetime),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("unable to make CA %q: %w", commonName, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &CA{cert: cert, key: key, lifetime: lifetime, PEM: encode("CERTIFICATE", der)}, nil
}

// Issue signs a certificate for commonName, for usage (server or client
// authentication), valid for hosts: IP addresses and DNS names. It returns
// the certificate and its key, PEM-encoded.
func (ca *CA) Issue(commonName string, usage x509.ExtKeyUsage, hosts ...string) (certPEM, keyPEM []byte, err error) {
	return ca.issue(pkix.Name{CommonName: commonName}, usage, hosts)
}

// IssueClient signs a client certificate for user in groups, as
// kube-apiserver reads them from a certificate: the user is its common name,
// the groups its organizations. It returns the certificate and its key,
// PEM-encoded.
func (ca *CA) IssueClient(user string, groups ...string) (certPEM, keyPEM []byte, err error) {
	return ca.issue(pkix.Name{CommonName: user, Organization: groups}, x509.ExtKeyUsageClientAuth, nil)
}

func (ca *CA) issue(subject pkix.Name, usage x509.ExtKeyUsage, hosts []string) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      subject,
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(ca.lifetime),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return nil, nil, fmt.Errorf("unable to make certificate %q: %w", subject.CommonName, err)
	}
	keyPEM, err = encodeKey(key)
	if err != nil {
		return nil, nil, err
	}
	return encode("CERTIFICATE", der), keyPEM, nil
}

// KeyPEM returns the CA's private key, PEM-encoded: for a CA whose key
// signs something else than certificates (kube-apiserver's service account
// tokens).
func (ca *CA) KeyPEM() ([]byte, error) { return encodeKey(ca.key) }

func encodeKey(key *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	return encode("EC PRIVATE KEY", der), nil
}

// WriteFiles writes each file's PEM content, readable by this user only.
func WriteFiles(files map[string][]byte) error {
	for path, data := range files {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return fmt.Errorf("unable to write %s: %w", path, err)
		}
	}
	return nil
}

func encode(kind string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der})
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	return n
}
