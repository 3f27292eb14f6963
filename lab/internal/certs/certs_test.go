package certs

import (
	"crypto/tls"
	"crypto/x509"
	"slices"
	"testing"
	"time"
)

func TestIssuedCertificatesVerifyAgainstTheCA(t *testing.T) {
	ca, err := NewCA("test CA", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(ca.PEM) {
		t.Fatal("CA PEM does not parse")
	}
	certPEM, keyPEM, err := ca.Issue("server", x509.ExtKeyUsageServerAuth, "127.0.0.1", "localhost", "svc.ns.svc")
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"127.0.0.1", "localhost", "svc.ns.svc"} {
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: host}); err != nil {
			t.Errorf("verify for %s: %v", host, err)
		}
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: "example.com"}); err == nil {
		t.Error("verified for a host it was not issued for")
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err == nil {
		t.Error("a serving certificate verified for client authentication")
	}

	other, err := NewCA("other CA", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	otherRoots := x509.NewCertPool()
	otherRoots.AppendCertsFromPEM(other.PEM)
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: otherRoots, DNSName: "127.0.0.1"}); err == nil {
		t.Error("verified against a CA that did not sign it")
	}
}

// A client certificate names its user and groups as kube-apiserver reads
// them (common name, organizations), for client authentication only; the
// CA's key signs what its certificate verifies.
func TestClientCertificateCarriesUserAndGroups(t *testing.T) {
	ca, err := NewCA("client CA", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := ca.IssueClient("admin", "system:masters", "team")
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	if leaf.Subject.CommonName != "admin" || !slices.Equal(slices.Sorted(slices.Values(leaf.Subject.Organization)), []string{"system:masters", "team"}) {
		t.Errorf("subject %v, want CN admin, O system:masters and team", leaf.Subject)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca.PEM)
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("verify for client authentication: %v", err)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots}); err == nil {
		t.Error("a client certificate verified for serving")
	}

	caKey, err := ca.KeyPEM()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tls.X509KeyPair(ca.PEM, caKey); err != nil {
		t.Errorf("the CA's key does not match its certificate: %v", err)
	}
}
