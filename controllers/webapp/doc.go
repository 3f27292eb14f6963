// Package webapp is the smallest useful operator, in the spirit of
// kubernetes/sample-controller: a WebApp names an image, a replica count and
// a port, and the operator keeps a Deployment and a Service that run it,
// mirroring their state into the WebApp's status.
//
// +kubebuilder:object:generate=true
// +groupName=samples.crdlab.dev
// +versionName=v1alpha1
package webapp
