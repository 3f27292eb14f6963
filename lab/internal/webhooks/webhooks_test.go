package webhooks

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/crdlab/crdlab/lab/timeline"
)

func TestEnsureCertsKeepsAndRemakes(t *testing.T) {
	dir := t.TempDir()
	first, err := EnsureCerts(dir)
	if err != nil {
		t.Fatal(err)
	}
	again, err := EnsureCerts(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.CA, again.CA) {
		t.Error("a second lab on the same dir made new certificates: a running webhook server would no longer be trusted")
	}
	if err := os.WriteFile(filepath.Join(dir, CertFile), []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	remade, err := EnsureCerts(dir)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(remade.CA, first.CA) {
		t.Error("a broken certificate was kept")
	}
}

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const validating = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: v
webhooks:
- name: v.example.com
  admissionReviewVersions: [v1]
  sideEffects: None
  clientConfig:
    service: {name: s, namespace: system, path: /validate}
`

func TestRead(t *testing.T) {
	m, err := Read([]string{"../../labtest/testdata/webhooks"})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Mutating) != 1 || len(m.Validating) != 1 {
		t.Errorf("read %d mutating and %d validating configurations, want 1 and 1 (the Service and kustomization skipped)", len(m.Mutating), len(m.Validating))
	}
	dir := t.TempDir()
	for name, tc := range map[string]struct{ content, says string }{
		"other kind":     {"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n", `Deployment d: kind "Deployment"`},
		"old version":    {strings.Replace(validating, "/v1\n", "/v1beta1\n", 1), `apiVersion "admissionregistration.k8s.io/v1beta1"`},
		"unknown field":  {strings.Replace(validating, "sideEffects", "sideEfects", 1), `unknown field "sideEfects"`},
		"no name":        {strings.Replace(validating, "name: v\n", "name: \"\"\n", 1), "metadata.name is empty"},
		"twice":          {validating + "---\n" + validating, "also in"},
		"no kind":        {"foo: bar\n", "document 1: no apiVersion and kind"},
		"nothing at all": {"# only a comment\n", "no MutatingWebhookConfiguration nor ValidatingWebhookConfiguration"},
	} {
		t.Run(name, func(t *testing.T) {
			p := write(t, dir, strings.ReplaceAll(name, " ", "-")+".yaml", tc.content)
			_, err := Read([]string{p})
			if !errors.Is(err, ErrManifest) || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), p) {
				t.Errorf("Read: %v, want ErrManifest naming %s and saying %q", err, p, tc.says)
			}
		})
	}
}

func newFront(t *testing.T, sink timeline.Sink) (*Front, *Certs) {
	t.Helper()
	certs, err := EnsureCerts(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	f, err := NewFront(certs, port, sink)
	if err != nil {
		t.Fatal(err)
	}
	f.Serve()
	t.Cleanup(f.Close)
	return f, certs
}

func TestRewrite(t *testing.T) {
	f, certs := newFront(t, nil)
	path := "/validate"
	cfg := func(cc admissionregistrationv1.WebhookClientConfig) *Manifests {
		return &Manifests{Validating: []*admissionregistrationv1.ValidatingWebhookConfiguration{{
			ObjectMeta: metav1.ObjectMeta{Name: "v"},
			Webhooks:   []admissionregistrationv1.ValidatingWebhook{{Name: "v.example.com", ClientConfig: cc}},
		}}, source: map[string]string{"ValidatingWebhookConfiguration/v": "manifests.yaml"}}
	}
	m := cfg(admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Name: "s", Namespace: "system", Path: &path}})
	if err := f.Admission(m); err != nil {
		t.Fatal(err)
	}
	cc := m.Validating[0].Webhooks[0].ClientConfig
	if cc.Service != nil || cc.URL == nil || *cc.URL != f.URL()+"/w0/validate" || !bytes.Equal(cc.CABundle, certs.CA) {
		t.Errorf("a service's clientConfig became %+v, want the front's URL and the lab's CA", cc)
	}
	elsewhere, local, bad := "https://webhooks.example.com/validate", "https://localhost:9443/validate", []byte("not a certificate")
	for name, tc := range map[string]struct {
		cc   admissionregistrationv1.WebhookClientConfig
		says string
	}{
		"url elsewhere": {admissionregistrationv1.WebhookClientConfig{URL: &elsewhere}, `clientConfig.url "https://webhooks.example.com/validate" is not on this machine`},
		"both":          {admissionregistrationv1.WebhookClientConfig{URL: &local, Service: &admissionregistrationv1.ServiceReference{Name: "s"}}, "both service and url"},
		"neither":       {admissionregistrationv1.WebhookClientConfig{}, "neither service nor url"},
		"bad caBundle":  {admissionregistrationv1.WebhookClientConfig{URL: &local, CABundle: bad}, "caBundle holds no PEM certificate"},
	} {
		t.Run(name, func(t *testing.T) {
			err := f.Admission(cfg(tc.cc))
			want := "manifests.yaml: ValidatingWebhookConfiguration v, webhooks[0] (v.example.com): "
			if !errors.Is(err, ErrManifest) || !strings.Contains(err.Error(), want+"clientConfig") || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("Admission: %v, want ErrManifest naming %q and saying %q", err, want, tc.says)
			}
		})
	}
}

// events collects the front's timeline events.
type events struct {
	mu  sync.Mutex
	all []timeline.Event
}

func (e *events) Record(ev timeline.Event) {
	e.mu.Lock()
	e.all = append(e.all, ev)
	e.mu.Unlock()
}

func (e *events) last(t *testing.T) timeline.Event {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.all) == 0 {
		t.Fatal("no timeline event")
	}
	return e.all[len(e.all)-1]
}

func TestFrontForwardsAndSaysWhy(t *testing.T) {
	sink := &events{}
	f, certs := newFront(t, sink)
	path := "/validate"
	m := &Manifests{Validating: []*admissionregistrationv1.ValidatingWebhookConfiguration{{
		ObjectMeta: metav1.ObjectMeta{Name: "v"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: "v.example.com", ClientConfig: admissionregistrationv1.WebhookClientConfig{
			Service: &admissionregistrationv1.ServiceReference{Name: "s", Namespace: "system", Path: &path},
		}}},
	}}, source: map[string]string{}}
	if err := f.Admission(m); err != nil {
		t.Fatal(err)
	}
	front := *m.Validating[0].Webhooks[0].ClientConfig.URL
	review, _ := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID: types.UID("u-1"), Kind: metav1.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Namespace: "default", Name: "cm",
			Operation: admissionv1.Create, UserInfo: authenticationv1.UserInfo{Username: "admin"}, Object: runtime.RawExtension{Raw: []byte(`{}`)},
		},
	})
	apiserver := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: certs.pool}}}
	call := func(ctx context.Context) (int, string) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, front+"?timeout=1s", bytes.NewReader(review))
		req.Header.Set("Content-Type", "application/json")
		resp, err := apiserver.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}

	t.Run("nothing serves", func(t *testing.T) {
		code, body := call(context.Background())
		if code != http.StatusBadGateway || !strings.Contains(body, "nothing serves on 127.0.0.1:") {
			t.Errorf("answer %d %q, want 502 saying nothing serves", code, body)
		}
		if e := sink.last(t); e.Verb != timeline.Failed || e.Name != "cm" || !strings.Contains(e.Detail, "v.example.com: validate create of v1, asked by admin: nothing serves on 127.0.0.1:") {
			t.Errorf("event %+v", e)
		}
	})

	var handler http.HandlerFunc
	var mu sync.Mutex
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(f.Backend())))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{TLSConfig: &tls.Config{Certificates: []tls.Certificate{certs.pair}}, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		h := handler
		mu.Unlock()
		h(w, r)
	})}
	go func() { _ = srv.ServeTLS(ln, "", "") }()
	t.Cleanup(func() { _ = srv.Close() })
	serve := func(h http.HandlerFunc) {
		mu.Lock()
		handler = h
		mu.Unlock()
	}

	t.Run("an answer", func(t *testing.T) {
		serve(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/validate" || r.URL.Query().Get("timeout") != "1s" {
				t.Errorf("the server got %s, want /validate with the apiserver's timeout", r.URL)
			}
			_, _ = w.Write([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u-1","allowed":false,"status":{"message":"no"}}}`))
		})
		code, body := call(context.Background())
		if code != http.StatusOK || !strings.Contains(body, `"message":"no"`) {
			t.Errorf("answer %d %q, want the server's", code, body)
		}
		if e := sink.last(t); e.Verb != timeline.Denied || !strings.HasSuffix(e.Detail, "denied: no") || e.Actor != Actor {
			t.Errorf("event %+v", e)
		}
	})
	t.Run("garbage", func(t *testing.T) {
		serve(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("<html>")) })
		if code, _ := call(context.Background()); code != http.StatusOK {
			t.Errorf("answer %d, want the server's 200 passed on", code)
		}
		if e := sink.last(t); e.Verb != timeline.Failed || !strings.Contains(e.Detail, `answered something that is not an AdmissionReview: "<html>"`) {
			t.Errorf("event %+v", e)
		}
	})
	t.Run("another uid", func(t *testing.T) {
		serve(func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"kind":"AdmissionReview","response":{"uid":"u-2","allowed":true}}`))
		})
		call(context.Background())
		if e := sink.last(t); e.Verb != timeline.Failed || !strings.Contains(e.Detail, `answered for uid "u-2", not the request's "u-1"`) {
			t.Errorf("event %+v", e)
		}
	})
	t.Run("an HTTP error", func(t *testing.T) {
		serve(func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "boom", http.StatusInternalServerError) })
		if code, _ := call(context.Background()); code != http.StatusInternalServerError {
			t.Errorf("answer %d, want the server's 500 passed on", code)
		}
		if e := sink.last(t); e.Verb != timeline.Failed || !strings.Contains(e.Detail, "answered HTTP 500: boom") {
			t.Errorf("event %+v", e)
		}
	})
	t.Run("no answer in time", func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
		serve(func(_ http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-release:
			}
		})
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		call(ctx) // the apiserver gives up
		deadline := time.Now().Add(10 * time.Second)
		for {
			e := sink.last(t)
			if e.Verb == timeline.Failed && strings.Contains(e.Detail, "in time: the apiserver gave up (the webhook's timeoutSeconds 1s)") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("event %+v, want the timeout", e)
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}
