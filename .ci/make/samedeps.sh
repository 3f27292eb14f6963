#!/usr/bin/env bash
# samedeps.sh DIR PACKAGE [NAME]: fails when the module in DIR (called NAME
# in what it says) builds PACKAGE (with its tests) from a dependency at
# another version than the main module's.
# A package of another version is compiled again, and so is every package
# above it: lab/internal/conformance's e2e.test shares most of Kubernetes
# with bin/crdlab only while its go.mod resolves the same versions.
set -euo pipefail
dir=${1:?usage: samedeps.sh DIR PACKAGE [NAME]} pkg=${2:?usage: samedeps.sh DIR PACKAGE [NAME]}
name=${3:-$dir/go.mod}
# A replace by the same module at a version is that version (the main
# module pins Kubernetes' staging modules so); by another module, path@version.
# shellcheck disable=SC2016 # a Go template's variable, not the shell's
version='{{$m := .}}{{with .Replace}}{{if eq .Path $m.Path}}{{.Version}}{{else}}{{.Path}}@{{.Version}}{{end}}{{else}}{{.Version}}{{end}}'
theirs=$(cd "$dir" && "${GO:-go}" list -deps -test -f "{{with .Module}}{{if not .Main}}{{.Path}} $version{{end}}{{end}}" "$pkg" | sort -u)
ours=$("${GO:-go}" list -m -f "{{.Path}} $version" all | sort -u)
differ=$(join <(echo "$theirs") <(echo "$ours") | awk '$2 != $3 { printf "  %s: %s in %s, %s in the main module\n", $1, $2, name, $3 }' name="$name")
if [[ -n $differ ]]; then
	echo "$name: $pkg's dependencies at other versions than the main module's (each compiles twice); require the main module's:" >&2
	echo "$differ" >&2
	exit 1
fi
