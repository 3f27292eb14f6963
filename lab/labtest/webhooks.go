package labtest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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

// readWebhookServing fills w from the lab.json of state dir dir.
func readWebhookServing(dir string, w *WebhookInstallOptions) error {
	data, err := os.ReadFile(filepath.Join(dir, "lab.json"))
	if err != nil {
		return fmt.Errorf("the lab's status: %w", err)
	}
	var st struct {
		Webhooks *struct {
			Host    string `json:"host"`
			Port    int    `json:"port"`
			CertDir string `json:"certDir"`
			Front   string `json:"front"`
		} `json:"webhooks"`
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return fmt.Errorf("the lab's status %s: %w", filepath.Join(dir, "lab.json"), err)
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
