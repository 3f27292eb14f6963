#!/usr/bin/env bash
# bench-scale.sh: make bench-scale. Builds KWOK's controller, the Go module
# sigs.k8s.io/kwok at the version lab/internal/tools/kwokbench/go.mod requires (a
# module of its own: the main module's versions stay as they are), into
# bin/kwok, then runs BenchmarkScale (lab/scale_bench_test.go): crdlab's
# simulated nodes and KWOK's on the same control plane, side by side
# (docs/scale.md). The Makefile exports $GO, CGO_ENABLED and GOFLAGS;
# BENCH_SCALE_NODES (1000), BENCH_SCALE_PODS (10000) and BENCH_SCALE_JOB
# (0: no Job) size the run. BENCH_SCALE_HOLD=N runs BenchmarkScaleHold
# (its Pods in BENCH_SCALE_HOLD_APPS Deployments, 100, a namespace each)
# instead: crdlab's row alone, N Pods held (100,000: about 35 minutes on
# two cores), and the PSS of each process when they are Ready and while
# they are held, every 30 s for BENCH_SCALE_HOLD_FOR (2m).
# BENCH_SCALE_STEPS=kwok runs BenchmarkScaleSteps instead: KWOK's own
# benchmark (its test/e2e/benchmark.go), 5,000 nodes Ready, 10,000 bare
# Pods Running, deleted, on crdlab's nodes and on KWOK's
# (BENCH_SCALE_NODES and BENCH_SCALE_PODS size it too: 500 and 1000 for a
# short run). BENCH_SCALE_PROFILE=dir writes CPU profiles of each process
# over each Pod step or phase of either benchmark into dir (docs/scale.md,
# "Where the time goes"), and with BENCH_SCALE_HOLD each process's heap
# profile and Go MemStats at the end of the hold ("Memory with 100,000
# Pods"). BENCH_SCALE_PEER=none runs BenchmarkScale's
# crdlab row alone (kwok, the default: KWOK's row beside it).
set -euo pipefail
: "${GO:=go}"
root=$PWD
if [[ -n ${BENCH_SCALE_PROFILE:-} ]]; then
	mkdir -p "$BENCH_SCALE_PROFILE"
	CRDLAB_BENCH_SCALE_PROFILE=$(cd "$BENCH_SCALE_PROFILE" && pwd)
	export CRDLAB_BENCH_SCALE_PROFILE
fi
if [[ -n ${BENCH_SCALE_HOLD:-} ]]; then
	export CRDLAB_BENCH_SCALE_NODES=${BENCH_SCALE_NODES:-1000} CRDLAB_BENCH_SCALE_HOLD=$BENCH_SCALE_HOLD
	export CRDLAB_BENCH_SCALE_HOLD_APPS=${BENCH_SCALE_HOLD_APPS:-100} CRDLAB_BENCH_SCALE_HOLD_FOR=${BENCH_SCALE_HOLD_FOR:-2m}
	exec "$GO" test -vet=off -run '^$' -bench '^BenchmarkScaleHold$' -benchtime 1x -timeout 150m ./lab/
fi
mod=lab/internal/tools/kwokbench
echo "== bin/kwok from $mod/go.mod"
(cd "$mod" && "$GO" build -o "$root/bin/kwok" sigs.k8s.io/kwok/cmd/kwok)
kwok=$(cd "$mod" && "$GO" list -m -f '{{.Dir}}' sigs.k8s.io/kwok)
export CRDLAB_KWOK_BINARY=$root/bin/kwok CRDLAB_KWOK_STAGES=$kwok/kustomize/stage
case ${BENCH_SCALE_STEPS:-} in
'') ;;
kwok)
	export CRDLAB_BENCH_SCALE_NODES=${BENCH_SCALE_NODES:-5000} CRDLAB_BENCH_SCALE_PODS=${BENCH_SCALE_PODS:-10000}
	exec "$GO" test -vet=off -run '^$' -bench '^BenchmarkScaleSteps$' -benchtime 1x -timeout 40m ./lab/
	;;
*)
	echo "BENCH_SCALE_STEPS=$BENCH_SCALE_STEPS: want kwok (KWOK's own benchmark) or nothing" >&2
	exit 2
	;;
esac
export CRDLAB_BENCH_SCALE_NODES=${BENCH_SCALE_NODES:-1000}
export CRDLAB_BENCH_SCALE_PODS=${BENCH_SCALE_PODS:-10000}
export CRDLAB_BENCH_SCALE_JOB=${BENCH_SCALE_JOB:-0}
export CRDLAB_BENCH_SCALE_PEER=${BENCH_SCALE_PEER:-kwok}
"$GO" test -vet=off -run '^$' -bench '^BenchmarkScale$' -benchtime 1x -timeout 40m ./lab/
