# crdlab — `make help` lists the targets. Longer recipes are scripts in .ci/make
# (shellchecked by make lint), reading the variables exported below.

GO       ?= go
BIN      ?= bin/crdlab
BINDIR   := $(abspath $(dir $(BIN)))
KUBECTL  ?= kubectl
EXAMPLE  ?= docs/examples/guestbook-operator
# Pinned tools, built by this Go (an older Go's golangci-lint cannot load this module).
CONTROLLER_GEN_VERSION ?= v0.23.0
CONTROLLER_GEN ?= bin/controller-gen-$(CONTROLLER_GEN_VERSION)
GOLANGCI_LINT_VERSION ?= v2.15.0
GOLANGCI_LINT ?= bin/golangci-lint-$(GOLANGCI_LINT_VERSION)

# Every build, vet and test compiles as the release does: make release only links. No DWARF
# (the release strips it: -s -w): about an eighth less compile and link time.
NODWARF := -trimpath -gcflags=all=-dwarf=false -ldflags=-w
export CGO_ENABLED ?= 0
export GOFLAGS := $(strip $(filter-out $(NODWARF),$(GOFLAGS)) $(NODWARF))
# A minor built with a newer Go than this one (1.38: Go 1.27, its components module's go line)
# is built with that Go, fetched by the go command (docs/kubernetes.md); every other module uses
# this Go. GOTOOLCHAIN=local in the environment turns it off.
export GOTOOLCHAIN ?= auto

# The minors, from their one list: K8S_MINORS have modules of their own (lab/components/<minor>),
# K8S_BUILTIN is linked into crdlab, K8S_OLDEST (the first) is the one make test runs on too.
MINORS_FILE ?= lab/kubeminor/minors.txt
K8S_MINORS := $(shell .ci/make/minors.sh $(MINORS_FILE) components)
K8S_OLDEST := $(shell .ci/make/minors.sh $(MINORS_FILE) oldest)
K8S_BUILTIN := $(shell .ci/make/minors.sh $(MINORS_FILE) builtin)
ifeq ($(K8S_BUILTIN),)
$(error $(MINORS_FILE): no minors read (.ci/make/minors.sh says why above))
endif

# The release (docs/releases.md); VERSION: the latest v* tag, else v0.0.0-dev+<commit>.
PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
COMPONENTS ?= $(K8S_MINORS)
COMPONENT_PLATFORMS ?= $(PLATFORMS)
ifeq ($(origin VERSION), undefined)
VERSION := $(shell git describe --tags --match 'v*' 2>/dev/null || echo "v0.0.0-dev+$$(git rev-parse --short=12 HEAD 2>/dev/null)")
endif
RELEASE_BASE_URL ?= https://github.com/crdlab/crdlab/releases/download
# The ed25519 key that signs index.json and SHA256SUMS (docs/releases.md): the workflow sets
# SIGNING_KEY= and its secret in $CRDLAB_RELEASE_SIGNING_KEY; else the TEST-ONLY key.
TEST_SIGNING_KEY = lab/labtest/internal/releasetest/testdata/test-only-release-signing-key.pem
SIGNING_KEY ?= $(TEST_SIGNING_KEY)
ALLOW_TEST_KEY = $(if $(filter $(TEST_SIGNING_KEY),$(SIGNING_KEY)),true,false)
CRDLAB_LDFLAGS = -s -w -X github.com/crdlab/crdlab/lab/multicall.releaseVersion=$(VERSION)
COMPONENTS_LDFLAGS = -s -w -X github.com/crdlab/crdlab/lab/internal/kubemain.releaseVersion=$(VERSION)
# make test's release check: crdlab and the oldest minor's components for this machine.
# Nothing is compiled for a Mac: make cross's check type-checks and vets every package for
# both from source, with its tests (make cross and make release compile them).
HOST = $(shell $(GO) env GOHOSTOS)/$(shell $(GO) env GOHOSTARCH)
RELEASE_CHECK = PLATFORMS="$(HOST)" COMPONENTS=$(K8S_OLDEST) COMPONENT_PLATFORMS=$(HOST)

# Modules with a go.mod of their own; KUBERNETES_TEST_MINORS: make test-kubernetes'
# (make test's: the oldest); STANDALONE_MINORS: make standalone's, as well.
LINT := $(if $(filter default,$(origin LINT)),,$(LINT))# make lint's part: main, modules or both (empty); not make's built-in
MODULES ?= lab/labtest lab/labtest/trace $(EXAMPLE) lab/internal/tools/conformance lab/components/$(K8S_OLDEST)
KUBERNETES_TEST_MINORS ?= $(K8S_MINORS) $(K8S_BUILTIN)
STANDALONE_MINORS ?= $(K8S_OLDEST)

