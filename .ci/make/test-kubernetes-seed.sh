#!/usr/bin/env bash
# test-kubernetes-seed.sh: make test-kubernetes-seed (after make build). On
# each minor of $KUBERNETES_TEST_MINORS, with $BINDIR/crdlab-k8s-<minor>:
# the seed walkthrough (TestSeedWalkthroughOnKubernetes) and a labtest lab
# on that minor (TestKubernetesVersion).
set -euo pipefail
: "${GO:=go}" "${BINDIR:?}" "${KUBERNETES_TEST_MINORS:?}"
CRDLAB_TEST_KUBERNETES=$KUBERNETES_TEST_MINORS CRDLAB_COMPONENTS_DIR=$BINDIR \
	"$GO" test -vet=off -count=1 -v -run '^TestSeedWalkthroughOnKubernetes$' -timeout 30m ./cmd/crdlab/
for m in $KUBERNETES_TEST_MINORS; do
	echo "== labtest on Kubernetes $m"
	(cd lab/labtest && CRDLAB_BINARY=$BINDIR/crdlab CRDLAB_TEST_KUBERNETES=$m CRDLAB_COMPONENTS_DIR=$BINDIR \
		"$GO" test -vet=off -count=1 -v -run '^TestKubernetesVersion$' -timeout 15m .)
done
