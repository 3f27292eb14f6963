package webapp

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	webappv1 "github.com/crdlab/crdlab/controllers/webapp/v1"
)

// WebhookName is the name of the WebApp's webhook server as a component of
// a lab: stopping it is the webhook's Pod dying.
const WebhookName = "webapp-webhooks"

// NameLabel is the label the defaulting webhook sets to the WebApp's name
// when it is missing (a default that depends on the object's name, which a
// schema default cannot express).
const NameLabel = "app.kubernetes.io/name"

// The WebApp's webhooks, served by controller-runtime's webhook server:
// conversion between v1alpha1 and v1 (/convert), defaulting
// (/mutate-samples-crdlab-dev-v1-webapp) and validation
// (/validate-samples-crdlab-dev-v1-webapp). The apiserver calls them for
// writes of either version, converted to v1 first (matchPolicy Equivalent).
//
// +kubebuilder:webhook:path=/mutate-samples-crdlab-dev-v1-webapp,mutating=true,failurePolicy=fail,sideEffects=None,groups=samples.crdlab.dev,resources=webapps,verbs=create;update,versions=v1,name=mwebapp.samples.crdlab.dev,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-samples-crdlab-dev-v1-webapp,mutating=false,failurePolicy=fail,sideEffects=None,groups=samples.crdlab.dev,resources=webapps,verbs=create;update,versions=v1,name=vwebapp.samples.crdlab.dev,admissionReviewVersions=v1

// Defaulter sets the defaults a schema cannot.
//
// +kubebuilder:object:generate=false
type Defaulter struct{}

// Default labels the WebApp with its name, if it has no such label.
func (Defaulter) Default(_ context.Context, app *webappv1.WebApp) error {
	if _, ok := app.Labels[NameLabel]; !ok {
		if app.Labels == nil {
			app.Labels = map[string]string{}
		}
		app.Labels[NameLabel] = app.Name
	}
	return nil
}

// Validator checks the rule a schema or a CEL rule cannot: CEL sees one
// object, and no two WebApps of a namespace may use the same port (their
// Services would be told apart by port by whoever reads them).
//
// +kubebuilder:object:generate=false
type Validator struct {
	// Reader lists the other WebApps; the manager's API reader, so that a
	// WebApp just created counts at once.
	Reader client.Reader
}

// ValidateCreate refuses a port another WebApp of the namespace uses.
func (v Validator) ValidateCreate(ctx context.Context, app *webappv1.WebApp) (admission.Warnings, error) {
	return nil, v.portFree(ctx, app)
}

// ValidateUpdate refuses a port another WebApp of the namespace uses.
func (v Validator) ValidateUpdate(ctx context.Context, _, app *webappv1.WebApp) (admission.Warnings, error) {
	return nil, v.portFree(ctx, app)
}

// ValidateDelete allows every deletion.
func (Validator) ValidateDelete(context.Context, *webappv1.WebApp) (admission.Warnings, error) {
	return nil, nil
}

func (v Validator) portFree(ctx context.Context, app *webappv1.WebApp) error {
	var list webappv1.WebAppList
	if err := v.Reader.List(ctx, &list, client.InNamespace(app.Namespace)); err != nil {
		return fmt.Errorf("unable to list the namespace's WebApps: %w", err)
	}
	want := port(app)
	for _, other := range list.Items {
		if other.Name != app.Name && other.DeletionTimestamp == nil && port(&other) == want {
			return apierrors.NewInvalid(webappv1.GroupVersion.WithKind("WebApp").GroupKind(), app.Name, field.ErrorList{
				field.Duplicate(field.NewPath("spec", "container", "port"),
					fmt.Sprintf("%d is already used by webapp/%s in namespace %s", want, other.Name, app.Namespace)),
			})
		}
	}
	return nil
}

// SetupWebhooksWithManager registers the conversion, defaulting and
// validating webhooks with mgr's webhook server.
func SetupWebhooksWithManager(mgr ctrl.Manager) error {
	return ctrl.NewWebhookManagedBy(mgr, &webappv1.WebApp{}).
		WithDefaulter(Defaulter{}).
		WithValidator(Validator{Reader: mgr.GetAPIReader()}).
		Complete()
}
