// Package conformance is the module that builds Kubernetes' end-to-end test
// binary, e2e.test, from the k8s.io/kubernetes version crdlab links, for
// 'make conformance' and 'make conformance-ci': a module of its own, so that
// the e2e framework's dependencies stay out of crdlab's, on the main
// module's versions, so that only what e2e.test adds is compiled (make lint
// checks it). Its test main is e2e/e2e_test.go (the api-machinery suites,
// built with -tags e2e); run.sh runs it against a lab, and ./report turns
// its JUnit report into docs/conformance.md.
package conformance
