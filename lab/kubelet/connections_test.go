package kubelet

import (
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/crdlab/crdlab/lab/kubeminor"
)

// TestConnectionsOfItsOwn: the simulated kubelet's requests do not share
// a connection with the other clients of its process, as a kubelet, a
// process of its own, does not. client-go gives the clients of one process
// with the same credentials one HTTP/2 connection (its transport cache):
// a test's or a benchmark's client of the lab would queue behind every
// node's Lease renewal and every Pod's watch event. Its Pods and its
// heartbeats have a connection each.
func TestConnectionsOfItsOwn(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"gitVersion":%q}`, kubeminor.Patch(kubeminor.Oldest())) // any release crdlab serves
	}))
	srv.EnableHTTP2 = true
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.StartTLS()
	defer srv.Close()
	cfg := &rest.Config{Host: srv.URL, TLSClientConfig: rest.TLSClientConfig{
		CAData: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}),
	}}
	user, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	pods, heartbeats, err := clients(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		cs   kubernetes.Interface
	}{{"the process's client", user}, {"the kubelet's Pods", pods}, {"its heartbeats", heartbeats}, {"the process's client again", user}} {
		if _, err := c.cs.Discovery().ServerVersion(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
	}
	if got := conns.Load(); got != 3 {
		t.Errorf("connections to the apiserver: got %d, want 3 (the process's client, the kubelet's Pods, its heartbeats)", got)
	}
}
