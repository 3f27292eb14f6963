// Package v1 is version v1 of the WebApp API (samples.crdlab.dev/v1), its
// storage version and the hub of its conversions: v1alpha1 (package
// webapp) has the image and port at the top of its spec; v1 groups them as
// the spec's container, the way a Pod template does, so that a later
// version can add what a container has (resources, environment) in its
// place. Every v1alpha1 object converts to v1 and back without loss; the
// conversion webhook (served by the lab, see package webapp) does it for
// the apiserver.
//
// +kubebuilder:object:generate=true
// +groupName=samples.crdlab.dev
// +versionName=v1
package v1
