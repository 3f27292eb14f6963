#!/usr/bin/env bash
# test.sh: make test, every test crdlab has, its stages in the order they
# run. The Makefile exports what it reads (GO, BIN, K8S_OLDEST, VERSION,
# the tools' paths...). On 2 cores the order is the point: a CPU-bound cold
# compile runs alongside suites that mostly wait on apiservers and
# controllers (overlap.sh: the compile niced, its output kept in
# _artifacts/<stage>.log and printed after the suites', with the time and
# CPU each took); nothing CPU-bound runs beside another CPU-bound step.
# The builds here compile as the release does (the Makefile's GOFLAGS), so
# that each compile is shared by everything after it.
#
# test.sh STEP runs one step alone (a stage's background: overlap.sh
# calls it so).
set -euo pipefail
: "${GO:?}" "${BIN:?}" "${K8S_OLDEST:?}" "${CONTROLLER_GEN:?}" "${GOLANGCI_LINT:?}" "${E2E:?}"
ci=$(dirname "$0")
self=$0
submake() { "${MAKE:-make}" --no-print-directory "$@"; }
# The release check's platforms and minors: this machine's archive and the
# oldest minor's components for it (make release-check). Nothing is
# compiled for a Mac: the cross stage type-checks and vets for both.
host=$("$GO" env GOHOSTOS)/$("$GO" env GOHOSTARCH)
release_check=(PLATFORMS="$host" COMPONENTS="$K8S_OLDEST" COMPONENT_PLATFORMS="$host")

# compiles: the CPU-bound builds beside go test ./..., each after the one
# before: crdlab-k8s-<oldest> (a Kubernetes of another minor, cold ~10
# min), every package type-checked and vetted for both Macs from source
# (nothing compiled), the release for this machine, then golangci-lint on
# the modules with a go.mod of their own ($MODULES: the oldest minor's
# components module among them, which reuses that minor's compile).
compiles() {
	"$ci/components.sh" "$K8S_OLDEST"
	"$ci/cross.sh" check
	env "${release_check[@]}" "$ci/release.sh"
	"$ci/lint.sh" modules
}

# e2e: Kubernetes' e2e.test, from lab/internal/tools/conformance's module (only
# what it adds to the main module's compiles; not vetted: upstream's code).
e2e() { submake "$E2E"; }

# released: what only the built release and components make possible: the
# release as a user gets it (verify-release: archives, signatures, a lab
# booted from the unpacked crdlab on an empty home), the modules of users'
# suites against bin/crdlab and the oldest minor, and the seed walkthrough
# on the oldest minor (TestSeedWalkthroughOnKubernetes: its nodes report
# that minor's kubelet).
released() {
	submake verify-release "${release_check[@]}"
	env "${release_check[@]}" "$ci/test-modules.sh"
	KUBERNETES_TEST_MINORS=$K8S_OLDEST "$ci/test-kubernetes-seed.sh"
}

# fuzz: the scenario loader and crd migrate's converter, by executions, not
# time (a timed fuzz can fail as it ends: golang/go#75804).
fuzz() { submake fuzz FUZZTIME=20000x; }

if [[ $# -gt 0 ]]; then
	case $1 in
	compiles | e2e | released | fuzz) "$1" ;;
	*)
		echo "test.sh: no step $1 (compiles, e2e, released or fuzz)" >&2
		exit 2
		;;
	esac
	exit
fi

# 1. What the tests need, from Debian where missing (make test-deps):
# kubectl, tmux, the shell linter, chromium. Before anything, so that a
# missing tool fails the run at once, not after half an hour.
"$ci/test-deps.sh"

# 2. The pinned tools (controller-gen, golangci-lint), built from source
# with this Go; then the generated files, which must be committed as their
# generators write them: the operators' CRDs, webhooks and deepcopy code,
# and every file of lab/kubeminor/minors.txt (the components modules, the
# built-in line's go.mod files and hooks). Cheap once the tools are built.
submake "$CONTROLLER_GEN" "$GOLANGCI_LINT"
"$ci/manifests.sh" verify
"$GO" run ./lab/internal/tools/minorgen -check

# 3. bin/crdlab: on a clean machine the cold compile of all of Kubernetes
# (~13 min on 2 cores), which every later step reuses. Alone: it uses both
# cores.
"$GO" build -o "$BIN" ./cmd/crdlab

# 4. Lint of the main module (shellcheck, pinned actions, the modules that
# must share the main module's versions, golangci-lint): its analysis reuses
# step 3's compiles and uses both cores, so it runs alone too.
"$ci/lint.sh" main

# 5. go test ./... (unit, integration against real apiservers, CLI, the web
# UI in a browser), which mostly waits, beside the compiles (above).
"$ci/overlap.sh" _artifacts/compiles.log "$self" compiles -- \
	"$GO" test -vet=off -count=1 -timeout 30m ./...

# 6. The checks that need step 5's release and components, beside the
# build of e2e.test for step 7.
"$ci/overlap.sh" _artifacts/e2e.log "$self" e2e -- "$self" released

# 7. The container-free api-machinery conformance tests against a lab
# (make conformance-ci), beside the fuzzers.
"$ci/overlap.sh" _artifacts/fuzz.log "$self" fuzz -- "${MAKE:-make}" --no-print-directory conformance-ci
