# crdlab — run `make help` for the targets.

GO       ?= go
BIN      ?= bin/crdlab
# Debian's kubectl, the independent client the tests prove compatibility with.
KUBECTL  ?= kubectl
# The example operator (a kubebuilder project of its own).
EXAMPLE ?= docs/examples/guestbook-operator

# controller-gen generates the sample operators' CRDs and deepcopy code; pinned.
CONTROLLER_GEN_VERSION ?= v0.23.0
CONTROLLER_GEN ?= bin/controller-gen-$(CONTROLLER_GEN_VERSION)

# golangci-lint runs the linters of .golangci.yml; pinned, and built with the
# Go that builds crdlab (a golangci-lint built by an older Go cannot load
# this module's packages).
GOLANGCI_LINT_VERSION ?= v2.15.0
GOLANGCI_LINT ?= bin/golangci-lint-$(GOLANGCI_LINT_VERSION)

# Every build, vet and test compiles as the release does (static, paths
# trimmed), so that Kubernetes' packages are compiled once per platform and
# bin/crdlab, the test binaries and make release share them: the release
# check only links (a cold make test would otherwise compile Kubernetes
# twice for this machine).
export CGO_ENABLED ?= 0
export GOFLAGS := $(strip $(GOFLAGS) -trimpath)

.DEFAULT_GOAL := help

