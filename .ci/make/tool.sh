#!/usr/bin/env bash
# tool.sh bin/NAME-VERSION: installs the pinned tool NAME at VERSION as
# bin/NAME-VERSION, built with this Go (GOFLAGS unset: the tools' own
# builds, not the release's flags). NAME is controller-gen or golangci-lint.
set -euo pipefail
out=${1:?usage: tool.sh bin/NAME-VERSION}
file=$(basename "$out")
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
GOBIN=$tools GOFLAGS='' "${GO:-go}" install "$pkg@$version"
mv "$tools/$name" "$out"
