#!/usr/bin/env bash
# manifests.sh: make manifests. The operators' CRDs (fixtures/crds), webhook
# configurations (fixtures/webhooks) and deepcopy code from their API types,
# and the example operator's ($EXAMPLE), by $CONTROLLER_GEN. manifests.sh
# verify (make verify-manifests): then fails when that changed a file git
# knows, naming them.
set -euo pipefail
: "${CONTROLLER_GEN:?}" "${EXAMPLE:?}"
gen=$CONTROLLER_GEN
[[ $gen == /* ]] || gen=$PWD/$gen
"$gen" object paths=./controllers/...
"$gen" crd paths=./controllers/... output:crd:artifacts:config=fixtures/crds
"$gen" webhook paths=./controllers/... output:webhook:artifacts:config=fixtures/webhooks
(cd "$EXAMPLE" && "$gen" object crd webhook paths=./... \
	output:crd:artifacts:config=config/crd/bases output:webhook:artifacts:config=config/webhook)
if [[ ${1:-} == verify ]]; then
	stale=$(git status --porcelain -- controllers fixtures/crds fixtures/webhooks "$EXAMPLE")
	if [[ -n $stale ]]; then
		echo "generated files are stale; run make manifests and commit:"
		echo "$stale"
		exit 1
	fi
fi
