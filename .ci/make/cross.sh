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
# and vetted by go vet's analyzers for darwin/arm64 (their files are the
# same for both Macs, checked here; lab/internal/tools/typecheck -vet: under a
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
	"$GO" build -o "$typecheck" ./lab/internal/tools/typecheck
	# go vet's analyzers report on these modules' own files, which are the
	# same for both Macs (none is for one architecture): vetted once, for
	# darwin/arm64, as make cross vets. Checked here, so that a file for
	# one architecture brings darwin/amd64's vet back.
	files() { (cd "$1" && GOOS=darwin GOARCH=$2 "$GO" list -f '{{.ImportPath}} {{.GoFiles}} {{.TestGoFiles}} {{.XTestGoFiles}}' ./...); }
	for dir in . lab/labtest lab/labtest/trace; do
		echo "== type-check $dir/... with its tests for darwin/amd64; and vet it for darwin/arm64"
		if ! diff <(files "$dir" amd64) <(files "$dir" arm64) >&2; then
			echo "cross.sh: $dir: the files above differ between darwin/amd64 and darwin/arm64: vet both (cross.sh check)" >&2
			exit 1
		fi
		"$typecheck" -C "$dir" -platform darwin/amd64 ./...
		"$typecheck" -C "$dir" -platform darwin/arm64 -vet ./...
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
