#!/usr/bin/env bash
# cross.sh: make cross. crdlab for macOS on both architectures, with the
# release's flags ($CRDLAB_LDFLAGS at link time only, so that make release
# links these compiled packages), vetted for darwin/arm64; the labtest module
# users' suites import (client-go only) built and vetted for both, and its
# controller-runtime wrapper (lab/labtest/trace, pure Go) for Apple silicon.
# Nothing is kept. cross.sh components (make cross-components): instead,
# crdlab-k8s-<minor> of each minor of $COMPONENTS for both Macs (each a cold
# compile of a Kubernetes, 7-10 minutes on two cores: make test leaves them
# to this and to the release workflow). cross.sh check (make test, which
# compiles nothing for a Mac): every package of the main module and of the
# labtest modules, with its tests, type-checked from source for both Macs
# and vetted by go vet's analyzers (lab/internal/typecheck -vet: under a
# minute each, where go vet for a Mac compiles everything the packages
# import for it, a Kubernetes more).
set -euo pipefail
: "${GO:=go}" "${CRDLAB_LDFLAGS:?}" "${COMPONENTS_LDFLAGS:?}"
export CGO_ENABLED=0 # and -trimpath (GOFLAGS): as make build and make release
if [[ ${1:-} == components ]]; then
	for arch in arm64 amd64; do
		for m in ${COMPONENTS:-}; do
			echo "== crdlab-k8s-$m for darwin/$arch"
			(cd "lab/components/$m" && GOOS=darwin GOARCH=$arch "$GO" build -trimpath -ldflags "$COMPONENTS_LDFLAGS" -o /dev/null .)
		done
	done
	exit 0
fi
if [[ ${1:-} == check ]]; then
	typecheck=$(mktemp -d)/typecheck
	trap 'rm -rf "$(dirname "$typecheck")"' EXIT
	"$GO" build -o "$typecheck" ./lab/internal/typecheck
	for target in .:amd64 .:arm64 lab/labtest:amd64 lab/labtest:arm64 lab/labtest/trace:amd64 lab/labtest/trace:arm64; do
		dir=${target%:*} arch=${target#*:}
		echo "== type-check and vet $dir/... with its tests for darwin/$arch"
		"$typecheck" -C "$dir" -platform "darwin/$arch" -vet ./...
	done
	exit 0
fi
for arch in arm64 amd64; do
	echo "== crdlab for darwin/$arch"
	GOOS=darwin GOARCH=$arch "$GO" build -trimpath -ldflags "$CRDLAB_LDFLAGS" -o /dev/null ./cmd/crdlab
done
echo "== go vet ./... for darwin/arm64"
GOOS=darwin GOARCH=arm64 "$GO" vet ./...
for target in lab/labtest:arm64 lab/labtest:amd64 lab/labtest/trace:arm64; do
	dir=${target%:*} arch=${target#*:}
	echo "== $dir for darwin/$arch"
	(cd "$dir" && GOOS=darwin GOARCH=$arch "$GO" build ./... && GOOS=darwin GOARCH=$arch "$GO" vet ./...)
done
