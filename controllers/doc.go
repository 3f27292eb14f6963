// Package controllers runs the sample operators of crdlab in-process, with
// controller-runtime, the way kubebuilder lays them out: one folder per
// operator holding its API types and its reconciler.
//
//	webapp/  WebApp: a Deployment and a Service for an image (sample-controller's idea)
//
// The CRDs are generated from the API types by controller-gen into
// fixtures/crds (make manifests).
package controllers
