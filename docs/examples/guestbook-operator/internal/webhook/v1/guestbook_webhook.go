// Package v1 holds the Guestbook's admission webhooks, as kubebuilder
// scaffolds them ('kubebuilder create webhook --defaulting
// --programmatic-validation'): a defaulter and a validator, served by the
// manager's webhook server.
package v1

import (
	"context"
	"fmt"

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
	return ctrl.NewWebhookManagedBy(mgr, &webappv1.Guestbook{}).
		WithDefaulter(&GuestbookCustomDefaulter{}).
		WithValidator(&GuestbookCustomValidator{}).
		Complete()
}

// +kubebuilder:webhook:path=/mutate-webapp-example-com-v1-guestbook,mutating=true,failurePolicy=fail,sideEffects=None,groups=webapp.example.com,resources=guestbooks,verbs=create;update,versions=v1,name=mguestbook-v1.kb.io,admissionReviewVersions=v1

// GuestbookCustomDefaulter sets the image of a Guestbook that names none.
type GuestbookCustomDefaulter struct{}

// Default implements admission.Defaulter.
func (d *GuestbookCustomDefaulter) Default(_ context.Context, g *webappv1.Guestbook) error {
	if g.Spec.Image == "" {
		g.Spec.Image = DefaultImage
	}
	return nil
}

// +kubebuilder:webhook:path=/validate-webapp-example-com-v1-guestbook,mutating=false,failurePolicy=fail,sideEffects=None,groups=webapp.example.com,resources=guestbooks,verbs=create;update,versions=v1,name=vguestbook-v1.kb.io,admissionReviewVersions=v1

// GuestbookCustomValidator refuses a Guestbook of more than MaxReplicas
// frontends.
type GuestbookCustomValidator struct{}

// ValidateCreate implements admission.Validator.
func (v *GuestbookCustomValidator) ValidateCreate(_ context.Context, g *webappv1.Guestbook) (admission.Warnings, error) {
	return nil, validate(g)
}

// ValidateUpdate implements admission.Validator.
func (v *GuestbookCustomValidator) ValidateUpdate(_ context.Context, _, g *webappv1.Guestbook) (admission.Warnings, error) {
	return nil, validate(g)
}

// ValidateDelete implements admission.Validator.
func (v *GuestbookCustomValidator) ValidateDelete(context.Context, *webappv1.Guestbook) (admission.Warnings, error) {
	return nil, nil
}

func validate(g *webappv1.Guestbook) error {
	if g.Spec.Replicas > MaxReplicas {
		return fmt.Errorf("spec.replicas %d: a guestbook runs at most %d frontends", g.Spec.Replicas, MaxReplicas)
	}
	return nil
}
