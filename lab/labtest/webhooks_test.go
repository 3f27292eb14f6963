package labtest_test

import (
	"crypto/tls"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/crdlab/crdlab/lab/labtest"
)

// The suite's lab (TestMain) installs testdata/webhooks and the Gadget CRD
// of testdata/conversion, whose webhooks the tests here serve themselves,
// on the port and with the certificate the lab chose, as a webhook server
// in an operator's test process would.

type groupResource schema.GroupResource

func (g groupResource) GroupVersion(v string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: g.Group, Version: v, Resource: g.Resource}
}

var gadgets = groupResource{Group: "example.crdlab.dev", Resource: "gadgets"}

// serveWebhooks serves mux where the lab sends the suite's webhooks, until
// the test ends.
func serveWebhooks(t *testing.T, mux *http.ServeMux) {
	t.Helper()
	w := env.WebhookInstallOptions
	if w.LocalServingHost != "127.0.0.1" || w.LocalServingPort == 0 || w.LocalServingCertDir == "" || !strings.HasPrefix(w.Front, "https://127.0.0.1:") {
		t.Fatalf("Start did not say where to serve the webhooks: %+v", w)
	}
	pair, err := tls.LoadX509KeyPair(filepath.Join(w.LocalServingCertDir, "tls.crt"), filepath.Join(w.LocalServingCertDir, "tls.key"))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(w.LocalServingHost, strconv.Itoa(w.LocalServingPort)))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux, TLSConfig: &tls.Config{Certificates: []tls.Certificate{pair}}}
	go func() { _ = srv.ServeTLS(ln, "", "") }()
	t.Cleanup(func() { _ = srv.Close() })
}

// admit answers an AdmissionReview with decide's response.
func admit(t *testing.T, decide func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
			t.Errorf("the webhook got no AdmissionReview: %v", err)
			http.Error(w, "not a review", http.StatusBadRequest)
			return
		}
		resp := decide(review.Request)
		resp.UID = review.Request.UID
		review.Response, review.Request = resp, nil
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(review)
	}
}

func labelledConfigMap(name, answer string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"webhook-test": "true"}},
		Data:       map[string]string{"answer": answer},
	}
}

