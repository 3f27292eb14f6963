#!/usr/bin/env bash
# test-modules.sh: make test-modules (after make build). Tests each module
# of $MODULES (a go.mod of its own) against $BINDIR/crdlab and the
# oldest minor's crdlab-k8s-$K8S_OLDEST, built first (the example's suites
# also run on it, the components module's tests boot it); the example's
# download test serves dist/$VERSION (make release-check). Then $EXAMPLE's
# plain envtest suite again on the oldest minor, as a kubebuilder project's
# Makefile runs it with ENVTEST_K8S_VERSION. No go vet here, and go test's
# own vet off: golangci-lint's govet vets every module of $MODULES (make
# lint, which make test runs), and each go vet run computes its analyzers'
# facts over every package the module imports again (for the oldest
# minor's components, a Kubernetes: about 400 CPU-s per run, cold).
set -euo pipefail
: "${GO:=go}" "${BINDIR:?}" "${K8S_OLDEST:?}" "${EXAMPLE:?}" "${VERSION:?}"
"$(dirname "$0")/components.sh" "$K8S_OLDEST"
crdlab=$BINDIR/crdlab release=$PWD/dist/$VERSION
for m in ${MODULES:-}; do
	echo "== $m"
	(cd "$m" && CRDLAB_BINARY=$crdlab KUBEBUILDER_ASSETS=$("$crdlab" envtest) \
		CRDLAB_COMPONENTS_DIR=$BINDIR CRDLAB_RELEASE_DIR=$release CRDLAB_RELEASE_VERSION=$VERSION \
		"$GO" test -vet=off -count=1 -p 1 -timeout 15m ./...)
done
echo "== $EXAMPLE/test/envtest on Kubernetes $K8S_OLDEST"
assets=$("$crdlab" envtest --kubernetes "$K8S_OLDEST")
(cd "$EXAMPLE" && KUBEBUILDER_ASSETS=$assets "$GO" test -vet=off -count=1 -timeout 15m ./test/envtest/)
