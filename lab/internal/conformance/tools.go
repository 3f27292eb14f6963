//go:build tools

// Package conformance builds Kubernetes' own end-to-end test binary,
// e2e.test, from the k8s.io/kubernetes version crdlab links
// ('make conformance'), in a module of its own so that the e2e framework's
// dependencies stay out of crdlab's.
package conformance

import _ "k8s.io/kubernetes/test/e2e"