##@ General

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*##"; printf "Usage: make <target>\n"} \
		/^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-12s\033[0m %s\n", $$1, $$2 } \
		/^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) }' $(MAKEFILE_LIST)

##@ Build and run

.PHONY: build
build: ## Build bin/crdlab (static, paths trimmed: GOFLAGS and CGO_ENABLED above).
	$(GO) build -o $(BIN) ./cmd/crdlab

# The release: `make release` builds crdlab for each of PLATFORMS with plain
# go build (docs/releases.md says why), and the components of each of
# COMPONENTS (crdlab-k8s-<minor>, from lab/components/<minor>) for each of
# COMPONENT_PLATFORMS, packages each as a .tar.gz with LICENSE and
# README.md, and writes SHA256SUMS and index.json, all in dist/$(VERSION).
PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
# The Kubernetes minors crdlab does not link whose components are released
# (COMPONENTS= releases crdlab alone), and their platforms.
COMPONENTS ?= $(sort $(K8S_MINORS))
COMPONENT_PLATFORMS ?= $(PLATFORMS)
# The version: the latest v* tag (git describe: v0.1.0, or v0.1.0-3-g1234abcd
# past it); with no such tag, v0.0.0-dev+<commit>.
ifeq ($(origin VERSION), undefined)
VERSION := $(shell git describe --tags --match 'v*' 2>/dev/null || echo "v0.0.0-dev+$$(git rev-parse --short=12 HEAD 2>/dev/null)")
endif
# Where releases are published, GitHub's layout: <base>/<tag>/<asset>.
RELEASE_BASE_URL ?= https://github.com/crdlab/crdlab/releases/download
# A static binary, paths trimmed, no symbol table, the version set. make
# cross builds with the same flags so that make test's release check finds
# the darwin packages compiled already.
RELEASE_BUILD_FLAGS = -trimpath -ldflags "-s -w -X github.com/crdlab/crdlab/lab/multicall.releaseVersion=$(VERSION)"
# The components executables (lab/components/<minor>) print the release's
# version too, set in the shared code they link.
RELEASE_COMPONENTS_BUILD_FLAGS = -trimpath -ldflags "-s -w -X github.com/crdlab/crdlab/lab/internal/kubemain.releaseVersion=$(VERSION)"
RELEASE_ENV = CGO_ENABLED=0
# The platforms make test's release check builds: this machine's (its
# crdlab is run) and macOS on both architectures (compiled by make cross
# already: the release check only links them).
RELEASE_CHECK_PLATFORMS ?= $(sort $(shell $(GO) env GOHOSTOS)/$(shell $(GO) env GOHOSTARCH) darwin/arm64 darwin/amd64)
# The components make test's release check packages: the oldest minor's,
# for this machine alone (make test compiles them anyway; each other
# platform or minor is a cold compile of Kubernetes, 7-10 minutes here:
# make cross-components and the release workflow build those).
RELEASE_CHECK_COMPONENTS ?= $(K8S_OLDEST)
RELEASE_CHECK_COMPONENT_PLATFORMS ?= $(shell $(GO) env GOHOSTOS)/$(shell $(GO) env GOHOSTARCH)

.PHONY: release
release: ## Build the release for PLATFORMS into dist/$(VERSION): an archive per platform, one of crdlab-k8s-<minor> per minor of COMPONENTS and platform of COMPONENT_PLATFORMS, SHA256SUMS, index.json (docs/releases.md).
	rm -rf dist/$(VERSION) bin/release/$(VERSION)
	@set -e; for p in $(PLATFORMS); do \
		echo "== crdlab $(VERSION) for $$p"; \
		$(RELEASE_ENV) GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build $(RELEASE_BUILD_FLAGS) \
			-o bin/release/$(VERSION)/$${p%/*}-$${p#*/}/crdlab ./cmd/crdlab; \
	done
	@set -e; for p in $(if $(strip $(COMPONENTS)),$(COMPONENT_PLATFORMS)); do for m in $(COMPONENTS); do \
		echo "== crdlab-k8s-$$m $(VERSION) for $$p"; \
		(cd lab/components/$$m && $(RELEASE_ENV) GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build $(RELEASE_COMPONENTS_BUILD_FLAGS) \
			-o $(CURDIR)/bin/release/$(VERSION)/$${p%/*}-$${p#*/}/crdlab-k8s-$$m .); \
	done; done
	$(GO) run ./lab/internal/release package -version '$(VERSION)' -out dist/$(VERSION) \
		-bin bin/release/$(VERSION) -base-url '$(RELEASE_BASE_URL)' -date $$(git log -1 --format=%ct) \
		-license LICENSE -readme README.md -components '$(COMPONENTS)' -component-platforms '$(COMPONENT_PLATFORMS)' $(PLATFORMS)
	rm -rf bin/release/$(VERSION)
	@ls -l dist/$(VERSION)

.PHONY: verify-release
verify-release: ## Check dist/$(VERSION) for PLATFORMS and COMPONENTS: archive contents, digests against SHA256SUMS and index.json; this machine's crdlab prints VERSION, and boots a lab on an empty home (up -d, kubectl get nodes, down); its crdlab-k8s-<minor> print VERSION and their minor.
	$(GO) run ./lab/internal/release verify -boot -version '$(VERSION)' -out dist/$(VERSION) \
		-base-url '$(RELEASE_BASE_URL)' -license LICENSE -readme README.md \
		-components '$(COMPONENTS)' -component-platforms '$(COMPONENT_PLATFORMS)' $(PLATFORMS)

.PHONY: release-check
release-check: ## What make test runs: make release and verify-release for this machine's platform, darwin/arm64 and darwin/amd64, with the oldest minor's components for this machine.
	$(MAKE) release PLATFORMS="$(RELEASE_CHECK_PLATFORMS)" COMPONENTS="$(RELEASE_CHECK_COMPONENTS)" COMPONENT_PLATFORMS="$(RELEASE_CHECK_COMPONENT_PLATFORMS)"
	$(MAKE) verify-release PLATFORMS="$(RELEASE_CHECK_PLATFORMS)" COMPONENTS="$(RELEASE_CHECK_COMPONENTS)" COMPONENT_PLATFORMS="$(RELEASE_CHECK_COMPONENT_PLATFORMS)"

# The components of every minor of COMPONENTS for macOS: each a cold compile
# of a Kubernetes for a platform, 7-10 minutes on two cores, which is why
# make test leaves them to this target and to the release workflow.
.PHONY: cross-components
cross-components: ## Build crdlab-k8s-<minor> of each of COMPONENTS for darwin/arm64 and darwin/amd64 (long: a cold compile of Kubernetes each); nothing is kept.
	@set -e; for arch in arm64 amd64; do for m in $(COMPONENTS); do \
		echo "== crdlab-k8s-$$m for darwin/$$arch"; \
		(cd lab/components/$$m && $(RELEASE_ENV) GOOS=darwin GOARCH=$$arch $(GO) build $(RELEASE_COMPONENTS_BUILD_FLAGS) -o /dev/null .); \
	done; done

# The darwin builds: crdlab for arm64 and amd64 (with the release's flags,
# sharing their compiled packages with make release), vetted for arm64, and
# the labtest module users' suites import (client-go only) for both Mac
# architectures, built and vetted, and its controller-runtime wrapper
# (lab/labtest/trace) for Apple silicon.
.PHONY: cross
cross: ## Build crdlab for macOS (darwin/arm64, darwin/amd64) and vet it for darwin/arm64; build and vet the labtest module for both and labtest/trace for arm64; nothing is kept.
	@set -e; for arch in arm64 amd64; do \
		echo "== crdlab for darwin/$$arch"; \
		$(RELEASE_ENV) GOOS=darwin GOARCH=$$arch $(GO) build $(RELEASE_BUILD_FLAGS) -o /dev/null ./cmd/crdlab; \
	done
	@# -trimpath (GOFLAGS), as the build above: vet reuses the packages it compiled.
	$(RELEASE_ENV) GOOS=darwin GOARCH=arm64 $(GO) vet ./...
	@set -e; for arch in arm64 amd64; do \
		echo "== lab/labtest for darwin/$$arch"; \
		(cd lab/labtest && GOOS=darwin GOARCH=$$arch $(GO) build ./... && GOOS=darwin GOARCH=$$arch $(GO) vet ./...); \
	done
	@# The trace wrapper is pure Go over controller-runtime: one Mac architecture shows it builds.
	@echo "== lab/labtest/trace for darwin/arm64"
	cd lab/labtest/trace && GOOS=darwin GOARCH=arm64 $(GO) build ./... && GOOS=darwin GOARCH=arm64 $(GO) vet ./...

# The Kubernetes minors crdlab serves besides the 1.37 built into it: each a
# module of its own (lab/components/<minor>, pinned to that minor's newest
# patch release), built as crdlab-k8s-<minor> next to crdlab, where crdlab
# looks for it first after $$CRDLAB_COMPONENTS_DIR. The oldest is the one
# the example's envtest suites also run on (make test-modules).
K8S_MINORS := 1.36 1.35
K8S_OLDEST := 1.35

.PHONY: components
components: ## Build bin/crdlab-k8s-<minor> for K8S=<minor> (1.36 or 1.35): that Kubernetes minor's components, for 'crdlab up/envtest --kubernetes <minor>'; GOOS/GOARCH honoured.
ifneq ($(words $(K8S))$(filter-out $(K8S_MINORS),$(K8S)),1)
	@echo "make components: K8S='$(K8S)': give one of $(K8S_MINORS) (1.37 is built into crdlab: make build)" >&2; exit 2
endif
	cd lab/components/$(K8S) && $(GO) build -o $(dir $(abspath $(BIN)))crdlab-k8s-$(K8S) .

.PHONY: run
run: build ## Build, then start a lab in the foreground (crdlab up).
	$(BIN) up

##@ Development

.PHONY: fmt
fmt: ## Format the code.
	gofmt -l -w $$(git ls-files '*.go')

.PHONY: generate
generate: build ## Regenerate generated files: components' --help for envtest (every minor's), scenario format docs and schema, CLI golden files.
	$(GO) test -vet=off -count=1 -run TestGeneratedDocs ./scenarios -args -update
	$(GO) test -vet=off -count=1 -run 'TestHelpGolden|TestScenarioListAndExplainGolden' ./cmd/crdlab -args -update
	mkdir -p bin/links
	for c in etcd kube-apiserver; do \
		ln -sf ../crdlab bin/links/$$c; \
		CRDLAB_REAL_HELP=1 bin/links/$$c --help > lab/internal/fasthelp/$$c.txt 2>&1; \
	done
	@# Each minor's kube-apiserver answers with its own help (envtest reads
	@# flags from it): lab/components/<minor>/fasthelp.
	@set -e; for k in $(K8S_MINORS); do \
		$(MAKE) --no-print-directory components K8S=$$k; \
		mkdir -p bin/links/$$k; \
		ln -sf ../../crdlab-k8s-$$k bin/links/$$k/kube-apiserver; \
		CRDLAB_REAL_HELP=1 bin/links/$$k/kube-apiserver --help > lab/components/$$k/fasthelp/kube-apiserver.txt 2>&1; \
	done

$(CONTROLLER_GEN):
	mkdir -p bin/tools
	GOBIN=$(CURDIR)/bin/tools GOFLAGS= $(GO) install sigs.k8s.io/controller-tools/cmd/controller-gen@$(CONTROLLER_GEN_VERSION)
	mv bin/tools/controller-gen $@

.PHONY: manifests
manifests: $(CONTROLLER_GEN) ## Generate the operators' CRDs (fixtures/crds), webhook configurations (fixtures/webhooks) and deepcopy code from their API types, and the example operator's.
	$(CONTROLLER_GEN) object paths=./controllers/...
	$(CONTROLLER_GEN) crd paths=./controllers/... output:crd:artifacts:config=fixtures/crds
	$(CONTROLLER_GEN) webhook paths=./controllers/... output:webhook:artifacts:config=fixtures/webhooks
	cd $(EXAMPLE) && $(CURDIR)/$(CONTROLLER_GEN) object crd webhook paths=./... \
		output:crd:artifacts:config=config/crd/bases output:webhook:artifacts:config=config/webhook

.PHONY: verify-manifests
verify-manifests: manifests ## Fail when generated files are stale.
	@test -z "$$(git status --porcelain -- controllers fixtures/crds fixtures/webhooks $(EXAMPLE))" || { \
		echo "generated files are stale; run make manifests and commit:"; git status --porcelain -- controllers fixtures/crds fixtures/webhooks $(EXAMPLE); exit 1; }

.PHONY: vet
vet: ## Run go vet.
	$(GO) vet ./...

$(GOLANGCI_LINT):
	mkdir -p bin/tools
	GOBIN=$(CURDIR)/bin/tools GOFLAGS= $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)
	mv bin/tools/golangci-lint $@