export GO BIN BINDIR KUBECTL EXAMPLE NODWARF CONTROLLER_GEN GOLANGCI_LINT K8S_MINORS K8S_OLDEST K8S_BUILTIN VERSION RELEASE_BASE_URL SIGNING_KEY \
	CRDLAB_LDFLAGS COMPONENTS_LDFLAGS PLATFORMS COMPONENTS COMPONENT_PLATFORMS MODULES KUBERNETES_TEST_MINORS STANDALONE_MINORS

.DEFAULT_GOAL := help

##@ General
.PHONY: help print-minors

help: ## Show this help.
	@.ci/make/help.sh $(MAKEFILE_LIST)

print-minors: ## Print the Kubernetes minors read from MINORS_FILE: K8S_MINORS (modules of their own), K8S_OLDEST, K8S_BUILTIN.
	@.ci/make/minors.sh $(MINORS_FILE)

##@ Build and run
.PHONY: build components release verify-release release-check cross cross-components run

build: ## Build bin/crdlab (static, paths trimmed: GOFLAGS and CGO_ENABLED above).
	$(GO) build -o $(BIN) ./cmd/crdlab

components: ## Build bin/crdlab-k8s-<minor> for K8S=<minor> (one of K8S_MINORS: make print-minors): that minor's components, for 'crdlab up/envtest --kubernetes <minor>'; GOOS/GOARCH honoured.
	@.ci/make/components.sh $(K8S)

release: ## Build the release for PLATFORMS into dist/$(VERSION): an archive per platform, one of crdlab-k8s-<minor> per minor of COMPONENTS and platform of COMPONENT_PLATFORMS, SHA256SUMS, index.json, their signatures by SIGNING_KEY (default: the test-only key; docs/releases.md).
	.ci/make/release.sh

verify-release: ## Check dist/$(VERSION) for PLATFORMS and COMPONENTS: the signatures of SHA256SUMS and index.json (the test key only if SIGNING_KEY is it), archive contents, digests and sizes against them; this machine's crdlab prints VERSION, and boots a lab on an empty home (up -d, kubectl get nodes, down); its crdlab-k8s-<minor> print VERSION and their minor.
	$(GO) run ./lab/internal/tools/release verify -boot -allow-test-key=$(ALLOW_TEST_KEY) -version '$(VERSION)' -out dist/$(VERSION) -base-url '$(RELEASE_BASE_URL)' \
		-license LICENSE -readme README.md -components '$(COMPONENTS)' -component-platforms '$(COMPONENT_PLATFORMS)' $(PLATFORMS)

release-check: ## What make test runs (its builds alongside go test): make release and verify-release for this machine's platform, with the oldest minor's components for this machine.
	$(MAKE) --no-print-directory release verify-release $(RELEASE_CHECK)

cross: ## Build crdlab for macOS (darwin/arm64, darwin/amd64) and vet it for darwin/arm64; build and vet the labtest module for both and labtest/trace for arm64; nothing is kept. CROSS=check (make test): compile nothing, type-check every package of these modules for both Macs from source, and vet it for darwin/arm64 (lab/internal/tools/typecheck; their files are the same for both Macs, which it checks).
	.ci/make/cross.sh $(CROSS)

cross-components: ## Build crdlab-k8s-<minor> of each of COMPONENTS for darwin/arm64 and darwin/amd64 (long: a cold compile of Kubernetes each); nothing is kept.
	.ci/make/cross.sh components

run: build ## Build, then start a lab in the foreground (crdlab up).
	$(BIN) up

##@ Development
.PHONY: fmt generate components-modules manifests verify-manifests verify-generated vet lint

fmt: ## Format the code.
	gofmt -l -w $$(git ls-files '*.go')

generate: build ## Regenerate generated files: components' --help for envtest (every minor's), scenario format docs and schema, CLI golden files.
	.ci/make/generate.sh

components-modules: ## Regenerate what MINORS_FILE decides, then go mod tidy: the built-in line's releases in go.mod, e2e.test's go.mod and the lessons' skeletons, lab/multicall/hooks.go, and each lab/components/<minor> module (go.mod, main.go, main_test.go, fasthelp).
	$(GO) run ./lab/internal/tools/minorgen

$(CONTROLLER_GEN) $(GOLANGCI_LINT):
	.ci/make/tool.sh $@

manifests: $(CONTROLLER_GEN) ## Generate the operators' CRDs (fixtures/crds), webhook configurations (fixtures/webhooks) and deepcopy code from their API types, and the example operator's.
	.ci/make/manifests.sh

verify-manifests: $(CONTROLLER_GEN) ## Generate as make manifests, then fail when a generated file changed.
	.ci/make/manifests.sh verify

verify-generated: ## Fail when what MINORS_FILE decides is stale: the built-in line's module files and hooks, the components modules (make components-modules writes them).
	$(GO) run ./lab/internal/tools/minorgen -check

