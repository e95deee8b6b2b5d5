#!/usr/bin/env bash
# progress.sh — what a run shows while it goes, on SQLite (no server): inside tmux (a real
# terminal) one status line redrawn in place, its ETA falling and its phase moving from
# warm-up to measure, ended before the summary; the load's status line; an experiment's step
# named; in a pipe plain lines every 10 s without a control character; --progress=none and
# --quiet. Uses tests/lib.sh. Not run under --tsan (tests/run.sh's tsan_suite leaves it out).
. "$(dirname "$0")/../lib.sh"

if ! command -v tmux >/dev/null; then
    not_ok "tmux" "tmux is not installed (scripts/deps.sh test)"
    finish
fi

DB=$T_TMP/tpcc.db
TGT=sqlite:$DB
RES=$T_TMP/results.db
SOCK=dg-progress-$$ # a tmux server of our own: no session of anyone else's is touched
tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null; [[ -n ${DG_KEEP_TMP:-} ]] || rm -rf "$T_TMP"' EXIT

# term NAME ROWS CMD: runs CMD (a shell line) in a detached 200-column terminal; its exit
# status lands in $T_TMP/NAME.rc, and the pane stays to be read.
term() {
    tm new-session -d -x 200 -y "$2" -s "$1" "$3; echo \$? >'$T_TMP/$1.rc'; sleep 600"
}
pane() { tm capture-pane -p -t "$1"; }
pane_has() { pane "$1" | grep -q -- "$2"; }
ended() { test -s "$T_TMP/$1.rc"; }
# status lines shown in a sample: the lines that carry an ETA
eta_of() { grep -oE 'ETA [0-9]+s' "$1" | tail -1 | grep -oE '[0-9]+'; }

# --- the load: its status line, rows and MB/s -----------------------------------------------
term load 20 "'$DG' tpcc load --target '$TGT' --warehouses 1 >'$T_TMP/load.out'"
wait_for 300 ended load
check "load in a terminal exits 0" test "$(cat "$T_TMP/load.rc")" = 0
pane load >"$T_TMP/load.pane"
check "load: one status line with rows, MB/s and ETA" test "$(grep -cE '^load .*ETA .*rows.* MB/s' "$T_TMP/load.pane")" = 1
check "load: no plain progress line on a terminal" test "$(grep -c '^loading:' "$T_TMP/load.pane")" = 0
check "load: its result after the status line" grep -q '^loaded 1 warehouse' "$T_TMP/load.pane"

# --- a 12 s run in a terminal: sampled while it goes ---------------------------------------
term run 50 "'$DG' tpcc run --target '$TGT' --results '$RES' --warmup 3s --duration 9s"
wait_for 20 pane_has run '^warm-up' || true
pane run >"$T_TMP/s1"
sleep 4
pane run >"$T_TMP/s2"
sleep 3
pane run >"$T_TMP/s3"
wait_for 60 ended run
pane run >"$T_TMP/end"
check "run in a terminal exits 0" test "$(cat "$T_TMP/run.rc")" = 0
for s in s1 s2 s3; do
    n=$(grep -c . "$T_TMP/$s")
    if [[ $n == 2 ]] && grep -q '^TPC-C on' "$T_TMP/$s" && grep -qE 'ETA [0-9]+s' "$T_TMP/$s"; then
        ok "sample $s: the start line and one status line, redrawn in place"
    else
        not_ok "sample $s: the start line and one status line, redrawn in place" "$n lines: $(head -c 600 "$T_TMP/$s")"
    fi
done
check "the first sample is in the warm-up" grep -qE '^warm-up [0-9]+s/12s ETA' "$T_TMP/s1"
check "a later sample measures" grep -qE '^measure [0-9]+s/12s ETA' "$T_TMP/s3"
check "the status line shows NOPM, TPM, errors, retries, outages" \
    grep -qE '\| NOPM [0-9]+ TPM [0-9]+ \| errors 0 retries 0 \| outages 0$' "$T_TMP/s3"
