package webhooks

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/crdlab/crdlab/lab/timeline"
)

// Actor is the timeline's name for a user's webhook server.
const Actor = "your webhooks"

// maxBody is the largest review the front forwards (the apiserver sends
// at most about 3 MiB of object).
const maxBody = 16 << 20

// Front is what the apiserver calls for a user's webhooks: a TLS server on
// 127.0.0.1 that forwards each call to the user's server on Backend and
// puts it on the timeline, with the user's server's answer, or why there
// was none (nothing listening, a timeout, an answer that is not a review).
type Front struct {
	certs   *Certs
	backend int
	sink    timeline.Sink
	ln      net.Listener
	srv     *http.Server
	client  *http.Client // to the user's server, trusting the lab's CA

	mu      sync.Mutex
	targets []target
}

type target struct {
	hook   timeline.Webhook
	url    *url.URL // where the user's server serves it
	client *http.Client
}

// NewFront listens on a free port of 127.0.0.1 for calls to the webhooks
// of the user's server, which serves them on 127.0.0.1:backend with the
// certificate in certs. Serve starts answering.
func NewFront(certs *Certs, backend int, sink timeline.Sink) (*Front, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("unable to listen for webhook calls: %w", err)
	}
	f := &Front{certs: certs, backend: backend, sink: sink, ln: ln}
	f.client = clientFor(certs.pool)
	f.srv = &http.Server{
		Handler:           f,
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{certs.pair}, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	return f, nil
}

func clientFor(pool *x509.CertPool) *http.Client {
	return &http.Client{Transport: &http.Transport{
		TLSClientConfig:     &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     30 * time.Second,
	}}
}

// URL is the front's own address, which the installed configurations name.
func (f *Front) URL() string { return "https://" + f.ln.Addr().String() }

// Backend is the port of 127.0.0.1 the user's server is to serve on.
func (f *Front) Backend() int { return f.backend }

// Serve answers calls until Close.
func (f *Front) Serve() {
	go func() { _ = f.srv.ServeTLS(f.ln, "", "") }()
}

// Close stops answering.
func (f *Front) Close() { _ = f.srv.Close() }

// clientConfig is what the admission and the conversion webhooks'
// clientConfig have in common.
type clientConfig struct {
	url      **string
	caBundle *[]byte
	service  struct {
		set  bool
		path *string
	}
	clear func() // removes the service
}

// Admission rewrites every webhook of m to call the front, which forwards
// to the user's server: a clientConfig.service to the same path on
// https://127.0.0.1:BACKEND, a clientConfig.url on 127.0.0.1 or localhost
// as it is (trusting its caBundle, or the lab's CA). A URL elsewhere, or a
// clientConfig with neither, is an error naming the file, the
// configuration and the webhook.
func (f *Front) Admission(m *Manifests) error {
	for _, c := range m.Mutating {
		for i := range c.Webhooks {
			w := &c.Webhooks[i]
			at := fmt.Sprintf("%s: MutatingWebhookConfiguration %s, webhooks[%d] (%s)", m.Source("MutatingWebhookConfiguration", c.Name), c.Name, i, w.Name)
			if err := f.rewrite(admissionConfig(&w.ClientConfig), timeline.Webhook{Actor: Actor, Mutating: true, Name: w.Name}, at); err != nil {
				return fmt.Errorf("%w: %w", ErrManifest, err)
			}
		}
	}
	for _, c := range m.Validating {
		for i := range c.Webhooks {
			w := &c.Webhooks[i]
			at := fmt.Sprintf("%s: ValidatingWebhookConfiguration %s, webhooks[%d] (%s)", m.Source("ValidatingWebhookConfiguration", c.Name), c.Name, i, w.Name)
			if err := f.rewrite(admissionConfig(&w.ClientConfig), timeline.Webhook{Actor: Actor, Name: w.Name}, at); err != nil {
				return fmt.Errorf("%w: %w", ErrManifest, err)
			}
		}
	}
	return nil
}

func admissionConfig(cc *admissionregistrationv1.WebhookClientConfig) clientConfig {
	c := clientConfig{url: &cc.URL, caBundle: &cc.CABundle, clear: func() { cc.Service = nil }}
	if cc.Service != nil {
		c.service.set, c.service.path = true, cc.Service.Path
	}
	return c
}

// NeedsConversion reports whether crd converts through a webhook.
func NeedsConversion(crd *apiextensionsv1.CustomResourceDefinition) bool {
	c := crd.Spec.Conversion
	return c != nil && c.Strategy == apiextensionsv1.WebhookConverter && c.Webhook != nil && c.Webhook.ClientConfig != nil
}