vet: ## Run go vet.
	$(GO) vet ./...

lint: $(GOLANGCI_LINT) ## Run shellcheck on the scripts, check that e2e.test's module shares the main module's versions, and golangci-lint (.golangci.yml: gofmt, goimports grouping, errorlint, errcheck, staticcheck...) on every module. LINT=main or LINT=modules: a part.
	.ci/make/lint.sh $(LINT)

##@ Tests
.PHONY: test-deps test test-modules conformance conformance-ci conformance-report fuzz chaos test-timeline test-kubernetes-seed test-kubernetes test-scale

test-deps: ## Install what the tests need: Debian's kubectl, tmux for the lessons' terminal test, shellcheck for make lint, and Debian's chromium for the web UI's browser test.
	@.ci/make/test-deps.sh

# make test's stages, in order, with what runs beside what and why: .ci/make/test.sh.
test: ## Run every test: lint, unit, integration (real apiserver), CLI, releases, the modules of users' suites, conformance, fuzzing (.ci/make/test.sh lists the stages).
	.ci/make/test.sh

test-modules: build ## Test the modules with their own go.mod (lab/labtest, lab/labtest/trace, the example operator, lab/components/*) against bin/crdlab and bin/crdlab-k8s-*; the example's download test serves dist/$(VERSION) (make release-check).
	.ci/make/test-modules.sh

# Kubernetes' e2e.test with its api-machinery suites only (lab/internal/tools/conformance/e2e), from a
# module on the main module's versions: only what it adds compiles. Not vetted (upstream's code):
# go test -c's vet alone would analyse all of Kubernetes again.
E2E ?= bin/e2e.test
export E2E
CONFORMANCE_FOCUS ?= \[sig-api-machinery\].*\[Conformance\]
# Tests calling a deployed image fail on simulated nodes (docs/conformance.md).
CONFORMANCE_SKIP ?= \[sig-api-machinery\] (AdmissionWebhook|CustomResourceConversionWebhook|CustomResourceFieldSelectors|Aggregator)
# make test's: container-free tests; [Slow] ones wait for etcd's compaction.
CONFORMANCE_CI_FOCUS ?= \[sig-api-machinery\] (CustomResourceDefinition resources|Garbage collector|Namespaces|Watchers|Servers with support|FieldValidation|Discovery|server version).*\[Conformance\]
CONFORMANCE_CI_SKIP ?= \[Slow\]

$(E2E): lab/internal/tools/conformance/go.mod lab/internal/tools/conformance/go.sum lab/internal/tools/conformance/e2e/e2e_test.go
	cd lab/internal/tools/conformance && $(GO) test -c -vet=off -tags e2e -o $(CURDIR)/$(E2E) ./e2e

conformance: build $(E2E) ## Run the api-machinery conformance tests of Kubernetes' e2e.test against a lab; writes docs/conformance/results.json and docs/conformance.md.
	FOCUS='$(CONFORMANCE_FOCUS)' SKIP='$(CONFORMANCE_SKIP)' REPORT=1 bash lab/internal/tools/conformance/run.sh

conformance-ci: build $(E2E) ## The subset of the conformance tests that 'make test' runs (report in _artifacts/conformance).
	FOCUS='$(CONFORMANCE_CI_FOCUS)' SKIP='$(CONFORMANCE_CI_SKIP)' bash lab/internal/tools/conformance/run.sh

conformance-report: ## Regenerate docs/conformance.md from docs/conformance/results.json.
	cd lab/internal/tools/conformance && $(GO) run ./report -results $(CURDIR)/docs/conformance/results.json -doc $(CURDIR)/docs/conformance.md

fuzz: ## Fuzz the scenario loader and crd migrate's converter for 3 minutes each (FUZZTIME=10m for longer).
	$(GO) test -vet=off -run '^$$' -fuzz FuzzParse -fuzztime $(or $(FUZZTIME),3m) -fuzzminimizetime 1x ./scenarios/format/
	$(GO) test -vet=off -run '^$$' -fuzz FuzzCRD -fuzztime $(or $(FUZZTIME),3m) -fuzzminimizetime 1x ./fixtures/migrate/

chaos: ## Fault injection: kill -9 each process of a lab on --data-dir under a steady writer, ROUNDS times (default 3); prints recovery times and writes acknowledged/found.
	CRDLAB_CHAOS_ROUNDS=$(or $(ROUNDS),3) $(GO) test -vet=off -count=1 -v -run '^TestChaos$$' -timeout 30m ./cmd/crdlab/