e1=$(eta_of "$T_TMP/s1") e2=$(eta_of "$T_TMP/s2") e3=$(eta_of "$T_TMP/s3")
if [[ -n $e1 && -n $e2 && -n $e3 ]] && ((e1 > e2 && e2 > e3 && e1 <= 12)); then
    ok "the ETA falls between samples ($e1 s, $e2 s, $e3 s)"
else
    not_ok "the ETA falls between samples" "'$e1' '$e2' '$e3'"
fi
# at the end: the status line kept (phase stop), the summary below it, not over it
line=$(grep -nE '^stop +12s/12s ETA 0s' "$T_TMP/end" | cut -d: -f1)
run=$(grep -n '^Run [0-9]* (complete)' "$T_TMP/end" | cut -d: -f1)
if [[ -n $line && -n $run ]] && ((line < run)); then
    ok "the status line is ended before the summary"
else
    not_ok "the status line is ended before the summary" "$(head -c 800 "$T_TMP/end")"
fi

# --- --progress=none in a terminal: no status line --------------------------------------------
term none 20 "'$DG' tpcc run --target '$TGT' --results '$RES' --duration 2s --progress=none >'$T_TMP/none.out'"
wait_for 60 ended none
pane none >"$T_TMP/none.pane"
check "--progress=none: exits 0" test "$(cat "$T_TMP/none.rc")" = 0
check "--progress=none: the start line, no progress line" \
    test "$(grep -c . "$T_TMP/none.pane")" = 1 -a "$(grep -c 'ETA' "$T_TMP/none.pane")" = 0

# --- an experiment names its step ---------------------------------------------------------
printf '[global]\ntarget=%s\nduration=2s,3s\n' "$TGT" >"$T_TMP/exp.ini"
term exp 20 "'$DG' experiment '$T_TMP/exp.ini' --results '$RES' >'$T_TMP/exp.out'"
check "experiment: the status line names the step" wait_for 60 pane_has exp '^step 2/2 \(measure\|stop\) '
wait_for 60 ended exp
check "experiment in a terminal exits 0" test "$(cat "$T_TMP/exp.rc")" = 0

# --- in a pipe: plain lines every 10 s, no control character -----------------------------
"$DG" tpcc run --target "$TGT" --results "$RES" --duration 11s 2>&1 </dev/null | cat >"$T_TMP/pipe.txt"
check "in a pipe: the plain line at 10 s" grep -qE '^\[ +[0-9]+s\] measure  NOPM +[0-9]+  TPM +[0-9]+  retries 0  errors 0$' "$T_TMP/pipe.txt"
check "in a pipe: one plain line in 11 s" test "$(grep -cE '^\[ +[0-9]+s\]' "$T_TMP/pipe.txt")" = 1
if LC_ALL=C grep -q $'[\r\033]' "$T_TMP/pipe.txt"; then
    not_ok "in a pipe: no carriage return, no escape" "$(cat -v "$T_TMP/pipe.txt" | head -c 400)"
else
    ok "in a pipe: no carriage return, no escape"
fi
check "in a pipe: no status line" test "$(grep -c 'ETA' "$T_TMP/pipe.txt")" = 0

# --- --quiet: no banner, no progress, the result still ------------------------------------
"$DG" tpcc run --target "$TGT" --results "$RES" --duration 2s --quiet >"$T_TMP/quiet.out" 2>"$T_TMP/quiet.err" </dev/null
check "--quiet: exits 0" test $? = 0
check "--quiet: no banner and nothing else on stderr" test ! -s "$T_TMP/quiet.err"
check "--quiet: the result still" grep -q 'result   NOPM' "$T_TMP/quiet.out"
"$DG" tpcc load --target "sqlite:$T_TMP/q.db" --warehouses 1 --quiet 2>"$T_TMP/qload.err" </dev/null
check "load --quiet: only its result line" test "$(grep -c . "$T_TMP/qload.err")" = 1 -a \
    "$(grep -c '^loaded 1 warehouse' "$T_TMP/qload.err")" = 1
"$DG" tpcc run --target "$TGT" --progress=sometimes >/dev/null 2>"$T_TMP/bad.err" </dev/null
check "--progress takes auto, line or none" test $? = 2

finish
