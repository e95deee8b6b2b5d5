#!/usr/bin/env bash
# run.sh — the one test command: builds dbgauge in each flavor asked for and runs the suites
# of those flavors side by side on N lanes (tests/lanes.sh: each lane starts its own
# PostgreSQL and MariaDB when its first suite needs them, on ports of its own), then prints
# every suite's checks, a table of the wall times and `N passed, N failed`. Exit 0 only if
# nothing failed; exit 2 for a bad option or an --only that selects nothing.
#   tests/run.sh [FLAVOR...] [--jobs N] [--wait-lanes N] [--only PATTERN]... [--no-pg] [--no-my]
#                [--repeat N] [--budget SECONDS] [--list] [--builds-only]
# Flavors (several share one pool of lanes; none given: --release):
#   --release   every suite on the release build (build/)
#   --quick     the release build's unit tests, conformance suites and e2e/cli
#   --smoke     the release build's e2e/cli and the runner's own test: beside --sanitize, which
#               runs every other suite, the build users run is still started and checked
#   --sanitize  every suite on the AddressSanitizer + UBSan build (build-asan/)
#   --tsan      ThreadSanitizer (build-tsan/): the unit tests and SQLite suites that start threads
#   --fuzz[=S]  every libFuzzer target for S seconds (default 60) and the smoke test's self-check
#   --can-fail  every e2e suite against a dbgauge that does nothing: each must fail (tests/can-fail.sh)
# --builds-only: the flavors' builds and nothing else, needing only the build packages (.ci/run
# builds while the servers' packages install; the pool's build jobs then find them done).
# --only PATTERN (repeatable): suites whose name (FLAVOR:SUITE, e.g. asan:e2e/crash) contains
# PATTERN. --repeat N: each selected suite N times (tests/soak.sh). --jobs N: lanes (default:
# the number of cores). --wait-lanes N: lanes beside those that take the suites that
# mostly wait, then the background ones at nice 10 (tests/lanes.sh; default 1, 0 for none). --budget S: the time table says how the wall time compares with S.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 2
OUT=${DG_TEST_OUT:-$ROOT/tests/out} # where logs and the pool go (e2e/runner runs this in its own)

usage() {
    echo "usage: tests/run.sh [--release|--quick|--smoke|--sanitize|--tsan|--fuzz[=SECONDS]|--can-fail]... [--jobs N] [--wait-lanes N] [--only PATTERN]..." >&2
    echo "                    [--no-pg] [--no-my] [--repeat N] [--budget SECONDS] [--list] [--builds-only]" >&2
    exit 2
}
# bad_option OPTION VALUE WANT: exit 2 naming what was wrong
bad_option() { echo "tests/run.sh: $1 '$2': want $3" >&2; exit 2; }

flavors=()
only=()
jobs=$(nproc 2>/dev/null || echo 2)
wait_lanes=1
repeat=1
budget=""
list_only=0
builds_only=0
fuzz_secs=60
use_pg=1
use_my=1
while [[ $# -gt 0 ]]; do
    case $1 in
    --release) flavors+=(release) ;;
    --quick) flavors+=(quick) ;;
    --smoke) flavors+=(smoke) ;;
    --sanitize) flavors+=(asan) ;;
    --tsan) flavors+=(tsan) ;;
    --fuzz) flavors+=(fuzz) ;;
    --can-fail) flavors+=(can-fail) ;;
    --fuzz=*) fuzz_secs=${1#--fuzz=}; flavors+=(fuzz)
        [[ $fuzz_secs =~ ^[1-9][0-9]*$ ]] || bad_option --fuzz "$fuzz_secs" "seconds, a whole number above 0" ;;
    --jobs) jobs=${2:-}; shift
        [[ $jobs =~ ^[1-9][0-9]?$ ]] || bad_option --jobs "$jobs" "a number of lanes from 1 to 12" ;;
    --wait-lanes) wait_lanes=${2:-}; shift
        [[ $wait_lanes =~ ^[0-4]$ ]] || bad_option --wait-lanes "$wait_lanes" "a number of waiting lanes from 0 to 4" ;;
    --only) [[ -n ${2:-} ]] || bad_option --only "" "a pattern"; only+=("$2"); shift ;;
    --repeat) repeat=${2:-}; shift
        [[ $repeat =~ ^[1-9][0-9]*$ ]] || bad_option --repeat "$repeat" "a count above 0" ;;
    --budget) budget=${2:-}; shift
        [[ $budget =~ ^[1-9][0-9]*$ ]] || bad_option --budget "$budget" "seconds" ;;
    --no-pg) use_pg=0 ;;
    --no-my) use_my=0 ;;
    --list) list_only=1 ;;
    --builds-only) builds_only=1 ;;
    *) usage ;;
    esac
    shift
