package controllers

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/crdlab/crdlab/controllers/webapp"
	"github.com/crdlab/crdlab/lab/timeline"
)

// WebhookServing says where the sample operators' webhooks are served: on
// Host:Port, with the serving certificate and key in CertDir (tls.crt,
// tls.key), which the lab made and whose CA it put in the webhook
// configurations and the CRDs' conversion settings.
type WebhookServing struct {
	Host    string
	Port    int
	CertDir string
}

// startWebhooks (o.mu held) runs the webhook server in a manager of its own, so that it
// can be stopped (the webhook's Pod dying) while the operators go on, and
// returns once it serves.
func (o *Operators) startWebhooks(ctx context.Context) (*running, error) {
	w := o.opts.Webhooks
	srv := &tracingServer{Server: webhook.NewServer(webhook.Options{Host: w.Host, Port: w.Port, CertDir: w.CertDir}), sink: o.opts.Trace}
	cfg := rest.CopyConfig(o.cfg)
	cfg.UserAgent = webapp.WebhookName
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 Scheme(),
		Logger:                 o.opts.Logger,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		WebhookServer:          srv,
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		return nil, fmt.Errorf("unable to create the manager of %s: %w", webapp.WebhookName, err)
	}
	if err := webapp.SetupWebhooksWithManager(mgr); err != nil {
		return nil, fmt.Errorf("unable to set up %s: %w", webapp.WebhookName, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	run := &running{cancel: cancel, done: make(chan struct{})}
	var startErr error // set before run.done closes
	o.wg.Add(1)
	go func() {
		defer o.wg.Done()
		startErr = mgr.Start(ctx)
		close(run.done) // first: Start waits for it holding o.mu
		if startErr != nil {
			o.mu.Lock()
			o.errs = append(o.errs, fmt.Errorf("%s: %w", webapp.WebhookName, startErr))
			o.mu.Unlock()
		}
	}()
	started := srv.StartedChecker()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(30 * time.Second)
	for started(nil) != nil {
		select {
		case <-run.done:
			return nil, fmt.Errorf("%s stopped before it served: %w", webapp.WebhookName, startErr)
		case <-deadline:
			cancel()
			return nil, fmt.Errorf("%s does not serve on %s:%d after 30s", webapp.WebhookName, w.Host, w.Port)
		case <-tick.C:
		}
	}
	return run, nil
}

// tracingServer is controller-runtime's webhook server, each of whose
// webhooks also reports every call to the timeline: who asked, which
// webhook, allowed or denied and why, the patch; each conversion with its
// versions.
type tracingServer struct {
	webhook.Server
	sink timeline.Sink
}

func (s *tracingServer) Register(path string, hook http.Handler) {
	if s.sink == nil {
		s.Server.Register(path, hook)
		return
	}
	s.Server.Register(path, &tracedHook{path: path, inner: hook, sink: s.sink})
}

type tracedHook struct {
	path  string
	inner http.Handler
	sink  timeline.Sink
}

// maxTracedBody is the largest request a trace decodes.
const maxTracedBody = 8 << 20

func (h *tracedHook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxTracedBody))
	r.Body.Close()
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	rec := &capture{ResponseWriter: w}
	start := time.Now()
	h.inner.ServeHTTP(rec, r)
	for _, e := range h.events(body, rec.body.Bytes()) {
		e.Time = start
		h.sink.Record(e)
	}
}

// capture keeps a copy of what a handler writes.
type capture struct {
	http.ResponseWriter
	body bytes.Buffer
}

func (c *capture) Write(p []byte) (int, error) {
	c.body.Write(p)
	return c.ResponseWriter.Write(p)
}

// events turns a webhook call into timeline events.
func (h *tracedHook) events(req, resp []byte) []timeline.Event {
	return timeline.ReviewEvents(timeline.Webhook{Actor: webapp.WebhookName, Mutating: strings.HasPrefix(h.path, "/mutate")}, req, resp)
}