.PHONY: lint
lint: $(GOLANGCI_LINT) ## Run golangci-lint (.golangci.yml: gofmt, goimports grouping, errorlint, errcheck, staticcheck...) on every module.
	$(GOLANGCI_LINT) run ./...
	@set -e; for m in $(MODULES); do \
		echo "== lint $$m"; \
		(cd $$m && $(CURDIR)/$(GOLANGCI_LINT) run --config $(CURDIR)/.golangci.yml ./...); \
	done

.PHONY: test-deps
test-deps: ## Install what the tests need: Debian's kubectl, tmux for the lessons' terminal test, and Debian's chromium for the web UI's browser test.
	@command -v $(KUBECTL) >/dev/null 2>&1 || { \
		echo "installing Debian's kubectl"; \
		apt-get update -qq && (apt-get install -y -qq kubectl || apt-get install -y -qq kubernetes-client); }
	@command -v tmux >/dev/null 2>&1 || { \
		echo "installing tmux (crdlab learn driven through a terminal)"; \
		apt-get update -qq && apt-get install -y -qq tmux; }
	@# The browser test skips, saying so, where chromium cannot be installed;
	@# a CJK font shows the seed's Chinese terms in its screenshot.
	@command -v chromium >/dev/null 2>&1 || { \
		echo "installing Debian's chromium (the web UI's browser test)"; \
		apt-get update -qq && apt-get install -y -qq chromium fonts-wqy-zenhei || \
		echo "chromium could not be installed: TestWebUIInABrowser will skip"; }

