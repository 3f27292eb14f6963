// Package i18n keeps kubectl's translations from being loaded by processes
// that do not need them.
//
// Every package of kubectl calls i18n.T in its package variables, and the
// first call loads and unzips the translation catalogue: about 250 ms and
// 4 MB at the start of every process of this multi-call binary, etcd and
// kube-apiserver included. This package, initialized before any kubectl
// package (package initialization goes by import path among the packages
// whose dependencies are ready, and github.com sorts before k8s.io), swaps
// in a loader that does nothing for English or an unset locale, for which
// kubectl's strings are already right, and loads the catalogue as before for
// any other language.
package i18n
