// Package kubedefaults is what a lab runs of the Kubernetes components'
// defaults: the kube-controller-manager controllers it names in
// --controllers, the default-on controllers it leaves out and the
// default-on admission plugins it turns off, each with its reason. The
// lab sets no feature gate that decides what runs: every such gate is its
// minor's default (a lab of 1,000 nodes or more turns off one gate of
// kube-apiserver's watch cache, ListFromCacheSnapshot; docs/scale.md).
//
// One list for every minor crdlab serves: the main module (lab) builds the
// flags from it and every components module (lab/components/<minor>)
// compiles it, and Check holds it against that minor's own defaults, which
// package upstream reads from the Kubernetes the module links. A default-on
// controller or admission plugin that is neither run nor left out with a
// reason fails that minor's test: the next controller to go GA is not
// missed in silence.
//
// Standard library only, so that it compiles against every minor.
package kubedefaults
