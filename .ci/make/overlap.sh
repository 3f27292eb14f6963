#!/usr/bin/env bash
# overlap.sh LOG BACKGROUND... -- FOREGROUND...: runs the command BACKGROUND
# (CPU-bound compiles), niced so that FOREGROUND gets the CPU first, while
# FOREGROUND (test suites that mostly wait on apiservers and controllers)
# runs; waits for both, then prints BACKGROUND's output, kept in LOG so that
# neither's output is interleaved, and how long each took and the CPU time
# both used (where make test's time goes). Fails when either fails; a failed
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
# shellcheck disable=SC2016 # expanded by the inner bash
nice -n 10 bash -c 'SECONDS=0; rc=0; "$@" || rc=$?; echo "== finished after ${SECONDS} s (exit $rc)"; exit "$rc"' \
	overlap "${background[@]}" >"$log" 2>&1 &
pid=$!
set +m
trap 'kill -- -"$pid" 2>/dev/null || true' EXIT
echo "== running alongside (niced, output in $log): ${background[*]}"
SECONDS=0
rc=0
"$@" || rc=$?
foreground=$SECONDS
if [[ $rc -ne 0 ]]; then
	echo "== $* failed (exit $rc): stopping ${background[*]}" >&2
	exit "$rc"
fi
brc=0
wait "$pid" || brc=$?
trap - EXIT
echo "== the output of ${background[*]} (run alongside $*):"
cat "$log"
# times' second line: the children's user and system time, as 1m2.345s.
times >"$log.times"
read -r user sys < <(tail -1 "$log.times")
rm -f "$log.times"
seconds() { local t=${1%s}; echo $((${t%%m*} * 60 + 10#${t#*m} / 1)); }
echo "== took ${SECONDS} s: the foreground ${foreground} s, the background as its last line says; CPU used by both: $(($(seconds "${user%.*}s") + $(seconds "${sys%.*}s"))) s"
if [[ $brc -ne 0 ]]; then
	echo "== ${background[*]} failed (exit $brc)" >&2
	exit "$brc"
fi
