#!/usr/bin/env bash
# smoke.sh — the fuzz smoke test: builds the libFuzzer programs (clang, ASan + UBSan, in
# build-fuzz/ with meson -Dfuzz=true), runs every target of tests/fuzz/ for SECONDS on a copy
# of its corpus (the tree is never written), two at a time, and prints one
# `ok - fuzz/NAME: N execs, 0 crashes` or `not ok - fuzz/NAME: ...` line per target, then
# `N passed, N failed`. It also checks that it can fail at all: this script run again on the
# target "fault" broken on purpose (DG_FUZZ_BROKEN=fault: a read one past the end of an input
# ending in '!', harness.c) must exit 1 with a `not ok` line naming the heap-buffer-overflow
# (the `fuzz/self-check` line); the same target unbroken must pass (its own line). Exit 0 only
# if nothing failed. DG_FUZZ_OUT: where the runs go (default build-fuzz/fuzz-out).
#   tests/fuzz/smoke.sh [SECONDS] [--only NAME] [--no-self-check | --self-check-only]
# DG_FUZZ_PREBUILT=1: build-fuzz/ is built already (tests/run.sh --fuzz builds it once, then
# runs each target as a job of its own, side by side: no second ninja in the same folder).
# A crash's input stays in build-fuzz/fuzz-out/NAME/ (replay it: build-fuzz/tests/fuzz_NAME FILE).
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT" || exit 1

secs=60
only=""
self_check=1
targets=1
while [[ $# -gt 0 ]]; do
    case $1 in
    --only) only=$2; shift ;;
    --no-self-check) self_check=0 ;;
    --self-check-only) targets=0 ;;
    [0-9]*) secs=$1 ;;
    *) echo "usage: tests/fuzz/smoke.sh [SECONDS] [--only NAME] [--no-self-check | --self-check-only]" >&2; exit 2 ;;
    esac
    shift
done

JOBS=2

# shellcheck source=tests/fuzz/lib.sh
. "$ROOT/tests/fuzz/lib.sh"
[[ -n ${DG_FUZZ_PREBUILT:-} ]] || dg_fuzz_build || { echo "not ok - fuzz/build: see $DG_FUZZ_BUILD/fuzz-build.log"; echo "0 passed, 1 failed"; exit 1; }

OUT=${DG_FUZZ_OUT:-$DG_FUZZ_BUILD/fuzz-out}
mkdir -p "$OUT"
start=$SECONDS
names=()
# wait_slot: returns once fewer than JOBS runs are going.
wait_slot() {
    while (($(jobs -rp | wc -l) >= JOBS)); do
        wait -n
    done
}
# queue NAME: runs one target in the background for secs.
queue() {
    wait_slot
    dg_fuzz_run "$1" "$OUT/$1" "$OUT/$1.result" -max_total_time="$secs" >/dev/null 2>&1 &
    names+=("$1")
}

if [[ $self_check == 1 ]]; then
    # this very script, on the target fault broken on purpose, in a folder of its own
    wait_slot
    (
        DG_FUZZ_BROKEN=fault DG_FUZZ_OUT=$OUT/self-check "$ROOT/tests/fuzz/smoke.sh" $((secs < 30 ? secs : 30)) --only fault --no-self-check \
            >"$OUT/self-check.txt" 2>&1
        echo $? >"$OUT/self-check.rc"
    ) &
    names+=(self-check)
fi
for t in $DG_FUZZ_TARGETS; do
    [[ $targets == 1 ]] || break
    [[ -n $only && $t != "$only" ]] && continue
    queue "$t"
done
wait

passed=0
failed=0
for name in "${names[@]}"; do
    if [[ $name == self-check ]]; then
        # broken on purpose: the smoke test must fail, naming the overflow the switch makes
        if [[ $(cat "$OUT/self-check.rc" 2>/dev/null) == 1 ]] &&
            grep -q '^not ok - fuzz/fault: 1 crash .*heap-buffer-overflow' "$OUT/self-check.txt" &&
            grep -q '^0 passed, 1 failed$' "$OUT/self-check.txt"; then
            echo "ok - fuzz/self-check: with DG_FUZZ_BROKEN=fault the smoke test fails and reports the heap-buffer-overflow"
            passed=$((passed + 1))
        else
            echo "not ok - fuzz/self-check: the deliberately broken target did not fail the smoke test as a crash (see $OUT/self-check.txt)"
            failed=$((failed + 1))
        fi
        continue
    fi
    res=$OUT/$name.result
    # result file: STATUS EXECS EXEC_PER_S CORPUS WHY...
    read -r status execs rate corpus why <"$res" 2>/dev/null || status=none
    if [[ $status == ok ]]; then
        echo "ok - fuzz/$name: $execs execs, 0 crashes ($rate exec/s, corpus $corpus)"
        passed=$((passed + 1))
    else
        echo "not ok - fuzz/$name: 1 crash after $execs execs: $why"
        failed=$((failed + 1))
    fi
done
echo "# fuzz smoke: $((SECONDS - start)) s for ${#names[@]} runs of ${secs} s, $JOBS at a time"
echo "$passed passed, $failed failed"
[[ $failed == 0 ]]