test-timeline: ## The timeline's order under load: delete-pod, scale and cascade-delete RUNS times each (default 20), against 'crdlab up -d' and through the Go API; prints the late lines.
	CRDLAB_TIMELINE_RUNS=$(or $(RUNS),20) $(GO) test -vet=off -count=1 -v -run '^TestTimelineOrderUnderLoad$$' -timeout 90m ./cmd/crdlab/
	CRDLAB_TIMELINE_RUNS=$(or $(RUNS),20) $(GO) test -vet=off -count=1 -v -timeout 90m ./scenarios/ -run '^TestScenarios$$' -ginkgo.focus 'on a loaded machine' -ginkgo.v

test-scale: build ## Long (about 30 minutes): the scale-out scenario (1,000 nodes in three zones, 5,000 Pods, a zone failing) with 'crdlab scenario run', in English and Chinese; then 'crdlab up --nodes 1000' with 10,000 Pods through kubectl, the terminal's timeline and the web UI (TestUpAtScale).
	.ci/make/test-scale.sh

test-kubernetes-seed: build ## On each of KUBERNETES_TEST_MINORS, with its bin/crdlab-k8s-<minor>: the seed walkthrough (up -d --kubernetes, kubectl version, the User CRD, an invalid User refused, delete-pod, the data dir refused by another minor) and a labtest lab on that minor (controller-manager, scheduler, nodes, delete-pod).
	.ci/make/test-kubernetes-seed.sh

test-kubernetes: build $(GOLANGCI_LINT) ## Long: build crdlab-k8s-<minor> of each of KUBERNETES_TEST_MINORS but the built-in (a cold build is ~10 min each), lint and test their components modules, then make test-kubernetes-seed, the bootstrap objects against upstream's unpatched kube-apiserver, and the built-in scenarios through the Go API on each minor (one skipped where spec.minKubernetes says the minor lacks what it needs).
	.ci/make/test-kubernetes.sh

##@ Benchmarks
.PHONY: standalone bench-envtest bench-boot bench bench-scale

standalone: ## Build standalone etcd and kube-apiserver into bin/standalone, and kube-apiserver of each of STANDALONE_MINORS into bin/standalone/<minor>: the benchmarks' reference, what plain envtest runs.
	.ci/make/standalone.sh

bench-envtest: build standalone ## Only envtest as a suite runs it (Start with CRDs, then Stop) on 'crdlab envtest's folder against standalone binaries, for the built-in minor and STANDALONE_MINORS (the oldest), side by side (docs/boot.md); about 3 minutes once built.
	.ci/make/components.sh $(STANDALONE_MINORS)
	CRDLAB_BINARY=$(CURDIR)/$(BIN) CRDLAB_STANDALONE_ASSETS=$(CURDIR)/bin/standalone $(GO) test -vet=off -run '^$$' -bench Envtest -benchtime 10x -timeout 60m ./lab/

bench-boot: build standalone ## Only docs/boot.md's table: boot, stop and PSS (when up, and at rest 10 s later) of labs and of 'crdlab up -d'/'crdlab down' against plain envtest, and the loops.
	CRDLAB_BINARY=$(CURDIR)/$(BIN) CRDLAB_STANDALONE_ASSETS=$(CURDIR)/bin/standalone $(GO) test -vet=off -run '^$$' -bench Boot -benchtime 5x -timeout 60m ./lab/

bench: bench-boot bench-envtest ## Benchmarks, side by side in one run: boot, stop and PSS against plain envtest, the loops (delete → Ready, 0 → 1000 Pods), envtest on crdlab's folder against standalone binaries (the built-in and the oldest minor), 10,000 Users and 50 watchers, Reset and attach against envtest per spec.
	.ci/make/bench.sh

bench-scale: ## 1,000 simulated nodes and a Deployment 0 → 10,000 Pods → 0, crdlab's nodes beside KWOK's controller (built into bin/kwok from lab/internal/tools/kwokbench's go.mod) on the same control plane (docs/scale.md); BENCH_SCALE_PODS=1000 for a short run, BENCH_SCALE_JOB=N adds a Job. About 13 minutes on 2 cores. BENCH_SCALE_STEPS=kwok: KWOK's own benchmark, its three steps (5,000 nodes Ready, 10,000 bare Pods Running, deleted; BENCH_SCALE_NODES=500 BENCH_SCALE_PODS=1000 for a short run), on crdlab's nodes and KWOK's, against KWOK's limits (60 s, 60 s, 90 s). BENCH_SCALE_HOLD=100000: crdlab's nodes alone holding 100,000 Pods of 100 Deployments, a namespace each (BENCH_SCALE_HOLD_APPS), and the PSS of each process (about 35 minutes on 2 cores). BENCH_SCALE_PROFILE=dir: CPU profiles of each process over each Pod step, into dir (with BENCH_SCALE_HOLD: each process's heap profile and Go MemStats at the end of the hold). BENCH_SCALE_PEER=none: crdlab's row alone.
	.ci/make/bench-scale.sh
