#!/usr/bin/env bash
# tool.sh bin/NAME-VERSION: installs the pinned tool NAME at VERSION as
# bin/NAME-VERSION, built with this Go from the tool's own go.mod, with
# the flags of every other build here (no DWARF, paths trimmed: an eighth
# less compile), not the caller's other GOFLAGS (a -mod or -tags of theirs
# is not the tool's). NAME is controller-gen or golangci-lint.
set -euo pipefail
out=${1:?usage: tool.sh bin/NAME-VERSION}
file=$(basename "$out")
# bin/NAME-VERSION-goX.Y.Z: built with that Go toolchain (GOTOOLCHAIN, from
# the module proxy), for a module whose go line is newer than this Go
# (golangci-lint reads no Go newer than the one it was built with).
toolchain=
if [[ $file =~ ^(.+)-(go[0-9]+\.[0-9]+(\.[0-9]+)?)$ ]]; then
	file=${BASH_REMATCH[1]} toolchain=${BASH_REMATCH[2]}
fi
name=${file%-v*} version=v${file##*-v}
case $name in
controller-gen) pkg=sigs.k8s.io/controller-tools/cmd/controller-gen ;;
golangci-lint) pkg=github.com/golangci/golangci-lint/v2/cmd/golangci-lint ;;
*)
	echo "tool.sh: $out: no such tool (controller-gen or golangci-lint)" >&2
	exit 2
	;;
esac
tools=$PWD/bin/tools
mkdir -p "$tools"
GOTOOLCHAIN=${toolchain:-${GOTOOLCHAIN:-auto}} GOBIN=$tools GOFLAGS=${NODWARF:?} "${GO:-go}" install "$pkg@$version"
mv "$tools/$name" "$out"
