#!/usr/bin/env bash
# samedeps.sh DIR PACKAGE: fails when the module in DIR builds PACKAGE (with
# its tests) from a dependency at another version than the main module's.
# A package of another version is compiled again, and so is every package
# above it: lab/internal/conformance's e2e.test shares most of Kubernetes
# with bin/crdlab only while its go.mod resolves the same versions.
set -euo pipefail
dir=${1:?usage: samedeps.sh DIR PACKAGE} pkg=${2:?usage: samedeps.sh DIR PACKAGE}
version='{{with .Replace}}{{.Path}}@{{.Version}}{{else}}{{.Version}}{{end}}'
theirs=$(cd "$dir" && "${GO:-go}" list -deps -test -f "{{with .Module}}{{if not .Main}}{{.Path}} $version{{end}}{{end}}" "$pkg" | sort -u)
ours=$("${GO:-go}" list -m -f "{{.Path}} $version" all | sort -u)
differ=$(join <(echo "$theirs") <(echo "$ours") | awk '$2 != $3 { printf "  %s: %s in %s, %s in the main module\n", $1, $2, dir, $3 }' dir="$dir")
if [[ -n $differ ]]; then
	echo "$dir/go.mod: $pkg's dependencies at other versions than the main module's (each compiles twice); require the main module's:" >&2
	echo "$differ" >&2
	exit 1
fi