.PHONY: test
test: test-deps verify-manifests build lint ## Run every test: lint, unit, integration (real apiserver), CLI, and the modules of users' suites.
	$(GO) vet ./...
	$(MAKE) cross
	$(MAKE) release-check
	$(GO) test -vet=off -count=1 -timeout 30m ./...
	$(MAKE) test-modules
	$(MAKE) test-kubernetes-seed KUBERNETES_TEST_MINORS=$(K8S_OLDEST)
	$(MAKE) conformance-ci
	@# A count, not a duration: go1.26's fuzzing coordinator can fail a
	@# duration-bounded run with "context deadline exceeded" as it ends
	@# (golang/go#75804, fixed in go1.27); a count has no deadline.
	$(MAKE) fuzz FUZZTIME=20000x

# Modules with a go.mod of their own, on their own dependency versions: the
# module users' suites import, its controller-runtime wrapper that puts their
# own controller on the lab's timeline, the example operator project that
# uses both, and the components of the oldest Kubernetes minor (make test
# compiles that one anyway; the others' modules are linted and tested by
# make test-kubernetes: a cold compile of a minor is ~10 minutes).
MODULES ?= lab/labtest lab/labtest/trace docs/examples/guestbook-operator lab/internal/conformance lab/components/$(K8S_OLDEST)

