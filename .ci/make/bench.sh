#!/usr/bin/env bash
# bench.sh: the part of make bench after make bench-boot and bench-envtest:
# 10,000 Users and 50 watchers against plain envtest (lab), the operators'
# loops (controllers), and the example's specs and attach against envtest
# on standalone binaries ($EXAMPLE). The Makefile exports $GO and $BIN.
set -euo pipefail
: "${GO:=go}" "${BIN:?}" "${EXAMPLE:?}"
root=$PWD
CRDLAB_STANDALONE_ASSETS=$root/bin/standalone "$GO" test -vet=off -run '^$' -bench Users -benchtime 1x -timeout 60m ./lab/
"$GO" test -vet=off -run '^$' -bench 'WebApps|RedisClusters' -benchtime 1x -timeout 60m ./controllers/
cd "$EXAMPLE"
CRDLAB_BINARY=$root/$BIN KUBEBUILDER_ASSETS=$root/bin/standalone \
	"$GO" test -run '^$' -bench 'BetweenSpecs|Attach' -benchtime 5x -timeout 60m ./test/bench/