// A validating and a mutating webhook served in the test process are called
// by the lab's apiserver, through the lab's front, each call on the
// timeline.
func TestYourWebhooksAreCalled(t *testing.T) {
	defer reset(t)
	env.PrintTimelineOnFailure(t)
	mux := http.NewServeMux()
	patch := []byte(`[{"op":"add","path":"/metadata/labels/mutated-by","value":"test-webhook"}]`)
	pt := admissionv1.PatchTypeJSONPatch
	mux.Handle("/mutate-configmap", admit(t, func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		return &admissionv1.AdmissionResponse{Allowed: true, Patch: patch, PatchType: &pt}
	}))
	mux.Handle("/validate-configmap", admit(t, func(r *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		var cm corev1.ConfigMap
		_ = json.Unmarshal(r.Object.Raw, &cm)
		if cm.Data["answer"] != "42" {
			return &admissionv1.AdmissionResponse{Result: &metav1.Status{Message: "the answer must be 42, not " + cm.Data["answer"]}}
		}
		return &admissionv1.AdmissionResponse{Allowed: true}
	}))
	serveWebhooks(t, mux)
	mark := env.Mark()

	_, err := kube.CoreV1().ConfigMaps("default").Create(ctx(t), labelledConfigMap("wrong", "41"), metav1.CreateOptions{})
	if err == nil || !strings.Contains(err.Error(), "the answer must be 42, not 41") {
		t.Fatalf("a ConfigMap the webhook refuses: %v, want the webhook's message", err)
	}
	got, err := kube.CoreV1().ConfigMaps("default").Create(ctx(t), labelledConfigMap("right", "42"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Labels["mutated-by"] != "test-webhook" {
		t.Errorf("labels %v: the mutating webhook's patch was not applied", got.Labels)
	}
	tl := env.TimelineSince(mark)
	for _, want := range []string{
		"your webhooks        DENIED  configmap/wrong  vconfigmap.example.crdlab.dev: validate create of v1, asked by admin: denied: the answer must be 42, not 41",
		"your webhooks        ALLOWED  configmap/right  mconfigmap.example.crdlab.dev: default create of v1",
		`patch [{"op":"add","path":"/metadata/labels/mutated-by","value":"test-webhook"}]`,
	} {
		if !strings.Contains(tl, want) {
			t.Errorf("the timeline lacks %q:\n%s", want, tl)
		}
	}
}

// A conversion webhook in the test process converts what the apiserver
// stores (v1) to what a client reads (v2); one that answers garbage makes
// reads of v2 fail with a clear error and a timeline line, and loses
// nothing stored.
func TestYourConversionWebhook(t *testing.T) {
	defer reset(t)
	env.PrintTimelineOnFailure(t)
	var garbage atomic.Bool
	mux := http.NewServeMux()
	mux.HandleFunc("/convert", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if garbage.Load() {
			_, _ = w.Write([]byte("<html>this is not a ConversionReview</html>"))
			return
		}
		var review map[string]any
		if err := json.Unmarshal(body, &review); err != nil {
			t.Errorf("the conversion webhook got no ConversionReview: %v", err)
			return
		}
		req := review["request"].(map[string]any)
		want := req["desiredAPIVersion"].(string)
		var converted []any
		for _, o := range req["objects"].([]any) {
			obj := o.(map[string]any)
			spec, _ := obj["spec"].(map[string]any)
			if spec == nil {
				spec = map[string]any{}
			}
			switch want {
			case "example.crdlab.dev/v2":
				spec["colour"], spec["color"] = spec["color"], nil
			case "example.crdlab.dev/v1":
				spec["color"], spec["colour"] = spec["colour"], nil
			}
			for k, v := range spec {
				if v == nil {
					delete(spec, k)
				}
			}
			obj["spec"], obj["apiVersion"] = spec, want
			converted = append(converted, obj)
		}
		review["response"] = map[string]any{"uid": req["uid"], "convertedObjects": converted, "result": map[string]any{"status": "Success"}}
		delete(review, "request")
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(review)
	})
	serveWebhooks(t, mux)

	gv1 := dyn.Resource(gadgets.GroupVersion("v1")).Namespace("default")
	gv2 := dyn.Resource(gadgets.GroupVersion("v2")).Namespace("default")
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.crdlab.dev/v1", "kind": "Gadget",
		"metadata": map[string]any{"name": "lamp"},
		"spec":     map[string]any{"color": "red"},
	}}
	if _, err := gv1.Create(ctx(t), obj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	mark := env.Mark()
	got, err := gv2.Get(ctx(t), "lamp", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c, _, _ := unstructured.NestedString(got.Object, "spec", "colour"); c != "red" {
		t.Errorf("read as v2: spec %v, want colour red", got.Object["spec"])
	}
	if tl := env.TimelineSince(mark); !strings.Contains(tl, "your webhooks        CONVERT  gadget/lamp  conversion of gadgets.example.crdlab.dev: v1 → v2, asked by kube-apiserver") {
		t.Errorf("the timeline lacks the conversion:\n%s", tl)
	}

	garbage.Store(true)
	mark = env.Mark()
	_, err = gv2.Get(ctx(t), "lamp", metav1.GetOptions{})
	if err == nil || !strings.Contains(err.Error(), "conversion webhook for example.crdlab.dev/v1, Kind=Gadget failed") {
		t.Errorf("read as v2 from a webhook answering garbage: %v, want the apiserver to name the conversion webhook", err)
	}
	if tl := env.TimelineSince(mark); !strings.Contains(tl, `FAILED  gadget/lamp  conversion of gadgets.example.crdlab.dev: v1 → v2, asked by kube-apiserver: answered something that is not a ConversionReview: "<html>this is not a ConversionReview</html>"`) {
		t.Errorf("the timeline lacks the garbage answer:\n%s", tl)
	}
	// Nothing stored is lost: v1, the stored version, reads without the
	// webhook, and v2 again once the webhook answers.
	stored, err := gv1.Get(ctx(t), "lamp", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c, _, _ := unstructured.NestedString(stored.Object, "spec", "color"); c != "red" {
		t.Errorf("read as v1 meanwhile: spec %v, want color red", stored.Object["spec"])
	}
	garbage.Store(false)
	if _, err := gv2.Get(ctx(t), "lamp", metav1.GetOptions{}); err != nil {
		t.Errorf("read as v2 once the webhook answers again: %v", err)
	}
}

// A webhook that does not answer in its timeoutSeconds, and one with no
// server at all, refuse the write (failurePolicy Fail) with an error that
// names the webhook, and show on the timeline why.
func TestYourWebhookFails(t *testing.T) {
	defer reset(t)
	env.PrintTimelineOnFailure(t)
	mark := env.Mark()
	_, err := kube.CoreV1().ConfigMaps("default").Create(ctx(t), labelledConfigMap("unserved", "42"), metav1.CreateOptions{})
	port := strconv.Itoa(env.WebhookInstallOptions.LocalServingPort)
	if err == nil || !strings.Contains(err.Error(), `failed calling webhook "mconfigmap.example.crdlab.dev"`) || !strings.Contains(err.Error(), "nothing serves on 127.0.0.1:"+port) {
		t.Errorf("a write with no webhook server: %v, want the webhook named and why", err)
	}
	if tl := env.TimelineSince(mark); !strings.Contains(tl, "FAILED  configmap/unserved  mconfigmap.example.crdlab.dev: default create of v1, asked by admin: nothing serves on 127.0.0.1:"+port+" (connection refused)") {
		t.Errorf("the timeline lacks the refused call:\n%s", tl)
	}

	mux := http.NewServeMux()
	mux.Handle("/mutate-configmap", admit(t, func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		return &admissionv1.AdmissionResponse{Allowed: true}
	}))
	mux.HandleFunc("/validate-configmap", func(_ http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // never answers: the apiserver gives up
	})
	serveWebhooks(t, mux)
	mark = env.Mark()
	_, err = kube.CoreV1().ConfigMaps("default").Create(ctx(t), labelledConfigMap("slow", "42"), metav1.CreateOptions{})
	if err == nil || !strings.Contains(err.Error(), `failed calling webhook "vconfigmap.example.crdlab.dev"`) {
		t.Errorf("a write whose webhook times out: %v, want the webhook named", err)
	}
	if tl := env.TimelineSince(mark); !strings.Contains(tl, "FAILED  configmap/slow  vconfigmap.example.crdlab.dev: validate create of v1, asked by admin: no answer from https://127.0.0.1:"+port+"/validate-configmap in time: the apiserver gave up (the webhook's timeoutSeconds 2s)") {
		t.Errorf("the timeline lacks the timeout:\n%s", tl)
	}
	for _, name := range []string{"unserved", "slow"} {
		if _, err := kube.CoreV1().ConfigMaps("default").Get(ctx(t), name, metav1.GetOptions{}); err == nil {
			t.Errorf("configmap %s was stored although its webhook failed", name)
		}
	}
}

// Paths that do not exist, webhooks an attached lab was not started with,
// and webhooks on a cluster of your own are refused; an attached lab started
// with them says where to serve.
func TestWebhookPathErrors(t *testing.T) {
	yes := true
	for name, e := range map[string]*labtest.Environment{
		"missing":                 {WebhookInstallOptions: labtest.WebhookInstallOptions{Paths: []string{"testdata/no-such-webhooks"}}},
		"not in the attached lab": {AttachTo: env.StateDir(), WebhookInstallOptions: labtest.WebhookInstallOptions{Paths: []string{"../../cmd/crdlab/testdata/bad-webhooks/url-elsewhere.yaml"}}},
		"existing":                {UseExistingCluster: &yes, WebhookInstallOptions: labtest.WebhookInstallOptions{Paths: []string{"testdata/webhooks"}}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := e.Start()
			if !strings.Contains(errString(err), "WebhookInstallOptions.Paths") {
				t.Errorf("Start: %v, want an error naming WebhookInstallOptions.Paths", err)
			}
		})
	}
	t.Run("attached lab says where to serve", func(t *testing.T) {
		a := &labtest.Environment{AttachTo: env.StateDir(), WebhookInstallOptions: labtest.WebhookInstallOptions{Paths: []string{"testdata/webhooks"}}}
		if _, err := a.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := a.Stop(); err != nil {
				t.Error(err)
			}
		}()
		got, want := a.WebhookInstallOptions, env.WebhookInstallOptions
		if got.LocalServingHost != want.LocalServingHost || got.LocalServingPort != want.LocalServingPort ||
			got.LocalServingCertDir != want.LocalServingCertDir || got.Front != want.Front {
			t.Errorf("attached: %+v, want the lab's %+v", a.WebhookInstallOptions, env.WebhookInstallOptions)
		}
	})
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