.PHONY: test-modules
test-modules: build ## Test the modules with their own go.mod (lab/labtest, lab/labtest/trace, the example operator, lab/components/*) against bin/crdlab and bin/crdlab-k8s-*; the example's download test serves dist/$(VERSION) (make release-check).
	@# The example's suites also run on the oldest minor (test/versions
	@# and test/envtest), the components module's tests boot it: its
	@# executable is built first.
	$(MAKE) --no-print-directory components K8S=$(K8S_OLDEST)
	@set -e; for m in $(MODULES); do \
		echo "== $$m"; \
		(cd $$m && $(GO) vet ./... && \
		 CRDLAB_BINARY=$(CURDIR)/$(BIN) KUBEBUILDER_ASSETS=$$($(CURDIR)/$(BIN) envtest) \
		 CRDLAB_COMPONENTS_DIR=$(dir $(abspath $(BIN))) \
		 CRDLAB_RELEASE_DIR=$(CURDIR)/dist/$(VERSION) CRDLAB_RELEASE_VERSION=$(VERSION) \
		 $(GO) test -count=1 -p 1 -timeout 15m ./...); \
	done
	@# The example's plain envtest suite again, on the oldest minor, as a
	@# kubebuilder project's Makefile runs it with ENVTEST_K8S_VERSION.
	@echo "== $(EXAMPLE)/test/envtest on Kubernetes $(K8S_OLDEST)"
	assets=$$($(CURDIR)/$(BIN) envtest --kubernetes $(K8S_OLDEST)) && cd $(EXAMPLE) && \
		KUBEBUILDER_ASSETS=$$assets $(GO) test -count=1 -timeout 15m ./test/envtest/

# Kubernetes' own e2e.test, built from the k8s.io/kubernetes crdlab links, in
# a module of its own (lab/internal/conformance); rebuilt when its go.mod
# changes, from the build cache.
E2E ?= bin/e2e.test
CONFORMANCE_FOCUS ?= \[sig-api-machinery\].*\[Conformance\]
# The tests that deploy an image and call it cannot pass on simulated nodes
# (docs/conformance.md says what they would take); CONFORMANCE_SKIP= runs
# them too, each failing after its timeouts.
CONFORMANCE_SKIP ?= \[sig-api-machinery\] (AdmissionWebhook|CustomResourceConversionWebhook|CustomResourceFieldSelectors|Aggregator)
# The subset 'make test' runs: container-free tests of the CRDs, the garbage
# collector, namespaces, watches and the rest of api-machinery that pass.
CONFORMANCE_CI_FOCUS ?= \[sig-api-machinery\] (CustomResourceDefinition resources|Garbage collector|Namespaces|Watchers|Servers with support|FieldValidation|Discovery|server version).*\[Conformance\]
# [Slow] ones wait for etcd's compaction, every 5 minutes as in any cluster.
CONFORMANCE_CI_SKIP ?= \[Slow\]

$(E2E): lab/internal/conformance/go.mod lab/internal/conformance/go.sum
	cd lab/internal/conformance && $(GO) test -c -o $(CURDIR)/$(E2E) k8s.io/kubernetes/test/e2e

.PHONY: conformance
conformance: build $(E2E) ## Run the api-machinery conformance tests of Kubernetes' e2e.test against a lab; writes docs/conformance/results.json and docs/conformance.md.
	FOCUS='$(CONFORMANCE_FOCUS)' SKIP='$(CONFORMANCE_SKIP)' REPORT=1 bash lab/internal/conformance/run.sh

.PHONY: conformance-ci
conformance-ci: build $(E2E) ## The subset of the conformance tests that 'make test' runs (report in _artifacts/conformance).
	FOCUS='$(CONFORMANCE_CI_FOCUS)' SKIP='$(CONFORMANCE_CI_SKIP)' bash lab/internal/conformance/run.sh

.PHONY: conformance-report
conformance-report: ## Regenerate docs/conformance.md from docs/conformance/results.json.
	cd lab/internal/conformance && $(GO) run ./report -results $(CURDIR)/docs/conformance/results.json -doc $(CURDIR)/docs/conformance.md

