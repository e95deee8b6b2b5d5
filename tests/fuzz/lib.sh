# shellcheck shell=bash
# lib.sh — what tests/fuzz/smoke.sh and bench/fuzz.sh share (sourced, never run): building the
# libFuzzer programs and running one target on a copy of its corpus, its figures written to a
# result file. Expects ROOT (the checkout).
#   dg_fuzz_build                      builds $DG_FUZZ_BUILD (default ROOT/build-fuzz)
#   dg_fuzz_run NAME WORKDIR RESULT [LIBFUZZER-ARGS...]
# RESULT gets one line: "ok|crash EXECS EXEC_PER_S CORPUS_FILES WHY..." (WHY: what crashed and
# the input kept). A target's corpus is tests/fuzz/corpus/NAME; its dictionary, when there is
# one, tests/fuzz/NAME.dict.

DG_FUZZ_BUILD=${DG_FUZZ_BUILD:-$ROOT/build-fuzz}
DG_FUZZ_TARGETS="url options jobfile report_spec fault resultsdb sql"

dg_fuzz_build() {
    local log=$DG_FUZZ_BUILD/fuzz-build.log
    "$ROOT/scripts/deps.sh" fuzz || return 1
    mkdir -p "$DG_FUZZ_BUILD"
    if [[ ! -f $DG_FUZZ_BUILD/build.ninja ]]; then
        # its own build: clang, every object with libFuzzer's coverage hooks, ASan + UBSan
        CC=clang meson setup "$DG_FUZZ_BUILD" -Dwerror=true -Dfuzz=true -Db_sanitize=address,undefined \
            -Db_lundef=false -Dbuildtype=debugoptimized >"$log" 2>&1 || { cat "$log"; return 1; }
    fi
    local t want=()
    for t in $DG_FUZZ_TARGETS; do
        want+=("tests/fuzz_$t")
    done
    ninja -C "$DG_FUZZ_BUILD" "${want[@]}" >>"$log" 2>&1 || { tail -n 40 "$log"; return 1; }
}

dg_fuzz_run() {
    local name=$1 work=$2 result=$3
    shift 3
    local bin=$DG_FUZZ_BUILD/tests/fuzz_$name
    # a new run starts from the tree's corpus; inputs kept by earlier runs move aside
    rm -rf "$work/corpus" "$work/log"
    mkdir -p "$work/corpus" "$work/earlier"
    find "$work" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \
        -o -name 'slow-unit-*' \) -exec mv -t "$work/earlier/" {} +
    cp "$ROOT/tests/fuzz/corpus/$name"/* "$work/corpus/"
    local dict=()
    [[ -f $ROOT/tests/fuzz/$name.dict ]] && dict=(-dict="$ROOT/tests/fuzz/$name.dict")
    ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:symbolize=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        "$bin" -print_final_stats=1 -artifact_prefix="$work/" -timeout=25 -rss_limit_mb=2048 \
        "${dict[@]}" "$@" "$work/corpus" >"$work/log" 2>&1
    local rc=$?
    local execs rate files why artifact
    execs=$(awk '/^stat::number_of_executed_units:/ {n = $2} END {print n}' "$work/log")
    # a crash ends the run before the final stats: the last status line says how far it got
    [[ -z $execs ]] && execs=$(grep -oE '^#[0-9]+' "$work/log" | tail -n 1 | tr -d '#')
    rate=$(awk '/^stat::average_exec_per_sec:/ {n = $2} END {print n}' "$work/log")
    files=$(find "$work/corpus" -type f | wc -l)
    artifact=$(find "$work" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
        -o -name 'oom-*' -o -name 'slow-unit-*' \) | head -n 1)
    # A slow unit (over 10 s, libFuzzer's -report_slow_units) in a run that otherwise ended
    # well is replayed once: slow again, it fails the run (a parser that blows up); fast, the
    # machine stalled (seen once in CI: 50 s for an input that replays in 0.05 s), and the
    # input moves aside with a line in the log saying so.
    if [[ $rc == 0 && $artifact == */slow-unit-* ]]; then
        local t0=$SECONDS
        if timeout 10 "$bin" "$artifact" >"$work/replay.log" 2>&1; then
            echo "dg-fuzz: slow unit $(basename "$artifact") replayed in $((SECONDS - t0)) s: a stall, not the input" >>"$work/log"
            mv "$artifact" "$work/earlier/"
            artifact=""
        fi
    fi
    if [[ $rc == 0 && -z $artifact ]]; then
        echo "ok ${execs:-0} ${rate:-0} $files" >"$result"
        return 0
    fi
    why=$(grep -a -m1 -E 'dg-fuzz: FAILED|^SUMMARY:|ERROR: libFuzzer|ERROR: AddressSanitizer|runtime error' "$work/log" |
        sed -E 's/^==[0-9]+==//; s/ on address 0x[0-9a-f]+ at pc .*//' | cut -c1-300)
    echo "crash ${execs:-0} ${rate:-0} $files ${why:-exit status $rc} (input: ${artifact:-none}; log: $work/log)" >"$result"
    return 1
}
