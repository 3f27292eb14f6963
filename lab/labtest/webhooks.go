package labtest

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/crdlab/crdlab/lab/labtest/control"
)

// WebhookInstallOptions are your own webhooks, for a webhook server in
// your test process, named as envtest's so that a kubebuilder suite reads
// them unchanged: Paths are folders or files of your
// MutatingWebhookConfigurations and ValidatingWebhookConfigurations
// (config/webhook; its Services and kustomize files are skipped). The lab
// makes a serving certificate for 127.0.0.1 and installs the
// configurations pointing at its front, which forwards each call to
// LocalServingHost:LocalServingPort and puts it on the timeline; the
// conversion webhooks of CRDDirectoryPaths' CRDs go there too. Start sets
// the LocalServing fields: serve there, with the certificate and key in
// LocalServingCertDir (controller-runtime's webhook.Options{Host, Port,
// CertDir}).
type WebhookInstallOptions struct {
	// Paths of your webhook configurations; a path that does not exist is
	// an error.
	Paths []string

	// LocalServingHost is where to serve: 127.0.0.1.
	LocalServingHost string

	// LocalServingPort is the port to serve on; zero: Start sets a free one.
	LocalServingPort int

	// LocalServingCertDir holds tls.crt and tls.key (and ca.crt, which
	// signed them), set by Start.
	LocalServingCertDir string

	// Front is the lab's address the apiserver calls, set by Start.
	Front string
}

// needsConversion reports whether a CRD converts between versions through
// a webhook.
func needsConversion(c crd) bool {
	s, _, _ := unstructured.NestedString(c.obj.Object, "spec", "conversion", "strategy")
	return s == "Webhook"
}

// conversionFiles splits crds into the files to give 'crdlab up --crds'
// (those holding a CRD with a conversion webhook, which the lab points at
// its front) and the CRDs for Start to install itself.
func conversionFiles(crds []crd) (files []string, rest []crd) {
	for _, c := range crds {
		if needsConversion(c) && !slices.Contains(files, c.file) {
			files = append(files, c.file)
		}
	}
	for _, c := range crds {
		if !slices.Contains(files, c.file) {
			rest = append(rest, c)
		}
	}
	return files, rest
}

// readWebhookServing fills w from the status of the lab on state dir dir.
func readWebhookServing(dir string, w *WebhookInstallOptions) error {
	st, err := control.Dir(dir).Status()
	if err != nil {
		return fmt.Errorf("the lab's status: %w", err)
	}
	if st.Webhooks == nil {
		return nil
	}
	w.LocalServingHost, w.LocalServingPort, w.LocalServingCertDir, w.Front = st.Webhooks.Host, st.Webhooks.Port, st.Webhooks.CertDir, st.Webhooks.Front
	return nil
}

// checkAttachedConversion refuses, in an attached lab, a CRD whose
// conversion webhook the lab was not started with: installed as it is,
// its clientConfig would name a Service no one serves.
func checkAttachedConversion(crds []crd, dir string) error {
	var names []string
	for _, c := range crds {
		if needsConversion(c) {
			names = append(names, c.obj.GetName()+" ("+c.file+")")
		}
	}
	if len(names) == 0 {
		return nil
	}
	return fmt.Errorf("%w: CRD %s has a conversion webhook: an attached lab calls only the webhooks it was started with; start it with 'crdlab up -d --state-dir %s --crds FILE --webhooks DIR' and leave the CRD out of CRDDirectoryPaths",
		ErrCRDPath, strings.Join(names, ", "), dir)
}

var webhookConfigurations = map[string]schema.GroupVersionResource{
	"MutatingWebhookConfiguration":   {Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingwebhookconfigurations"},
	"ValidatingWebhookConfiguration": {Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"},
}

// checkAttachedWebhooks checks, in an attached lab, that each webhook
// configuration of WebhookInstallOptions.Paths is installed and points at
// the lab's front: an attached lab calls the webhooks it was started with
// ('crdlab up -d --webhooks DIR'), and a suite's Paths say which it needs.
func (e *Environment) checkAttachedWebhooks(ctx context.Context) error {
	w := &e.WebhookInstallOptions
	if len(w.Paths) == 0 {
		return nil
	}
	hint := fmt.Sprintf("start the lab with 'crdlab up -d --state-dir %s --webhooks %s'", e.stateDir, strings.Join(w.Paths, " --webhooks "))
	if w.Front == "" {
		return fmt.Errorf("%w: WebhookInstallOptions.Paths: the attached lab serves no webhooks of yours; %s", ErrWebhookPath, hint)
	}
	dyn, err := dynamic.NewForConfig(e.Config)
	if err != nil {
		return err
	}
	for _, p := range w.Paths {
		configs, err := readWebhookConfigurations(p)
		if err != nil {
			return fmt.Errorf("%w: WebhookInstallOptions.Paths %s: %w", ErrWebhookPath, p, err)
		}
		for _, c := range configs {
			got, err := dyn.Resource(webhookConfigurations[c.GetKind()]).Get(ctx, c.GetName(), metav1.GetOptions{})
			if err != nil {
				return fmt.Errorf("%w: WebhookInstallOptions.Paths %s: %s %s is not in the attached lab (%w); %s", ErrWebhookPath, p, c.GetKind(), c.GetName(), err, hint)
			}
			hooks, _, _ := unstructured.NestedSlice(got.Object, "webhooks")
			for _, h := range hooks {
				url, _, _ := unstructured.NestedString(h.(map[string]any), "clientConfig", "url")
				if !strings.HasPrefix(url, w.Front+"/") {
					return fmt.Errorf("%w: WebhookInstallOptions.Paths %s: %s %s in the attached lab calls %q, not the lab's front; %s", ErrWebhookPath, p, c.GetKind(), c.GetName(), url, hint)
				}
			}
		}
	}
	return nil
}

// readWebhookConfigurations reads the webhook configurations of a file or
// folder (kind and name are all that is checked).
func readWebhookConfigurations(path string) ([]*unstructured.Unstructured, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	files, err := manifestFiles(path, fi)
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	for _, f := range files {
		docs, err := readObjects(f)
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			if _, ok := webhookConfigurations[d.obj.GetKind()]; ok {
				out = append(out, d.obj)
			}
		}
	}
	return out, nil
}
