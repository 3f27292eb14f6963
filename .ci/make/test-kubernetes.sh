#!/usr/bin/env bash
# test-kubernetes.sh: make test-kubernetes (after make build), long. For
# each minor of $KUBERNETES_TEST_MINORS: crdlab-k8s-<minor> built (a cold
# build is ~10 min each), the components modules make test leaves out (it
# has the oldest's) linted, vetted and tested (TestExecutable boots each),
# make test-kubernetes-seed, the bootstrap objects the post-start shortcut
# makes on an empty etcd against what upstream's unpatched kube-apiserver of
# each minor makes, and the built-in scenarios through the Go API.
set -euo pipefail
: "${GO:=go}" "${BINDIR:?}" "${KUBERNETES_TEST_MINORS:?}" "${K8S_BUILTIN:?}" "${K8S_OLDEST:?}"
here=$(dirname "$0")
older=() modules=()
for m in $KUBERNETES_TEST_MINORS; do
	[[ $m == "$K8S_BUILTIN" ]] && continue
	older+=("$m")
	[[ $m == "$K8S_OLDEST" ]] || modules+=("lab/components/$m")
done
if [[ ${#older[@]} -gt 0 ]]; then "$here/components.sh" "${older[@]}"; fi
MODULES="${modules[*]}" "$here/lint.sh"
MODULES="${modules[*]}" "$here/test-modules.sh"
"$here/test-kubernetes-seed.sh"
STANDALONE_MINORS="${older[*]}" "$here/standalone.sh"
CRDLAB_TEST_KUBERNETES=$KUBERNETES_TEST_MINORS CRDLAB_BINARY=$BINDIR/crdlab CRDLAB_COMPONENTS_DIR=$BINDIR \
	CRDLAB_STANDALONE_ASSETS=$PWD/bin/standalone \
	"$GO" test -vet=off -count=1 -v -run '^TestBootstrapObjectsAsUpstreamMakesThem$' -timeout 30m ./lab/multicall/
for m in $KUBERNETES_TEST_MINORS; do
	echo "== the built-in scenarios on Kubernetes $m"
	CRDLAB_KUBERNETES_VERSION=$m CRDLAB_COMPONENTS_DIR=$BINDIR "$GO" test -vet=off -count=1 -v -timeout 30m \
		-run '^TestScenarios$' ./scenarios/ -ginkgo.focus 'built-in|needs a newer Kubernetes' -ginkgo.v
done
