// Package v1 holds the Guestbook's admission webhooks, as kubebuilder
// scaffolds them ('kubebuilder create webhook --defaulting
// --programmatic-validation'): a defaulter and a validator, served by the
// manager's webhook server.
package v1

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	webappv1 "example.com/guestbook-operator/api/v1"
)

// DefaultImage is the frontend image of a Guestbook that names none.
const DefaultImage = "registry.example.com/guestbook:1.0"

// MaxReplicas is the most frontends a Guestbook may ask for.
const MaxReplicas = 10

// SetupGuestbookWebhookWithManager registers the webhooks with the
// manager's webhook server.
func SetupGuestbookWebhookWithManager(mgr ctrl.Manager) error {
	return ctrl.NewWebhookManagedBy(mgr).For(&webappv1.Guestbook{}).
		WithDefaulter(&GuestbookCustomDefaulter{}).
		WithValidator(&GuestbookCustomValidator{}).
		Complete()
}

// +kubebuilder:webhook:path=/mutate-webapp-example-com-v1-guestbook,mutating=true,failurePolicy=fail,sideEffects=None,groups=webapp.example.com,resources=guestbooks,verbs=create;update,versions=v1,name=mguestbook-v1.kb.io,admissionReviewVersions=v1

// GuestbookCustomDefaulter sets the image of a Guestbook that names none.
type GuestbookCustomDefaulter struct{}

// Default implements admission.CustomDefaulter.
func (d *GuestbookCustomDefaulter) Default(_ context.Context, obj runtime.Object) error {
	g, err := guestbook(obj)
	if err != nil {
		return err
	}
	if g.Spec.Image == "" {
		g.Spec.Image = DefaultImage
	}
	return nil
}

// +kubebuilder:webhook:path=/validate-webapp-example-com-v1-guestbook,mutating=false,failurePolicy=fail,sideEffects=None,groups=webapp.example.com,resources=guestbooks,verbs=create;update,versions=v1,name=vguestbook-v1.kb.io,admissionReviewVersions=v1

// GuestbookCustomValidator refuses a Guestbook of more than MaxReplicas
// frontends.
type GuestbookCustomValidator struct{}

// ValidateCreate implements admission.CustomValidator.
func (v *GuestbookCustomValidator) ValidateCreate(_ context.Context, obj runtime.Object) (admission.Warnings, error) {
	return nil, validate(obj)
}

// ValidateUpdate implements admission.CustomValidator.
func (v *GuestbookCustomValidator) ValidateUpdate(_ context.Context, _, obj runtime.Object) (admission.Warnings, error) {
	return nil, validate(obj)
}

// ValidateDelete implements admission.CustomValidator.
func (v *GuestbookCustomValidator) ValidateDelete(context.Context, runtime.Object) (admission.Warnings, error) {
	return nil, nil
}

// guestbook is obj as a Guestbook: the webhook server decodes the request
// into the type given to For, so anything else is a wiring mistake.
func guestbook(obj runtime.Object) (*webappv1.Guestbook, error) {
	g, ok := obj.(*webappv1.Guestbook)
	if !ok {
		return nil, fmt.Errorf("expected a Guestbook, got %T", obj)
	}
	return g, nil
}

func validate(obj runtime.Object) error {
	g, err := guestbook(obj)
	if err != nil {
		return err
	}
	if g.Spec.Replicas > MaxReplicas {
		return fmt.Errorf("spec.replicas %d: a guestbook runs at most %d frontends", g.Spec.Replicas, MaxReplicas)
	}
	return nil
}
