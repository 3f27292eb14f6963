#!/usr/bin/env bash
# overlap.sh LOG BACKGROUND... -- FOREGROUND...: runs the command BACKGROUND
# (CPU-bound compiles), niced so that FOREGROUND gets the CPU first, while
# FOREGROUND (test suites that mostly wait on apiservers and controllers)
# runs; waits for both, then prints BACKGROUND's output, kept in LOG so that
# neither's output is interleaved. Fails when either fails; a failed
# FOREGROUND stops BACKGROUND at once.
set -euo pipefail
log=${1:?usage: overlap.sh LOG BACKGROUND... -- FOREGROUND...}
shift
background=()
while [[ $# -gt 0 && $1 != -- ]]; do
	background+=("$1")
	shift
done
if [[ $# -lt 2 || ${#background[@]} -eq 0 ]]; then
	echo "usage: overlap.sh LOG BACKGROUND... -- FOREGROUND..." >&2
	exit 2
fi
shift
mkdir -p "$(dirname "$log")"
# A process group of its own (job control), to stop it with its children.
set -m
nice -n 10 "${background[@]}" >"$log" 2>&1 &
pid=$!
set +m
trap 'kill -- -"$pid" 2>/dev/null || true' EXIT
echo "== running alongside (niced, output in $log): ${background[*]}"
rc=0
"$@" || rc=$?
if [[ $rc -ne 0 ]]; then
	echo "== $* failed (exit $rc): stopping ${background[*]}" >&2
	exit "$rc"
fi
brc=0
wait "$pid" || brc=$?
trap - EXIT
echo "== the output of ${background[*]} (run alongside $*):"
cat "$log"
if [[ $brc -ne 0 ]]; then
	echo "== ${background[*]} failed (exit $brc)" >&2
	exit "$brc"
fi