// Conversion rewrites crd's conversion webhook (see NeedsConversion) as
// Admission does its webhooks; an error names the CRD and the field.
func (f *Front) Conversion(crd *apiextensionsv1.CustomResourceDefinition) error {
	cc := crd.Spec.Conversion.Webhook.ClientConfig
	c := clientConfig{url: &cc.URL, caBundle: &cc.CABundle, clear: func() { cc.Service = nil }}
	if cc.Service != nil {
		c.service.set, c.service.path = true, cc.Service.Path
	}
	at := fmt.Sprintf("CustomResourceDefinition %s, spec.conversion.webhook", crd.Name)
	return f.rewrite(c, timeline.Webhook{Actor: Actor, Name: "conversion of " + crd.Name}, at)
}

func (f *Front) rewrite(cc clientConfig, hook timeline.Webhook, at string) error {
	t := target{hook: hook, client: f.client}
	switch {
	case cc.service.set && *cc.url != nil:
		return fmt.Errorf("%s: clientConfig has both service and url; give one", at)
	case cc.service.set:
		path := "/"
		if cc.service.path != nil {
			path = *cc.service.path
		}
		t.url = &url.URL{Scheme: "https", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(f.backend)), Path: path}
	case *cc.url != nil:
		u, err := url.Parse(**cc.url)
		if err != nil {
			return fmt.Errorf("%s: clientConfig.url: %w", at, err)
		}
		if h := u.Hostname(); u.Scheme != "https" || (h != "127.0.0.1" && h != "localhost") {
			return fmt.Errorf("%s: clientConfig.url %q is not on this machine: a lab calls webhooks on https://127.0.0.1 only; give a clientConfig.service instead (the lab sends every service to your server on https://127.0.0.1:%d)",
				at, **cc.url, f.backend)
		}
		t.url = u
		if len(*cc.caBundle) > 0 {
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(*cc.caBundle) {
				return fmt.Errorf("%s: clientConfig.caBundle holds no PEM certificate", at)
			}
			t.client = clientFor(pool)
		}
	default:
		return fmt.Errorf("%s: clientConfig has neither service nor url", at)
	}
	f.mu.Lock()
	f.targets = append(f.targets, t)
	n := len(f.targets) - 1
	f.mu.Unlock()
	front := fmt.Sprintf("%s/w%d%s", f.URL(), n, t.url.EscapedPath())
	*cc.url = &front
	cc.clear()
	*cc.caBundle = append([]byte(nil), f.certs.CA...)
	return nil
}

// ServeHTTP forwards a call of the apiserver to the user's server.
func (f *Front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rest, ok := strings.CutPrefix(r.URL.Path, "/w")
	idx, _, _ := strings.Cut(rest, "/")
	n, err := strconv.Atoi(idx)
	f.mu.Lock()
	if !ok || err != nil || n < 0 || n >= len(f.targets) {
		f.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	t := f.targets[n]
	f.mu.Unlock()
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	to := *t.url
	to.RawQuery = r.URL.RawQuery
	out, err := http.NewRequestWithContext(r.Context(), http.MethodPost, to.String(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	for _, h := range []string{"Content-Type", "Accept"} {
		if v := r.Header.Get(h); v != "" {
			out.Header.Set(h, v)
		}
	}
	resp, err := t.client.Do(out)
	if err != nil {
		why := f.why(r, err, t)
		f.record(start, timeline.ReviewFailed(t.hook, body, why))
		http.Error(w, timeline.FrontSays+why, http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		why := f.why(r, err, t)
		f.record(start, timeline.ReviewFailed(t.hook, body, why))
		http.Error(w, timeline.FrontSays+why, http.StatusBadGateway)
		return
	}
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(answer)
	if resp.StatusCode != http.StatusOK {
		f.record(start, timeline.ReviewFailed(t.hook, body, fmt.Sprintf(timeline.AnsweredHTTP, t.url, resp.StatusCode, strings.TrimSpace(clip(answer)))))
		return
	}
	events := timeline.ReviewEvents(t.hook, body, answer)
	if len(events) == 0 {
		events = append(events, timeline.ReviewFailed(t.hook, body, timeline.NotAReview))
	}
	for _, e := range events {
		f.record(start, e)
	}
}

func (f *Front) record(at time.Time, e timeline.Event) {
	if f.sink == nil {
		return
	}
	e.Time = at
	f.sink.Record(e)
}

// why says in a user's words why a call to the user's server got no answer.
func (f *Front) why(r *http.Request, err error, t target) string {
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	switch {
	case r.Context().Err() != nil:
		timeout := "timeoutSeconds"
		if q := r.URL.Query().Get("timeout"); q != "" {
			timeout += " " + q
		}
		return fmt.Sprintf(timeline.NoAnswerInTime, t.url, timeout)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Sprintf(timeline.NothingServes, t.url.Host, f.certs.Dir)
	case errors.As(err, &unknownCA), errors.As(err, &hostErr):
		return fmt.Sprintf(timeline.NotTheLabsCertificate, t.url.Host, err, CertFile, KeyFile, f.certs.Dir)
	}
	return fmt.Sprintf(timeline.CallFailed, t.url, err)
}

// clip is the start of a body, for a line.
func clip(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}
