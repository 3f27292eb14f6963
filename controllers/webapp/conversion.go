package webapp

import (
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/conversion"

	webappv1 "github.com/crdlab/crdlab/controllers/webapp/v1"
)

// v1alpha1 converts to and from v1, the hub and storage version: the
// apiserver calls the conversion webhook (/convert) whenever a client reads
// or writes a version other than the one stored, and the webhook calls
// these. Nothing is lost either way: the two versions hold the same fields,
// arranged differently.

// ConvertTo converts this v1alpha1 WebApp to v1.
func (w *WebApp) ConvertTo(hub conversion.Hub) error {
	dst, ok := hub.(*webappv1.WebApp)
	if !ok {
		return fmt.Errorf("unable to convert a WebApp to %T", hub)
	}
	dst.ObjectMeta = w.ObjectMeta
	dst.Spec = webappv1.WebAppSpec{
		Replicas:  w.Spec.Replicas,
		Container: webappv1.Container{Image: w.Spec.Image, Port: w.Spec.Port},
	}
	dst.Status = webappv1.WebAppStatus(w.Status)
	return nil
}

// ConvertFrom converts a v1 WebApp to this v1alpha1 one.
func (w *WebApp) ConvertFrom(hub conversion.Hub) error {
	src, ok := hub.(*webappv1.WebApp)
	if !ok {
		return fmt.Errorf("unable to convert %T to a WebApp", hub)
	}
	w.ObjectMeta = src.ObjectMeta
	w.Spec = WebAppSpec{Replicas: src.Spec.Replicas, Image: src.Spec.Container.Image, Port: src.Spec.Container.Port}
	w.Status = WebAppStatus(src.Status)
	return nil
}
