#!/usr/bin/env bash
# generate.sh: make generate (after make build). The scenario format's docs
# and schema and the CLI's golden files (each test's -update), and the
# --help texts envtest reads flags from: etcd's and kube-apiserver's of the
# built-in minor (lab/internal/fasthelp) and kube-apiserver's of each of
# $K8S_MINORS (lab/components/<minor>/fasthelp), each answering with its own.
set -euo pipefail
: "${GO:=go}" "${BINDIR:?}" "${K8S_MINORS:?}"
"$GO" test -vet=off -count=1 -run TestGeneratedDocs ./scenarios -args -update
"$GO" test -vet=off -count=1 -run 'TestHelpGolden|TestScenarioListAndExplainGolden|TestLearnListGolden' ./cmd/crdlab -args -update
# shellcheck disable=SC2086 # a list of minors
"$(dirname "$0")/components.sh" $K8S_MINORS
# A multicall executable answers as the name it is called by: a link.
help() { # help EXECUTABLE DIR NAME OUT: NAME's real --help into OUT
	mkdir -p "$BINDIR/links/$2" && ln -sf "$1" "$BINDIR/links/$2/$3"
	CRDLAB_REAL_HELP=1 "$BINDIR/links/$2/$3" --help >"$4" 2>&1
}
for c in etcd kube-apiserver; do
	help "$BINDIR/crdlab" builtin "$c" "lab/internal/fasthelp/$c.txt"
done
for m in $K8S_MINORS; do
	help "$BINDIR/crdlab-k8s-$m" "$m" kube-apiserver "lab/components/$m/fasthelp/kube-apiserver.txt"
done
