package aggregated

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"path/filepath"
	"time"

	"github.com/crdlab/crdlab/lab/internal/certs"
)

// FrontProxyName is the common name of the client certificate the
// aggregator presents to aggregated API servers; they accept request
// headers (X-Remote-User...) only from a client with that name and signed by
// the front-proxy CA (--requestheader-* flags, published in the ConfigMap
// kube-system/extension-apiserver-authentication).
const FrontProxyName = "front-proxy-client"

// The request headers the aggregator names the user in (kube-apiserver's
// --requestheader-username-headers, -group-headers and
// -extra-headers-prefix in a lab).
const (
	UserHeader        = "X-Remote-User"
	GroupHeader       = "X-Remote-Group"
	ExtraHeaderPrefix = "X-Remote-Extra-"
)

// FrontProxyFiles are the front-proxy CA and the aggregator's client
// certificate and key.
type FrontProxyFiles struct{ CA, Cert, Key string }

// WriteFrontProxyCerts makes a front-proxy CA and a client certificate it
// signs, in dir.
func WriteFrontProxyCerts(dir string) (FrontProxyFiles, error) {
	f := FrontProxyFiles{
		CA:   filepath.Join(dir, "front-proxy-ca.crt"),
		Cert: filepath.Join(dir, "front-proxy-client.crt"),
		Key:  filepath.Join(dir, "front-proxy-client.key"),
	}
	ca, err := certs.NewCA("crdlab-front-proxy-ca", 10*365*24*time.Hour)
	if err != nil {
		return f, err
	}
	cert, key, err := ca.Issue(FrontProxyName, x509.ExtKeyUsageClientAuth)
	if err != nil {
		return f, err
	}
	return f, certs.WriteFiles(map[string][]byte{f.CA: ca.PEM, f.Cert: cert, f.Key: key})
}

// WaitAuthenticating waits until the server answers a discovery request of
// each of its groups as the aggregator's availability check sends it: from
// the front-proxy client (files), for system:kube-aggregator in
// system:masters. Until the server has read the front-proxy CA from
// kube-apiserver, such a request gets 403; an APIService registered before
// then turns Available only at a later retry of the aggregator.
func (s *Server) WaitAuthenticating(ctx context.Context, files FrontProxyFiles) error {
	pair, err := tls.LoadX509KeyPair(files.Cert, files.Key)
	if err != nil {
		return fmt.Errorf("aggregated API server: front-proxy client certificate: %w", err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(s.caBundle)
	tr := &http.Transport{TLSClientConfig: &tls.Config{Certificates: []tls.Certificate{pair}, RootCAs: roots}}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: time.Second}
	header := http.Header{UserHeader: {"system:kube-aggregator"}, GroupHeader: {"system:masters"}}
	return waitDiscovery(ctx, hc, "https://"+s.addr, header, 10*time.Millisecond, "answering the front proxy")
}
