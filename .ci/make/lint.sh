#!/usr/bin/env bash
# lint.sh: make lint. shellcheck on every shell script; every action a
# workflow uses pinned by commit; e2e.test's module and the lessons'
# controller skeletons on the main module's versions, the example operator
# on labtest/trace's (samedeps.sh); golangci-lint ($GOLANGCI_LINT,
# .golangci.yml) on the main module and on each module of $MODULES (a go.mod
# of its own), with the root's configuration. golangci-lint compiles the
# packages it imports (go list -export) with the Makefile's GOFLAGS and
# CGO_ENABLED: the compiles make build and make components reuse.
# lint.sh main: shellcheck, the versions and the main module alone;
# lint.sh modules: the modules of $MODULES alone (make test runs them
# alongside go test: they compile their own dependencies, a Kubernetes of
# another minor among them).
set -euo pipefail
part=${1:-all}
case $part in
all | main | modules) ;;
*)
	echo "lint.sh: unknown part $part (want main, modules or nothing for both)" >&2
	exit 2
	;;
esac
: "${GOLANGCI_LINT:?}"
root=$PWD lint=$GOLANGCI_LINT
[[ $lint == /* ]] || lint=$root/$lint
main() {
	echo "== shellcheck"
	if ! command -v shellcheck >/dev/null 2>&1; then
		echo "lint.sh: shellcheck not found: make test-deps installs Debian's" >&2
		exit 1
	fi
	git ls-files --cached --others --exclude-standard -z -- '*.sh' .ci/run | xargs -0 shellcheck
	echo "== the workflows' actions pinned by commit"
	if grep -nE '^[[:space:]-]*uses:' .github/workflows/*.yml | grep -vE 'uses:[[:space:]]*[^@[:space:]]+@[0-9a-f]{40}([[:space:]]|$)'; then
		echo "lint.sh: the actions above are not pinned by a commit SHA (uses: OWNER/REPO@SHA # vX.Y.Z)" >&2
		exit 1
	fi
	echo "== lab/internal/tools/conformance on the main module's versions"
	GOFLAGS="${GOFLAGS:-} -tags=e2e" "$(dirname "$0")/samedeps.sh" lab/internal/tools/conformance ./e2e
	echo "== the lessons' controller skeletons on the main module's versions"
	# A learner's go.mod is go.mod.txt (not a module of this repository);
	# make test builds each completed skeleton, which shares go test's
	# compiled packages only while its versions are the main module's.
	for mod in scenarios/lessons/_files/*/controller/go.mod.txt; do
		skeleton=$(mktemp -d)
		cp "$(dirname "$mod")"/*.go "$skeleton"/
		cp "$mod" "$skeleton/go.mod"
		cp "${mod%go.mod.txt}go.sum.txt" "$skeleton/go.sum"
		"$(dirname "$0")/samedeps.sh" "$skeleton" . "$mod"
		rm -rf "$skeleton"
	done
	echo "== the example operator on labtest/trace's versions"
	"$(dirname "$0")/samedeps.sh" "${EXAMPLE:?}" ./... "$EXAMPLE/go.mod" lab/labtest/trace
	echo "== lint ."
	"$lint" run ./...
}

# linter MODULE: $lint, or, for a module whose go line is newer than the
# Go $lint was built with (Kubernetes 1.38's module asks for Go 1.27), the
# same golangci-lint built with the module's Go toolchain
# ($lint-goX.Y.Z, made by tool.sh the first time): golangci-lint refuses
# to read a newer Go than its own.
linter() {
	local want have
	want=$(awk '$1 == "go" { print $2; exit }' "$1/go.mod")
	have=$("${GO:-go}" version "$lint" | awk '{ print $2 }')
	have=${have#go}
	if [[ -z $want || $(printf '%s\n%s\n' "$want" "$have" | sort -V | tail -n 1) == "$have" ]]; then
		echo "$lint"
		return
	fi
	if [[ ! -x $lint-go$want ]]; then
		(cd "$root" && "$(dirname "$0")/tool.sh" "$lint-go$want") >&2
	fi
	echo "$lint-go$want"
}

modules() {
	for m in ${MODULES:-}; do
		echo "== lint $m"
		l=$(linter "$m")
		(cd "$m" && "$l" run --config "$root/.golangci.yml" ./...)
	done
}

if [[ $part != modules ]]; then
	main
fi
if [[ $part != main ]]; then
	modules
fi
