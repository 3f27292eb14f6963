#!/usr/bin/env bash
# test-scale.sh: make test-scale. The scale-out scenario (1,000 nodes in
# three zones, 5,000 Pods rolled out, a zone failing) as a user runs it, in
# English and in Chinese: 'crdlab scenario run scale-out', finding no lab,
# starts one of the scenario's size (its spec.lab) and stops it when the
# run ends; a failed step fails the run. Then TestUpAtScale: 'crdlab up
# --nodes 1000', 10,000 Pods through Debian's kubectl, the terminal's
# counted bursts and the web UI in chromium at that size.
set -euo pipefail
: "${BIN:?}" "${GO:=go}"
state=$(mktemp -d "${TMPDIR:-/tmp}/crdlab-scale.XXXXXX")
trap 'rm -rf "$state"' EXIT
for l in en zh; do
	echo "== crdlab scenario run scale-out --lang $l"
	"$BIN" --state-dir "$state" scenario run --lang "$l" scale-out
done
echo "== crdlab up --nodes 1000 and 10,000 Pods (TestUpAtScale)"
CRDLAB_TEST_SCALE=1 "$GO" test -vet=off -count=1 -v -run '^TestUpAtScale$' -timeout 40m ./cmd/crdlab/
