#!/usr/bin/env bash
# Runs Kubernetes' own e2e.test against a lab ('crdlab up -d' on a state dir
# of its own), with a JUnit report; 'make conformance' and 'make
# conformance-ci' call it. FOCUS and SKIP are e2e.test's --ginkgo.focus and
# --ginkgo.skip; with REPORT=1 the results go to docs/conformance/results.json
# and docs/conformance.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../../.." && pwd)
crdlab=${CRDLAB:-$root/bin/crdlab}
e2e=${E2E:-$root/bin/e2e.test}
focus=${FOCUS:-'\[sig-api-machinery\].*\[Conformance\]'}
skip=${SKIP:-}
out=${OUT:-$root/_artifacts/conformance}
rm -rf "$out"
mkdir -p "$out"
state=$(mktemp -d "${TMPDIR:-/tmp}/crdlab-conformance-XXXXXX")
cleanup() {
	"$crdlab" --state-dir "$state" down >/dev/null 2>&1 || true
	cp "$state/logs/timeline.log" "$out/timeline.log" 2>/dev/null || true
	rm -rf "$state"
}
trap cleanup EXIT
# Not piped into head: head's exit would kill up -d's later lines (SIGPIPE).
"$crdlab" --state-dir "$state" up -d >"$out/up.log"
head -2 "$out/up.log"
assets=$("$crdlab" envtest)
args=(
	--kubeconfig "$state/kubeconfig"
	--provider skeleton
	--kubectl-path "$assets/kubectl"
	--report-dir "$out"
	--ginkgo.focus "$focus"
	--ginkgo.no-color
	--ginkgo.timeout 3h
)
if [[ -n $skip ]]; then
	args+=(--ginkgo.skip "$skip")
fi
# The single quotes are printed, around the expanded pattern.
# shellcheck disable=SC2016
echo "running e2e.test --ginkgo.focus '$focus'${skip:+ --ginkgo.skip '$skip'} (log $out/e2e.log)"
rc=0
"$e2e" "${args[@]}" >"$out/e2e.log" 2>&1 || rc=$?
if [[ ! -f $out/junit_01.xml ]]; then
	echo "e2e.test wrote no JUnit report (exit $rc); the end of its log:" >&2
	tail -30 "$out/e2e.log" >&2
	exit 1
fi
# e2e.test's version: the k8s.io/kubernetes this module requires (make lint
# keeps it on the main module's, which follows minors.txt's built-in line).
kubernetes=$(cd "$root/lab/internal/tools/conformance" && go list -m -f '{{.Version}}' k8s.io/kubernetes)
report=(go run ./report -junit "$out/junit_01.xml" -focus "$focus" -skip "$skip" -kubernetes "$kubernetes"
	-commit "$(git -C "$root" rev-parse --short HEAD)")
if [[ ${REPORT:-} == 1 ]]; then
	report+=(-results "$root/docs/conformance/results.json" -doc "$root/docs/conformance.md")
else
	report+=(-results "$out/results.json" -doc "$out/conformance.md")
fi
(cd "$root/lab/internal/tools/conformance" && "${report[@]}")
if [[ ${REPORT:-} != 1 && $rc != 0 ]]; then
	echo "e2e.test failed (exit $rc): see $out/conformance.md and $out/e2e.log" >&2
	exit "$rc"
fi
