package controllers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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
			return nil, fmt.Errorf("%s stopped before it served: %v", webapp.WebhookName, startErr)
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
	var kind struct{ Kind string }
	_ = json.Unmarshal(req, &kind)
	switch kind.Kind {
	case "AdmissionReview":
		return h.admission(req, resp)
	case "ConversionReview":
		return h.conversion(req, resp)
	}
	return nil
}

func (h *tracedHook) admission(req, resp []byte) []timeline.Event {
	var in, out admissionv1.AdmissionReview
	if json.Unmarshal(req, &in) != nil || in.Request == nil {
		return nil
	}
	_ = json.Unmarshal(resp, &out)
	r := in.Request
	e := timeline.Event{
		Actor: webapp.WebhookName, Kind: r.Kind.Kind, Namespace: r.Namespace, Name: r.Name,
	}
	if e.Name == "" {
		var obj unstructured.Unstructured
		if json.Unmarshal(r.Object.Raw, &obj.Object) == nil {
			e.Name = obj.GetName()
			if e.Name == "" {
				e.Name = obj.GetGenerateName() + "*"
			}
		}
	}
	what := "validate"
	if strings.HasPrefix(h.path, "/mutate") {
		what = "default"
	}
	who := timeline.RequestActor(r.UserInfo.Username, "")
	if who == "?" {
		who = r.UserInfo.Username
	}
	detail := fmt.Sprintf("%s %s of %s, asked by %s: ", what, strings.ToLower(string(r.Operation)), r.Kind.Version, who)
	switch res := out.Response; {
	case res == nil:
		e.Verb, detail = "WEBHOOK", detail+"no answer"
	case res.Allowed:
		e.Verb = "ALLOWED"
		detail += "allowed"
		if len(res.Patch) > 0 {
			detail += ", patch " + string(res.Patch)
		}
	default:
		e.Verb = "DENIED"
		msg := ""
		if res.Result != nil {
			msg = res.Result.Message
		}
		detail += "denied: " + msg
	}
	e.Detail = detail
	return []timeline.Event{e}
}

func (h *tracedHook) conversion(req, resp []byte) []timeline.Event {
	var in apiextensionsv1.ConversionReview
	if json.Unmarshal(req, &in) != nil || in.Request == nil {
		return nil
	}
	var out apiextensionsv1.ConversionReview
	_ = json.Unmarshal(resp, &out)
	failed := ""
	if out.Response != nil && out.Response.Result.Status == "Failure" {
		failed = ": failed: " + out.Response.Result.Message
	}
	var events []timeline.Event
	for _, raw := range in.Request.Objects {
		var obj unstructured.Unstructured
		if json.Unmarshal(raw.Raw, &obj.Object) != nil {
			continue
		}
		from := obj.GetAPIVersion()
		events = append(events, timeline.Event{
			Actor: webapp.WebhookName, Verb: "CONVERT", Kind: obj.GetKind(), Namespace: obj.GetNamespace(), Name: obj.GetName(),
			Detail: fmt.Sprintf("%s → %s, asked by kube-apiserver%s", version(from), version(in.Request.DesiredAPIVersion), failed),
		})
	}
	return events
}

func version(apiVersion string) string {
	_, v, ok := strings.Cut(apiVersion, "/")
	if !ok {
		return apiVersion
	}
	return v
}
