package aggregated

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/go-logr/logr"
)

// The kube-apiserver's aggregator sends requests for an aggregated API to
// the Service its APIService names: to that Service's cluster IP. In a lab
// nothing routes cluster IPs (no kube-proxy), and Endpoints may not point at
// 127.0.0.1. The apiserver's egress selector is the way out: with an
// EgressSelectorConfiguration for "cluster" traffic, the apiserver opens
// every connection into the cluster through an HTTP CONNECT proxy, here on
// a Unix socket the lab serves. The proxy knows which cluster IP and port
// stand for which local listener, and connects there: every packet stays on
// 127.0.0.1.

// EgressConfig is the apiserver's --egress-selector-config-file, for a
// socket path.
const EgressConfig = `apiVersion: apiserver.k8s.io/v1beta1
kind: EgressSelectorConfiguration
egressSelections:
- name: cluster
  connection:
    proxyProtocol: HTTPConnect
    transport:
      uds:
        udsName: %s
`

// Egress is the HTTP CONNECT proxy of the apiserver's cluster traffic.
type Egress struct {
	ln  net.Listener
	log logr.Logger
	// TempDir is a folder made for the socket only, removed by Close.
	TempDir string

	mu     sync.Mutex
	routes map[string]string // cluster IP:port → 127.0.0.1:port
}

// StartEgress serves the proxy on the Unix socket path.
func StartEgress(path string, log logr.Logger) (*Egress, error) {
	_ = os.Remove(path) // left by a lab that was killed
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("unable to listen on %s for the apiserver's egress: %w", path, err)
	}
	e := &Egress{ln: ln, log: log, routes: map[string]string{}}
	go e.serve()
	return e, nil
}

// Route sends connections to the cluster address from (a Service's cluster
// IP and port) to the local address to; to "" removes the route.
func (e *Egress) Route(from, to string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if to == "" {
		delete(e.routes, from)
		return
	}
	e.routes[from] = to
}

// Close stops the proxy and removes its socket.
func (e *Egress) Close() {
	_ = e.ln.Close() // removes the socket
	if e.TempDir != "" {
		_ = os.RemoveAll(e.TempDir)
	}
}

func (e *Egress) serve() {
	for {
		conn, err := e.ln.Accept()
		if err != nil {
			return
		}
		go e.handle(conn)
	}
}

func (e *Egress) handle(conn net.Conn) {
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(conn)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	if req.Method != http.MethodConnect {
		fmt.Fprintf(conn, "HTTP/1.1 405 Method Not Allowed\r\n\r\n")
		return
	}
	e.mu.Lock()
	to, ok := e.routes[req.Host]
	e.mu.Unlock()
	if !ok {
		e.log.V(1).Info("egress: no route", "to", req.Host)
		fmt.Fprintf(conn, "HTTP/1.1 503 Service Unavailable\r\n\r\nno lab service at %s\n", req.Host)
		return
	}
	up, err := net.DialTimeout("tcp", to, 5*time.Second)
	if err != nil {
		fmt.Fprintf(conn, "HTTP/1.1 503 Service Unavailable\r\n\r\n%s: %v\n", req.Host, err)
		return
	}
	defer up.Close()
	_ = conn.SetReadDeadline(time.Time{})
	if _, err := fmt.Fprintf(conn, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, br); closeWrite(up); done <- struct{}{} }()
	go func() { _, _ = io.Copy(conn, up); closeWrite(conn); done <- struct{}{} }()
	<-done
	<-done
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
}
