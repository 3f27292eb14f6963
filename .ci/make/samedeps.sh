#!/usr/bin/env bash
# samedeps.sh DIR PACKAGE [NAME [REF]]: fails when the module in DIR (called
# NAME in what it says) builds PACKAGE (with its tests) from a dependency at
# another version than the module in REF resolves (default: the main module).
# A package of another version is compiled again, and so is every package
# above it: lab/internal/tools/conformance's e2e.test shares most of Kubernetes
# with bin/crdlab only while its go.mod resolves the same versions, and the
# example operator shares labtest/trace's compiles (and golangci-lint's
# analysis of them) only while it resolves trace's.
set -euo pipefail
usage='usage: samedeps.sh DIR PACKAGE [NAME [REF]]'
dir=${1:?$usage} pkg=${2:?$usage}
name=${3:-$dir/go.mod} ref=${4:-.}
refname='the main module'
[[ $ref == . ]] || refname=$ref/go.mod
# A replace by the same module at a version is that version (the main
# module pins Kubernetes' staging modules so); by another module, path@version;
# by a directory (this repository's own modules) or a main module: not compared.
# shellcheck disable=SC2016 # a Go template's variable, not the shell's
version='{{$m := .}}{{with .Replace}}{{if eq .Path $m.Path}}{{.Version}}{{else}}{{.Path}}@{{.Version}}{{end}}{{else}}{{.Version}}{{end}}'
theirs=$(cd "$dir" && "${GO:-go}" list -deps -test -f "{{with .Module}}{{if not .Main}}{{.Path}} $version{{end}}{{end}}" "$pkg" | sort -u)
ours=$(cd "$ref" && "${GO:-go}" list -m -f "{{.Path}} $version" all | sort -u)
# shellcheck disable=SC2016 # awk's fields, not the shell's
compare='function local(v) { return v == "" || v ~ /^[.\/]/ }
$2 != $3 && !local($2) && !local($3) { printf "  %s: %s in %s, %s in %s\n", $1, $2, name, $3, ref }'
differ=$(join <(echo "$theirs") <(echo "$ours") | awk -v name="$name" -v ref="$refname" "$compare")
if [[ -n $differ ]]; then
	echo "$name: $pkg's dependencies at other versions than $refname's (each compiles twice); require $refname's:" >&2
	echo "$differ" >&2
	exit 1
fi
