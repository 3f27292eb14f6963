package lab

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/crdlab/crdlab/lab/aggregated"
	"github.com/crdlab/crdlab/lab/internal/controlplane"
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

// configureAPIServer (prepare) makes the front-proxy certificates in kube-apiserver's certDir
// and the egress selector's configuration, starts the egress proxy that
// kube-apiserver sends its traffic into the "cluster" through, and says
// how kube-apiserver is to use them: the front-proxy client certificate it
// presents to aggregated API servers, the request-header CA they check it
// with, and the egress selector.
func (a *aggregatedAPI) configureAPIServer(api *controlplane.APIServer) error {
	ag, err := a.prepare(api.CertDir)
	api.Aggregation = ag
	return err
}

func (a *aggregatedAPI) prepare(certDir string) (*controlplane.Aggregation, error) {
	l := a.lab
	fp, err := aggregated.WriteFrontProxyCerts(certDir)
	if err != nil {
		return nil, fmt.Errorf("unable to make the front-proxy certificates: %w", err)
	}
	a.frontProxy = fp
	sock, tempDir := l.dir.EgressSocket(), ""
	if len(sock) > control.MaxSocketPath {
		if tempDir, err = os.MkdirTemp("", "crdlab-egress-"); err != nil {
			return nil, fmt.Errorf("unable to make a folder for the egress socket: %w", err)
		}
		sock = filepath.Join(tempDir, "egress.sock")
	}
	a.egressFile = l.dir.Path("egress-selector.yaml")
	if err := os.WriteFile(a.egressFile, []byte(fmt.Sprintf(aggregated.EgressConfig, sock)), 0o600); err != nil {
		return nil, fmt.Errorf("unable to write the egress selector configuration: %w", err)
	}
	egress, err := aggregated.StartEgress(sock, l.opts.Logger)
	if err != nil {
		_ = os.RemoveAll(tempDir)
		return nil, err
	}
	egress.TempDir = tempDir
	a.mu.Lock()
	a.egress = egress
	a.mu.Unlock()
	return &controlplane.Aggregation{
		RequestHeaderCAFile:  fp.CA,
		AllowedNames:         aggregated.FrontProxyName,
		UserHeader:           aggregated.UserHeader,
		GroupHeader:          aggregated.GroupHeader,
		ExtraHeadersPrefix:   aggregated.ExtraHeaderPrefix,
		ProxyClientCertFile:  fp.Cert,
		ProxyClientKeyFile:   fp.Key,
		EgressSelectorConfig: a.egressFile,
	}, nil
}

// Start starts the aggregated API server and registers it with the
// aggregator. Started while it runs, it registers it again: the lab's
// routes are its own (aggregated.Register takes back one another writer
// changed, and says so in an Event), so 'crdlab controller start
// aggregated-api' gives them back to the lab whether it was stopped or not.
func (a *aggregatedAPI) Start(ctx context.Context) error {
	if a.Running() {
		return a.register(ctx)
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
	addr := a.addr
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
		ClientCAFile: l.cp.APIServer.ClientCAFile(),
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
		a.stopServer()
		return err
	}
	serving := time.Since(start)
	if err := a.register(ctx); err != nil {
		// Not served, so not running: a start again tries again.
		a.stopServer()
		return err
	}
	l.opts.Logger.V(1).Info("healthy", "component", AggregatedAPI, "serving after", serving.Round(time.Millisecond).String(),
		"served by the aggregator after", time.Since(start).Round(time.Millisecond).String())
	return nil
}

// register registers the running server with the aggregator and waits
// until the aggregator serves its groups.
func (a *aggregatedAPI) register(ctx context.Context) error {
	l := a.lab
	a.mu.Lock()
	srv, egress := a.srv, a.egress
	a.mu.Unlock()
	if srv == nil {
		return fmt.Errorf("aggregated API server: not running")
	}
	said, err := aggregated.Register(ctx, l.admin.client, srv, egress)
	for _, msg := range said {
		l.opts.Logger.Info("route taken back", "component", AggregatedAPI, "reason", aggregated.ReasonRouteTakenBack, "message", msg)
	}
	if err != nil {
		return err
	}
	waitCtx, cancel := context.WithTimeout(ctx, l.opts.StartTimeout)
	defer cancel()
	return aggregated.WaitServed(waitCtx, l.admin.config)
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
