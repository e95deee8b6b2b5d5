#!/usr/bin/env bash
# soak.sh — finds flaky checks: runs the named suites (default: every timing-sensitive one) N
# times through tests/run.sh's pool, optionally beside a CPU hog on every core at the lowest
# priority (stress-ng under nice -n 19: the noise of a shared machine, not starvation), then
# prints each check that failed in any run with how often. Exit 0 only if nothing failed. The
# pool has no waiting lane here (--wait-lanes 0): the runs of every suite share the --jobs lanes.
#   tests/soak.sh [--times N] [--hog] [--release] [--jobs N] [SUITE...]
# SUITE: e2e/crash, crash, unit/test_outage, ... (default: crash faults failover mpi
# mpi_hosts galera live loadmodels progress). The sanitizer build unless --release: CI runs
# the timing-sensitive suites there.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 2

times=5
hog=0
flavor=--sanitize
jobs=()
suites=()
while [[ $# -gt 0 ]]; do
    case $1 in
    --times) times=${2:-}; shift
        [[ $times =~ ^[1-9][0-9]*$ ]] || { echo "tests/soak.sh: --times '$times': want a count above 0" >&2; exit 2; } ;;
    --hog) hog=1 ;;
    --release) flavor=--release ;;
    --jobs) jobs=(--jobs "${2:-}"); shift ;;
    -*) echo "usage: tests/soak.sh [--times N] [--hog] [--release] [--jobs N] [SUITE...]" >&2; exit 2 ;;
    *) [[ $1 == */* ]] && suites+=("$1") || suites+=("e2e/$1") ;;
    esac
    shift
done
[[ ${#suites[@]} == 0 ]] && suites=(e2e/crash e2e/faults e2e/failover e2e/mpi e2e/mpi_hosts e2e/galera e2e/live e2e/loadmodels e2e/progress)
only=()
for s in "${suites[@]}"; do only+=(--only "$s"); done

hog_pid=""
if [[ $hog == 1 ]]; then
    command -v stress-ng >/dev/null || { echo "tests/soak.sh: --hog needs stress-ng (scripts/deps.sh bench installs it)" >&2; exit 2; }
    # one CPU worker per core, each at nice 19; stopped with this script
    nice -n 19 stress-ng --cpu "$(nproc)" --cpu-method matrixprod --quiet &
    hog_pid=$!
    trap '[[ -n $hog_pid ]] && kill "$hog_pid" 2>/dev/null; wait 2>/dev/null' EXIT
    echo "# soak: a CPU hog on $(nproc) core(s) at nice 19 (stress-ng pid $hog_pid)"
fi

echo "# soak: ${suites[*]}, $times time(s) each, $flavor${hog:+$([[ $hog == 1 ]] && echo ', beside the hog')}"
log=$ROOT/tests/out/soak.log
mkdir -p "$ROOT/tests/out"
tests/run.sh "$flavor" "${jobs[@]}" --wait-lanes 0 --repeat "$times" "${only[@]}" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}

# each check that failed, with the runs it failed in (a suite's runs are NAME#1 .. NAME#N)
echo "# soak summary: per suite, runs with a failure; then each failing check and how often"
awk -v n="$times" '
    /^# --- / { job = $3; suite = job; sub(/#[0-9]+$/, "", suite); runs[suite]++ }
    /^  not ok - / { line = substr($0, 12, 90); key = suite " | " line
        if (!((key, job) in seen)) { seen[key, job] = 1; fails[key]++ }
        if (!((suite, job) in bad)) { bad[suite, job] = 1; badruns[suite]++ } }
    END {
        for (s in runs) printf "#   %-28s %d of %d runs failed\n", s, badruns[s] + 0, runs[s]
        for (k in fails) printf "#   %d/%d  %s\n", fails[k], n, k
    }' "$log" | sort
exit "$rc"
