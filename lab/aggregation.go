package lab

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/crdlab/crdlab/lab/aggregated"
	"github.com/crdlab/crdlab/lab/labtest/control"
)

// aggregation configures the apiserver for aggregated API servers: the
// front-proxy client certificate it presents to them, the request-header
// CA they check it with, and the egress selector that sends its traffic
// into the "cluster" through the lab's proxy (see lab/aggregated).
func (l *Lab) aggregation(args *envtest.Arguments, certDir string) error {
	fp, err := aggregated.WriteFrontProxyCerts(certDir)
	if err != nil {
		return fmt.Errorf("unable to make the front-proxy certificates: %w", err)
	}
	l.frontProxy = fp
	sock, tempDir := l.dir.EgressSocket(), ""
	if len(sock) > control.MaxSocketPath {
		if tempDir, err = os.MkdirTemp("", "crdlab-egress-"); err != nil {
			return fmt.Errorf("unable to make a folder for the egress socket: %w", err)
		}
		sock = filepath.Join(tempDir, "egress.sock")
	}
	cfgPath := l.dir.Path("egress-selector.yaml")
	if err := os.WriteFile(cfgPath, []byte(fmt.Sprintf(aggregated.EgressConfig, sock)), 0o600); err != nil {
		return fmt.Errorf("unable to write the egress selector configuration: %w", err)
	}
	if l.egress, err = aggregated.StartEgress(sock, l.opts.Logger); err != nil {
		_ = os.RemoveAll(tempDir)
		return err
	}
	l.egress.TempDir = tempDir
	args.Set("requestheader-client-ca-file", fp.CA)
	args.Set("requestheader-allowed-names", aggregated.FrontProxyName)
	args.Set("requestheader-username-headers", aggregated.UserHeader)
	args.Set("requestheader-group-headers", aggregated.GroupHeader)
	args.Set("requestheader-extra-headers-prefix", aggregated.ExtraHeaderPrefix)
	args.Set("proxy-client-cert-file", fp.Cert)
	args.Set("proxy-client-key-file", fp.Key)
	args.Set("egress-selector-config-file", cfgPath)
	return nil
}

// startAggregated starts the aggregated API server and registers it with
// the aggregator.
func (l *Lab) startAggregated(ctx context.Context) error {
	dir := l.dir.Path("aggregated")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("unable to create %s: %w", dir, err)
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, l.kubeconfig, 0o600); err != nil {
		return fmt.Errorf("unable to write %s: %w", kubeconfig, err)
	}
	start := time.Now()
	srv, err := aggregated.Start(context.WithoutCancel(ctx), aggregated.Options{
		Config:     l.RESTConfig(),
		Kubeconfig: kubeconfig,
		CertFile:   l.serving.cert,
		KeyFile:    l.serving.key,
		CA:         l.serving.ca,
		// The CAs kube-apiserver authenticates clients with, from the
		// files it reads them from: no ConfigMap to look up and watch
		// before the server authenticates the aggregator.
		ClientCAFile: l.clientCAFile(),
		FrontProxy:   l.frontProxy,
		Addr:         l.aggAddr,
		Logger:       l.opts.Logger,
		Requests:     l.opts.Events,
	})
	if err != nil {
		return err
	}
	l.mu.Lock()
	l.aggregated, l.aggAddr = srv, srv.Addr()
	l.mu.Unlock()
	waitCtx, cancel := context.WithTimeout(ctx, l.opts.StartTimeout)
	defer cancel()
	if err := srv.WaitAuthenticating(waitCtx, l.frontProxy); err != nil {
		return err
	}
	serving := time.Since(start)
	if err := aggregated.Register(ctx, l.client, srv, l.egress); err != nil {
		return err
	}
	if err := aggregated.WaitServed(waitCtx, l.config); err != nil {
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

// stopAggregated stops the aggregated API server; its APIServices stay,
// and turn unavailable. Unless the lab itself is stopping, its endpoint is
// marked not ready, as a dead Pod's would be.
func (l *Lab) stopAggregated(labStopping bool) {
	l.mu.Lock()
	srv := l.aggregated
	l.aggregated = nil
	l.mu.Unlock()
	if srv == nil {
		return
	}
	srv.Stop()
	if !labStopping {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := aggregated.MarkReady(ctx, l.client, false); err != nil {
			l.opts.Logger.Error(err, "unable to mark the aggregated API server's endpoint not ready")
		}
	}
}

// aggregatedRunning reports whether the aggregated API server runs.
func (l *Lab) aggregatedRunning() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.aggregated != nil
}

// aggregatedAPI is the aggregated API server as a component.
type aggregatedAPI struct{ lab *Lab }

func (a *aggregatedAPI) Name() string  { return AggregatedAPI }
func (a *aggregatedAPI) Running() bool { return a.lab.aggregatedRunning() }

func (a *aggregatedAPI) Start(ctx context.Context) error {
	if a.lab.aggregatedRunning() {
		return nil
	}
	return a.lab.startAggregated(ctx)
}

func (a *aggregatedAPI) Stop(context.Context) error {
	a.lab.stopAggregated(false)
	return nil
}
