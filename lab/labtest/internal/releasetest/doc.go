// Package releasetest serves, on 127.0.0.1, a crdlab release in the
// format 'make release' publishes, made by the test with a tiny fake crdlab
// (a shell script answering 'version' and 'envtest') and, when asked, the
// components archives of Kubernetes minors (crdlab-k8s-<minor>, a shell
// script answering 'version'), and counts the requests: for the tests of
// package install and of setup-crdlab.
package releasetest