.PHONY: fuzz
fuzz: ## Fuzz the scenario loader and crd migrate's converter for 3 minutes each (FUZZTIME=10m for longer).
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime $(or $(FUZZTIME),3m) -fuzzminimizetime 1x ./scenarios/format/
	$(GO) test -run '^$$' -fuzz FuzzCRD -fuzztime $(or $(FUZZTIME),3m) -fuzzminimizetime 1x ./fixtures/migrate/

.PHONY: chaos
chaos: ## Fault injection: kill -9 each process of a lab on --data-dir under a steady writer, ROUNDS times (default 3); prints recovery times and writes acknowledged/found.
	CRDLAB_CHAOS_ROUNDS=$(or $(ROUNDS),3) $(GO) test -vet=off -count=1 -v -run '^TestChaos$$' -timeout 30m ./cmd/crdlab/

.PHONY: test-timeline
test-timeline: ## The timeline's order under load: delete-pod, scale and cascade-delete RUNS times each (default 20), against 'crdlab up -d' and through the Go API; prints the late lines.
	CRDLAB_TIMELINE_RUNS=$(or $(RUNS),20) $(GO) test -vet=off -count=1 -v -run '^TestTimelineOrderUnderLoad$$' -timeout 90m ./cmd/crdlab/
	CRDLAB_TIMELINE_RUNS=$(or $(RUNS),20) $(GO) test -vet=off -count=1 -v -timeout 90m ./scenarios/ -run '^TestScenarios$$' -ginkgo.focus 'on a loaded machine' -ginkgo.v

# The Kubernetes minors make test-kubernetes runs on (make test: the oldest
# alone, K8S_OLDEST), each older than the built-in 1.37 from
# bin/crdlab-k8s-<minor> (make components K8S=<minor>).
KUBERNETES_TEST_MINORS ?= $(K8S_MINORS) 1.37

.PHONY: test-kubernetes-seed
test-kubernetes-seed: build ## On each of KUBERNETES_TEST_MINORS, with its bin/crdlab-k8s-<minor>: the seed walkthrough (up -d --kubernetes, kubectl version, the User CRD, an invalid User refused, delete-pod, the data dir refused by another minor) and a labtest lab on that minor (controller-manager, scheduler, nodes, delete-pod).
	CRDLAB_TEST_KUBERNETES="$(KUBERNETES_TEST_MINORS)" CRDLAB_COMPONENTS_DIR=$(CURDIR)/bin \
		$(GO) test -vet=off -count=1 -v -run '^TestSeedWalkthroughOnKubernetes$$' -timeout 30m ./cmd/crdlab/
	@set -e; for m in $(KUBERNETES_TEST_MINORS); do \
		echo "== labtest on Kubernetes $$m"; \
		(cd lab/labtest && CRDLAB_BINARY=$(CURDIR)/$(BIN) CRDLAB_TEST_KUBERNETES=$$m CRDLAB_COMPONENTS_DIR=$(CURDIR)/bin \
			$(GO) test -count=1 -v -run '^TestKubernetesVersion$$' -timeout 15m .); \
	done

.PHONY: test-kubernetes
test-kubernetes: build ## Long: build crdlab-k8s-<minor> of each of KUBERNETES_TEST_MINORS older than 1.37 (a cold build is ~10 min each), lint and test their components modules, then make test-kubernetes-seed, the bootstrap objects against upstream's unpatched kube-apiserver, and the built-in scenarios through the Go API on each minor (one skipped where spec.minKubernetes says the minor lacks what it needs).
	@set -e; for m in $(filter-out 1.37,$(KUBERNETES_TEST_MINORS)); do $(MAKE) components K8S=$$m; done
	@# The components modules make test leaves out (it has the oldest's):
	@# linted, vetted and their own tests (TestExecutable boots each).
	$(MAKE) lint test-modules MODULES="$(addprefix lab/components/,$(filter-out $(K8S_OLDEST) 1.37,$(KUBERNETES_TEST_MINORS)))"
	$(MAKE) test-kubernetes-seed KUBERNETES_TEST_MINORS="$(KUBERNETES_TEST_MINORS)"
	@# The bootstrap objects the post-start shortcut makes on an empty etcd,
	@# against what upstream's unpatched kube-apiserver of each minor makes.
	$(MAKE) standalone STANDALONE_MINORS="$(filter-out 1.37,$(KUBERNETES_TEST_MINORS))"
	CRDLAB_TEST_KUBERNETES="$(KUBERNETES_TEST_MINORS)" CRDLAB_BINARY=$(CURDIR)/$(BIN) CRDLAB_COMPONENTS_DIR=$(CURDIR)/bin \
		CRDLAB_STANDALONE_ASSETS=$(CURDIR)/bin/standalone \
		$(GO) test -vet=off -count=1 -v -run '^TestBootstrapObjectsAsUpstreamMakesThem$$' -timeout 30m ./lab/multicall/
	@set -e; for m in $(KUBERNETES_TEST_MINORS); do \
		echo "== the built-in scenarios on Kubernetes $$m"; \
		CRDLAB_KUBERNETES_VERSION=$$m CRDLAB_COMPONENTS_DIR=$(CURDIR)/bin \
			$(GO) test -vet=off -count=1 -v -timeout 30m -run '^TestScenarios$$' ./scenarios/ -ginkgo.focus 'built-in|needs a newer Kubernetes' -ginkgo.v; \
	done

