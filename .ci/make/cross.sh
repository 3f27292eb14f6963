#!/usr/bin/env bash
# cross.sh: make cross. crdlab for macOS on both architectures, with the
# release's flags ($CRDLAB_LDFLAGS at link time only, so that make release
# links these compiled packages), vetted for darwin/arm64; the labtest module
# users' suites import (client-go only) built and vetted for both, and its
# controller-runtime wrapper (lab/labtest/trace, pure Go) for Apple silicon.
# Nothing is kept. cross.sh components (make cross-components): instead,
# crdlab-k8s-<minor> of each minor of $COMPONENTS for both Macs (each a cold
# compile of a Kubernetes, 7-10 minutes on two cores: make test leaves them
# to this and to the release workflow). cross.sh check (make test, whose
# release check builds crdlab for darwin/arm64): crdlab is not built here;
# darwin/amd64 is type-checked from source with its tests
# (lab/internal/typecheck: seconds, where its compile is a cold compile of
# Kubernetes more), and so is darwin/arm64, vetted only where its files
# differ from linux/arm64's (go vet compiles the tests' dependencies for
# darwin: vetting the packages with the same files as Linux, vetted by make
# vet, would compile them for nothing); the labtest modules as make cross.
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
	for arch in amd64 arm64; do
		echo "== type-check ./... with its tests for darwin/$arch"
		"$GO" run ./lab/internal/typecheck -platform "darwin/$arch" ./...
	done
	files='{{.ImportPath}} {{.GoFiles}} {{.TestGoFiles}} {{.XTestGoFiles}}'
	mapfile -t differ < <(diff <(GOOS=linux GOARCH=arm64 "$GO" list -f "$files" ./...) \
		<(GOOS=darwin GOARCH=arm64 "$GO" list -f "$files" ./...) | sed -n 's/^> \([^ ]*\) .*/\1/p')
	echo "== go vet for darwin/arm64 where its files differ from Linux: ${differ[*]:-none}"
	if [[ ${#differ[@]} -gt 0 ]]; then
		GOOS=darwin GOARCH=arm64 "$GO" vet "${differ[@]}"
	fi
else
	for arch in arm64 amd64; do
		echo "== crdlab for darwin/$arch"
		GOOS=darwin GOARCH=$arch "$GO" build -trimpath -ldflags "$CRDLAB_LDFLAGS" -o /dev/null ./cmd/crdlab
	done
	echo "== go vet ./... for darwin/arm64"
	GOOS=darwin GOARCH=arm64 "$GO" vet ./...
fi
for target in lab/labtest:arm64 lab/labtest:amd64 lab/labtest/trace:arm64; do
	dir=${target%:*} arch=${target#*:}
	echo "== $dir for darwin/$arch"
	(cd "$dir" && GOOS=darwin GOARCH=$arch "$GO" build ./... && GOOS=darwin GOARCH=$arch "$GO" vet ./...)
done
