package lab

import (
	"context"
	"fmt"
	"os"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/webhook/conversion"

	"github.com/crdlab/crdlab/lab/internal/webhooks"
	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/lang"
)

// ErrWebhooks: an Options.Webhooks manifest cannot be read or served (the
// error names the file, the configuration and the field), or a CRD's
// conversion webhook points where the lab cannot call it.
var ErrWebhooks = webhooks.ErrManifest

// userCRDs reads the CRDs of paths (Options.CRDDirectoryPaths), so that a
// missing or empty path fails before anything starts.
func userCRDs(paths []string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	for _, p := range paths {
		// envtest's reader assumes the path can be read.
		if _, err := os.Stat(p); err != nil {
			return nil, lang.Errorf("%w: %w", ErrCRDPath, err)
		}
	}
	read := envtest.CRDInstallOptions{Paths: paths, ErrorIfPathMissing: true}
	if err := envtest.ReadCRDFiles(&read); err != nil {
		return nil, lang.Errorf("%w: envtest cannot read them: %q", ErrCRDPath, err.Error())
	}
	if len(read.CRDs) == 0 {
		return nil, lang.Errorf("%w: no CustomResourceDefinition in %s", ErrCRDPath, strings.Join(paths, ", "))
	}
	return read.CRDs, nil
}

// userWebhooks are the webhooks the user serves (Options.Webhooks, and the
// conversion webhooks of CRDs the scheme does not convert), called through
// the lab's front, which records each call on the timeline.
type userWebhooks struct {
	front         *webhooks.Front // nil when the user serves none
	manifests     *webhooks.Manifests
	convertedCRDs []*apiextensionsv1.CustomResourceDefinition // by the user's server
	certDir       string
}

// prepare reads the user's webhook manifests and l's CRDs and, if any
// webhook is to be served by the user, makes the certificates, rewrites
// the configurations and the conversion webhooks to the front and starts
// it. It returns the CRDs for envtest to install; those with a conversion
// webhook of the user's are installed by install.
func (w *userWebhooks) prepare(l *Lab, scheme *runtime.Scheme) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	crds, err := userCRDs(l.opts.CRDDirectoryPaths)
	if err != nil {
		return nil, err
	}
	all := append(append([]*apiextensionsv1.CustomResourceDefinition(nil), l.opts.CRDs...), crds...)
	var forEnvtest []*apiextensionsv1.CustomResourceDefinition
	var convertible map[schema.GroupKind]bool // read from the scheme only if a CRD converts
	for _, crd := range all {
		if !webhooks.NeedsConversion(crd) {
			forEnvtest = append(forEnvtest, crd)
			continue
		}
		if convertible == nil {
			convertible = convertibleKinds(scheme)
		}
		// envtest serves the conversion of the kinds the scheme converts
		// (WebhookInstallOptions); it would remove the others'.
		if !convertible[schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}] {
			w.convertedCRDs = append(w.convertedCRDs, crd.DeepCopy())
			continue
		}
		forEnvtest = append(forEnvtest, crd)
	}
	if len(l.opts.Webhooks) > 0 {
		if w.manifests, err = webhooks.Read(l.opts.Webhooks); err != nil {
			return nil, err
		}
	}
	if w.manifests == nil && len(w.convertedCRDs) == 0 {
		return forEnvtest, nil
	}
	w.certDir = l.dir.Path("webhook-certs")
	certs, err := webhooks.EnsureCerts(w.certDir)
	if err != nil {
		return nil, err
	}
	port := l.opts.WebhookPort
	if port == 0 {
		if port, err = freePort(); err != nil {
			return nil, fmt.Errorf("unable to choose a port for your webhooks: %w", err)
		}
	}
	if w.front, err = webhooks.NewFront(certs, port, l.opts.Events); err != nil {
		return nil, err
	}
	if w.manifests != nil {
		if err := w.front.Admission(w.manifests); err != nil {
			return nil, err
		}
	}
	for _, crd := range w.convertedCRDs {
		if err := w.front.Conversion(crd); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrCRDPath, err)
		}
	}
	w.front.Serve()
	return forEnvtest, nil
}

// install installs, on l's apiserver, the CRDs whose conversion the user's
// server serves and the user's webhook configurations, as they were
// rewritten.
func (w *userWebhooks) install(ctx context.Context, l *Lab) error {
	if len(w.convertedCRDs) > 0 {
		if _, err := envtest.InstallCRDs(l.admin.config, envtest.CRDInstallOptions{CRDs: w.convertedCRDs, MaxTime: l.opts.StartTimeout}); err != nil {
			return fmt.Errorf("unable to install the CRDs with your conversion webhooks: %w", err)
		}
	}
	if w.manifests == nil {
		return nil
	}
	var objs []client.Object
	for _, c := range w.manifests.Mutating {
		c.SetGroupVersionKind(admissionregistrationv1.SchemeGroupVersion.WithKind("MutatingWebhookConfiguration"))
		objs = append(objs, c)
	}
	for _, c := range w.manifests.Validating {
		c.SetGroupVersionKind(admissionregistrationv1.SchemeGroupVersion.WithKind("ValidatingWebhookConfiguration"))
		objs = append(objs, c)
	}
	for _, obj := range objs {
		c := obj.DeepCopyObject().(client.Object)
		c.SetResourceVersion("")
		c.SetManagedFields(nil)
		if err := l.admin.client.Patch(ctx, c, client.Apply, client.FieldOwner("crdlab"), client.ForceOwnership); err != nil {
			kind := obj.GetObjectKind().GroupVersionKind().Kind
			return lang.Errorf("%w: %s: %s %s: the apiserver refused it: %q", ErrWebhooks, w.manifests.Source(kind, obj.GetName()), kind, obj.GetName(), err.Error())
		}
	}
	return nil
}

// Webhooks says where to serve your own webhooks; nil when the lab serves
// none of yours (no Options.Webhooks, no CRD with a conversion webhook).
func (l *Lab) Webhooks() *control.WebhookServing { return l.webhooks.serving() }

func (w *userWebhooks) serving() *control.WebhookServing {
	if w.front == nil {
		return nil
	}
	return &control.WebhookServing{Host: "127.0.0.1", Port: w.front.Backend(), CertDir: w.certDir, Front: w.front.URL()}
}

// close stops the front. It is safe more than once.
func (w *userWebhooks) close() {
	if w.front != nil {
		w.front.Close()
		w.front = nil
	}
}

// convertibleKinds are the kinds scheme converts between versions (a hub
// and its spokes), envtest's rule for serving a CRD's conversion.
func convertibleKinds(scheme *runtime.Scheme) map[schema.GroupKind]bool {
	kinds := map[schema.GroupKind]bool{}
	if scheme == nil {
		return kinds
	}
	for gvk := range scheme.AllKnownTypes() {
		obj, err := scheme.New(gvk)
		if err != nil {
			continue
		}
		if ok, err := conversion.IsConvertible(scheme, obj); ok && err == nil {
			kinds[gvk.GroupKind()] = true
		}
	}
	return kinds
}
