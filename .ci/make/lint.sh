#!/usr/bin/env bash
# lint.sh: make lint. shellcheck on every shell script; e2e.test's module on
# the main module's versions (samedeps.sh); golangci-lint ($GOLANGCI_LINT,
# .golangci.yml) on the main module and on each module of $MODULES (a go.mod
# of its own), with the root's configuration. golangci-lint compiles the
# packages it imports (go list -export) with the Makefile's GOFLAGS and
# CGO_ENABLED: the compiles make build and make components reuse.
set -euo pipefail
: "${GOLANGCI_LINT:?}"
root=$PWD lint=$GOLANGCI_LINT
[[ $lint == /* ]] || lint=$root/$lint
echo "== shellcheck"
if ! command -v shellcheck >/dev/null 2>&1; then
	echo "lint.sh: shellcheck not found: make test-deps installs Debian's" >&2
	exit 1
fi
git ls-files --cached --others --exclude-standard -z -- '*.sh' .ci/run | xargs -0 shellcheck
echo "== lab/internal/conformance on the main module's versions"
"$(dirname "$0")/samedeps.sh" lab/internal/conformance k8s.io/kubernetes/test/e2e
echo "== lint ."
"$lint" run ./...
for m in ${MODULES:-}; do
	echo "== lint $m"
	(cd "$m" && "$lint" run --config "$root/.golangci.yml" ./...)
done
