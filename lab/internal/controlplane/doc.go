// Package controlplane runs a lab's etcd and kube-apiserver, each a
// supervised process (proc.Child) of this program's own executable or of
// binaries the user chose. Etcd and APIServer each own their command line,
// assembled in one function from envtest's defaults (rendered through
// envtest.Arguments, so that what the lab sets overrides them as it would
// envtest's), the lab's tuning for this program's own binaries, and what
// the lab asks for (an audit log, aggregation, the user's flags); APIServer
// also owns its certificates and provisions users. Plane starts and stops
// the two together.
//
// controller-runtime's envtest (internal/testing/controlplane) is the
// model; envtest itself only installs into a lab (see package lab).
package controlplane