done
((jobs <= 12)) || bad_option --jobs "$jobs" "a number of lanes from 1 to 12"
[[ ${#flavors[@]} == 0 ]] && flavors=(release)
for f in quick smoke; do
    if [[ " ${flavors[*]} " == *" $f "* && " ${flavors[*]} " == *" release "* ]]; then
        echo "tests/run.sh: --$f is part of --release: give one of them" >&2
        exit 2
    fi
done

# shellcheck source=tests/suites.sh
. "$ROOT/tests/suites.sh"
# shellcheck source=tests/lanes.sh
. "$ROOT/tests/lanes.sh"

# ---- the jobs: FLAVOR:SUITE, selected, ordered longest first --------------------------------

# only_matches PATTERN JOB: a pattern that names a suite exactly (e2e/mpi, asan:e2e/mpi) takes
# that suite alone (not e2e/mpi_hosts); any other pattern takes every job it is a part of
all_suites=" $(for f in release quick smoke asan tsan fuzz can-fail; do suites_of "$f" | sed "s/^/$f:/"; suites_of "$f"; done | tr '\n' ' ') "
only_matches() {
    if [[ $all_suites == *" $1 "* ]]; then
        [[ $2 == "$1" || $2 == *":$1" ]]
    else
        [[ $2 == *"$1"* ]]
    fi
}

# one folder per run (two runs in one checkout keep apart); tests/out/pool names the latest
for d in "$OUT"/pool.*; do
    [[ -d $d ]] && ! kill -0 "${d##*.}" 2>/dev/null && rm -rf "$d"
done
POOL=$OUT/pool.$$
selected=()
skipped=()
for flavor in "${flavors[@]}"; do
    for suite in $(suites_of "$flavor"); do
        job=$flavor:$suite
        if [[ ${#only[@]} -gt 0 ]]; then
            hit=0
            for p in "${only[@]}"; do only_matches "$p" "$job" && hit=1; done
            ((hit)) || continue
        fi
        if why=$(suite_turned_off "$suite"); then
            skipped+=("# $job: not run ($why)")
            continue
        fi
        selected+=("$job")
    done
done
if [[ ${#selected[@]} == 0 ]]; then
    if [[ ${#only[@]} -gt 0 ]]; then
        echo "tests/run.sh: --only ${only[*]}: no suite of ${flavors[*]} matches (--list with the same flavors lists them all)" >&2
    else
        echo "tests/run.sh: no suite to run (${skipped[*]})" >&2
    fi
    exit 2
fi
if [[ $list_only == 1 ]]; then
    printf '%s\n' "${selected[@]}"
    exit 0
fi

if ((builds_only)); then
    scripts/deps.sh fuzz || exit 1
    selected=()
else
    scripts/deps.sh test || exit 1
fi
# The suites call python3 hundreds of times: Debian's, whose packages deps.sh installs
# (python3-prometheus-client), not whatever a version manager put first on PATH (a pyenv shim
# is a shell script: 2.0 s a call measured on a busy machine, against 0.2 s for Debian's)
if [[ -x /usr/bin/python3 ]]; then
    mkdir -p "$OUT/bin"
    ln -sfn /usr/bin/python3 "$OUT/bin/python3"
    export PATH=$OUT/bin:$PATH
fi
[[ $use_pg == 0 ]] && export DG_NO_PG=1
[[ $use_my == 0 ]] && export DG_NO_MY=1
mkdir -p "$POOL"
ln -sfn "pool.$$" "$OUT/pool"
# the data the suites that only run on it share (tests/lib.sh sqlite_fixture), made by the
# release build once the pool has built it (built.release), else by the suite's own
export DG_FIXTURES=$POOL/fixtures DG_FIXTURE_MAKER=$(build_dir release)/dbgauge
mkdir -p "$DG_FIXTURES"
# builds first (each a job of its own, so a lane can start on what is built while another
# build goes on), then the suites longest first, by the times tests/suite-times.tsv keeps
{
    for b in $(builds_of "${flavors[@]}"); do echo "build:$b"; done
    for job in "${selected[@]}"; do
        for ((i = 1; i <= repeat; i++)); do
            if ((repeat > 1)); then echo "$job#$i"; else echo "$job"; fi
        done
    done | by_expected_secs
} >"$POOL/queue"
for s in "${skipped[@]}"; do echo "$s"; done
echo "# $(grep -c . "$POOL/queue") jobs on $jobs lane(s) and $wait_lanes waiting lane(s): ${flavors[*]}"

start=$SECONDS
lanes_run "$jobs" "$wait_lanes"
wall=$((SECONDS - start))
lanes_report "$wall" "$budget"
