#!/usr/bin/env bash
# bench/fuzz.sh — runs each fuzz target of tests/fuzz/ for a number of executions (default
# 10,000,000: libFuzzer's -runs) on a copy of its corpus, one after the other, and prints per
# target: executions, exec/s, crashes, the corpus size at the end and the wall time. Builds the
# libFuzzer programs as tests/fuzz/smoke.sh does (build-fuzz/). A benchmark: it prints figures
# (and exits 1 if a target crashed, its input kept in build-fuzz/fuzz-bench/NAME/).
#   bench/fuzz.sh [RUNS] [NAME...]
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
runs=10000000
if [[ ${1:-} =~ ^[0-9]+$ ]]; then
    runs=$1
    shift
fi
# shellcheck source=tests/fuzz/lib.sh
. "$ROOT/tests/fuzz/lib.sh"
targets=${*:-$DG_FUZZ_TARGETS}
dg_fuzz_build || { echo "bench/fuzz.sh: the build failed (see $DG_FUZZ_BUILD/fuzz-build.log)" >&2; exit 1; }

OUT=$DG_FUZZ_BUILD/fuzz-bench
mkdir -p "$OUT"
echo "dbgauge fuzz bench: $runs executions per target, $(nproc) cores, $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
printf '%-12s %12s %9s %8s %8s %9s\n' target execs exec/s crashes corpus seconds
bad=0
for t in $targets; do
    start=$SECONDS
    dg_fuzz_run "$t" "$OUT/$t" "$OUT/$t.result" -runs="$runs"
    read -r status execs rate corpus why <"$OUT/$t.result"
    crashes=0
    [[ $status == ok ]] || crashes=1 bad=1
    printf '%-12s %12s %9s %8s %8s %9s\n' "$t" "$execs" "$rate" "$crashes" "$corpus" "$((SECONDS - start))"
    [[ $status == ok ]] || echo "  $why"
done
exit $bad
