package lab

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/crdlab/crdlab/lab/aggregated"
	"github.com/crdlab/crdlab/lab/labtest/control"
)

// aggregatedAPI is the aggregated API server as a component: kube-
// apiserver's way to it (the front-proxy client certificate, the egress
// proxy into the "cluster", see lab/aggregated) made before kube-apiserver
// starts, and the server itself, started and stopped by name.
type aggregatedAPI struct {
	lab *Lab

	// Made by prepare, before kube-apiserver starts.
	frontProxy aggregated.FrontProxyFiles // the aggregator's client certificate
	egress     *aggregated.Egress         // the apiserver's way into the "cluster"
	egressFile string                     // the egress selector configuration

	mu   sync.Mutex
	srv  *aggregated.Server // while it runs
	addr string             // where it listens, kept across restarts
}

var _ interface {
	apiServerPart
	closer
} = (*aggregatedAPI)(nil)

func (a *aggregatedAPI) Name() string { return AggregatedAPI }

// prepare makes the front-proxy certificates in kube-apiserver's certDir
// and the egress selector's configuration, and starts the egress proxy
// that kube-apiserver sends its traffic into the "cluster" through.
func (a *aggregatedAPI) prepare(certDir string) error {
	l := a.lab
	fp, err := aggregated.WriteFrontProxyCerts(certDir)
	if err != nil {
		return fmt.Errorf("unable to make the front-proxy certificates: %w", err)
	}
	a.frontProxy = fp
	sock, tempDir := l.dir.EgressSocket(), ""
	if len(sock) > control.MaxSocketPath {
		if tempDir, err = os.MkdirTemp("", "crdlab-egress-"); err != nil {
			return fmt.Errorf("unable to make a folder for the egress socket: %w", err)
		}
		sock = filepath.Join(tempDir, "egress.sock")
	}
	a.egressFile = l.dir.Path("egress-selector.yaml")
	if err := os.WriteFile(a.egressFile, []byte(fmt.Sprintf(aggregated.EgressConfig, sock)), 0o600); err != nil {
		return fmt.Errorf("unable to write the egress selector configuration: %w", err)
	}
	egress, err := aggregated.StartEgress(sock, l.opts.Logger)
	if err != nil {
		_ = os.RemoveAll(tempDir)
		return err
	}
	egress.TempDir = tempDir
	a.mu.Lock()
	a.egress = egress
	a.mu.Unlock()
	return nil
}

// apiServerFlags configures kube-apiserver for aggregated API servers: the
// front-proxy client certificate it presents to them, the request-header
// CA they check it with, and the egress selector that sends its traffic
// through the lab's proxy (what prepare made).
func (a *aggregatedAPI) apiServerFlags(args *envtest.Arguments) {
	args.Set("requestheader-client-ca-file", a.frontProxy.CA)
	args.Set("requestheader-allowed-names", aggregated.FrontProxyName)
	args.Set("requestheader-username-headers", aggregated.UserHeader)
	args.Set("requestheader-group-headers", aggregated.GroupHeader)
	args.Set("requestheader-extra-headers-prefix", aggregated.ExtraHeaderPrefix)
	args.Set("proxy-client-cert-file", a.frontProxy.Cert)
	args.Set("proxy-client-key-file", a.frontProxy.Key)
	args.Set("egress-selector-config-file", a.egressFile)
}

// Start starts the aggregated API server and registers it with the
// aggregator. Starting it while it runs does nothing.
func (a *aggregatedAPI) Start(ctx context.Context) error {
	if a.Running() {
		return nil
	}
	l := a.lab
	dir := l.dir.Path("aggregated")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("unable to create %s: %w", dir, err)
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, l.admin.kubeconfig, 0o600); err != nil {
		return fmt.Errorf("unable to write %s: %w", kubeconfig, err)
	}
	start := time.Now()
	a.mu.Lock()
	addr, egress := a.addr, a.egress
	a.mu.Unlock()
	srv, err := aggregated.Start(context.WithoutCancel(ctx), aggregated.Options{
		Config:     l.RESTConfig(),
		Kubeconfig: kubeconfig,
		CertFile:   l.components.serving.cert,
		KeyFile:    l.components.serving.key,
		CA:         l.components.serving.ca,
		// The CAs kube-apiserver authenticates clients with, from the
		// files it reads them from: no ConfigMap to look up and watch
		// before the server authenticates the aggregator.
		ClientCAFile: l.clientCAFile(),
		FrontProxy:   a.frontProxy,
		Addr:         addr,
		Logger:       l.opts.Logger,
		Requests:     l.opts.Events,
	})
	if err != nil {
		return err
	}
	a.mu.Lock()
	a.srv, a.addr = srv, srv.Addr()
	a.mu.Unlock()
	waitCtx, cancel := context.WithTimeout(ctx, l.opts.StartTimeout)
	defer cancel()
	if err := srv.WaitAuthenticating(waitCtx, a.frontProxy); err != nil {
		return err
	}
	serving := time.Since(start)
	if err := aggregated.Register(ctx, l.admin.client, srv, egress); err != nil {
		return err
	}
	if err := aggregated.WaitServed(waitCtx, l.admin.config); err != nil {
		return err
	}
	l.opts.Logger.V(1).Info("healthy", "component", AggregatedAPI, "serving after", serving.Round(time.Millisecond).String(),
		"served by the aggregator after", time.Since(start).Round(time.Millisecond).String())
	return nil
}

// clientCAFile is kube-apiserver's --client-ca-file.
func (l *Lab) clientCAFile() string {
	if v := l.cp.apiArgs.Get("client-ca-file").Get(nil); len(v) == 1 {
		return v[0]
	}
	return ""
}

// Stop stops the aggregated API server; its APIServices stay, and turn
// unavailable, and its endpoint is marked not ready, as a dead Pod's
// would be.
func (a *aggregatedAPI) Stop(context.Context) error {
	if !a.stopServer() {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := aggregated.MarkReady(ctx, a.lab.admin.client, false); err != nil {
		a.lab.opts.Logger.Error(err, "unable to mark the aggregated API server's endpoint not ready")
	}
	return nil
}

// stopServer stops the server if it runs, and reports whether it did.
func (a *aggregatedAPI) stopServer() bool {
	a.mu.Lock()
	srv := a.srv
	a.srv = nil
	a.mu.Unlock()
	if srv == nil {
		return false
	}
	srv.Stop()
	return true
}

// close stops the egress proxy and the server (the lab stops: its
// endpoint is left as it is).
func (a *aggregatedAPI) close() {
	a.mu.Lock()
	egress := a.egress
	a.egress = nil
	a.mu.Unlock()
	if egress != nil {
		egress.Close()
	}
	a.stopServer()
}

// Running reports whether the aggregated API server runs.
func (a *aggregatedAPI) Running() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.srv != nil
}