# The older minors make standalone builds a reference of too, for
# BenchmarkEnvtest: upstream's own, unpatched cmd/kube-apiserver at the
# versions of lab/components/<minor>/go.mod, in bin/standalone/<minor> with
# the same etcd.
STANDALONE_MINORS ?= $(K8S_OLDEST)

.PHONY: standalone
standalone: ## Build standalone etcd and kube-apiserver into bin/standalone, and kube-apiserver of each of STANDALONE_MINORS into bin/standalone/<minor>: the benchmarks' reference, what plain envtest runs.
	$(GO) build -o bin/standalone/etcd ./lab/internal/standalone/etcd
	$(GO) build -o bin/standalone/kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver
	@set -e; for m in $(STANDALONE_MINORS); do \
		mkdir -p bin/standalone/$$m && ln -sf ../etcd bin/standalone/$$m/etcd; \
		echo "cd lab/components/$$m && $(GO) build -o bin/standalone/$$m/kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver"; \
		(cd lab/components/$$m && $(GO) build -o $(CURDIR)/bin/standalone/$$m/kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver); \
	done

.PHONY: bench-envtest
bench-envtest: build standalone ## Only envtest as a suite runs it (Start with CRDs, then Stop) on 'crdlab envtest's folder against standalone binaries, for 1.37 and 1.35, side by side (docs/boot.md); about 3 minutes once built.
	@set -e; for m in $(STANDALONE_MINORS); do $(MAKE) components K8S=$$m; done
	CRDLAB_BINARY=$(CURDIR)/$(BIN) CRDLAB_STANDALONE_ASSETS=$(CURDIR)/bin/standalone $(GO) test -vet=off -run '^$$' -bench Envtest -benchtime 10x -timeout 60m ./lab/

.PHONY: bench-boot
bench-boot: build standalone ## Only docs/boot.md's table: boot, stop and PSS of labs and of 'crdlab up -d'/'crdlab down' against plain envtest, and the loops.
	CRDLAB_BINARY=$(CURDIR)/$(BIN) CRDLAB_STANDALONE_ASSETS=$(CURDIR)/bin/standalone $(GO) test -vet=off -run '^$$' -bench Boot -benchtime 5x -timeout 60m ./lab/

.PHONY: bench
bench: build standalone ## Benchmarks, side by side in one run: boot, stop and PSS against plain envtest, the loops (delete → Ready, 0 → 1000 Pods), envtest on crdlab's folder against standalone binaries (1.37, 1.35), 10,000 Users and 50 watchers, Reset and attach against envtest per spec.
	$(MAKE) bench-boot
	$(MAKE) bench-envtest
	CRDLAB_STANDALONE_ASSETS=$(CURDIR)/bin/standalone $(GO) test -vet=off -run '^$$' -bench Users -benchtime 1x -timeout 60m ./lab/
	$(GO) test -vet=off -run '^$$' -bench 'WebApps|RedisClusters' -benchtime 1x -timeout 60m ./controllers/
	cd docs/examples/guestbook-operator && CRDLAB_BINARY=$(CURDIR)/$(BIN) KUBEBUILDER_ASSETS=$(CURDIR)/bin/standalone \
		$(GO) test -run '^$$' -bench 'BetweenSpecs|Attach' -benchtime 5x -timeout 60m ./test/bench/
