#!/usr/bin/env bash
# bench/faults.sh — what living through faults costs (issue 14), as figures and ratios:
#  (a) the audit's record of acknowledged writes: instructions per transaction with and
#      without it (callgrind on SQLite, deterministic), and client CPU per transaction with
#      and without it on PostgreSQL (alternating runs, medians);
#  (b) recovery: PostgreSQL stopped hard and started again under 1 and 4 users; the outage
#      dbgauge measures against the server's own time away (the crash to "ready to accept
#      connections" in its log), so what dbgauge's back-off adds is plain.
# A benchmark: it prints figures and asserts nothing. Never run it beside tests.
# Usage: bench/faults.sh   (BENCH_SECS=10 BENCH_ROUNDS=3 TXNS=3000 to change the sizes)
set -uo pipefail
. "$(dirname "$0")/lib.sh"
SECS=${BENCH_SECS:-10}
ROUNDS=${BENCH_ROUNDS:-3}
TXNS=${TXNS:-3000}

bench_server pg
export PGPASSWORD=$DG_PG_PASSWORD
echo "dbgauge bench: faults, $(nproc) cores, $("$DG" --version 2>/dev/null) at $(git -C "$ROOT" rev-parse --short HEAD)"

# ---- (a) the audit log's cost ------------------------------------------------------------
echo
echo "== (a) the record of acknowledged writes: on (default) against off (--no-audit-log)"
if command -v valgrind >/dev/null; then
    db=$TMP/run.db
    "$DG" tpcc load --target "sqlite:$db" --warehouses 1 --seed 1 >/dev/null 2>&1
    declare -A IR
    for mode in on off; do
        cp "$db" "$TMP/ab.db"
        extra=()
        [[ $mode == off ]] && extra=(--no-audit-log)
        valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.$mode" --toggle-collect=dg_worker_main \
            "$DG" tpcc run --target "sqlite:$TMP/ab.db" --vus 1 --txns-per-vu "$TXNS" --seed 1 \
            --results "$RES" --no-monitor "${extra[@]}" >/dev/null 2>"$TMP/vg.$mode"
        IR[$mode]=$(callgrind_annotate "$TMP/cg.$mode" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1; exit}')
    done
    awk -v on="${IR[on]}" -v off="${IR[off]}" -v n="$TXNS" 'BEGIN {
        printf "  SQLite, 1 user, %d transactions: %.0f Ir/txn with the log, %.0f without: +%.0f Ir/txn, %.3f%% of a transaction\n",
            n, on / n, off / n, (on - off) / n, 100 * (on - off) / off }'
else
    echo "  (valgrind not installed: the SQLite instruction count is left out)"
fi
"$DG" tpcc load --target "$DG_PG_URL" --warehouses 4 --drop >/dev/null 2>&1
cpu_of() { python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); n=sum(v["count"] for v in d["transactions"].values())
print("%.5f" % (1000*d["client_cpu_seconds"]/max(n,1)))' "$1"; }
on=() off=()
for r in $(seq 1 "$ROUNDS"); do
    for mode in on off; do
        extra=()
        [[ $mode == off ]] && extra=(--no-audit-log)
        "$DG" tpcc run --target "$DG_PG_URL" --vus 4 --duration "${SECS}s" --results "$RES" --json \
            --no-monitor "${extra[@]}" >"$TMP/pg.$mode.json" 2>/dev/null || continue
        v=$(cpu_of "$TMP/pg.$mode.json")
        [[ $mode == on ]] && on+=("$v") || off+=("$v")
    done
done
m_on=$(printf '%s\n' "${on[@]}" | median)
m_off=$(printf '%s\n' "${off[@]}" | median)
awk -v a="$m_on" -v b="$m_off" -v r="$ROUNDS" -v s="$SECS" 'BEGIN {
    printf "  PostgreSQL, 4 users, %d rounds of %d s: client CPU %.4f ms/txn with the log, %.4f without: ratio %.3f\n",
        r, s, a, b, (b > 0 ? a / b : 0) }'
echo "  (each round: ${on[*]} with; ${off[*]} without)"

# ---- (b) recovery after a hard stop --------------------------------------------------------
echo
echo "== (b) PostgreSQL stopped hard 3 s into a ${SECS} s window and started 2 s later, $ROUNDS rounds per user count:"
echo "   the outage dbgauge measures against the server's own time away (crash to 'ready to accept connections')"
printf '  %5s %14s %14s %12s %10s %12s\n' users "server away s" "outage s" "added s" reconnects "recovery s"
for n in 1 4; do
    for r in $(seq 1 "$ROUNDS"); do
        stamp=$TMP/crash.$n.$r
        log=$DG_PG_DIR/postgres.log  # pg_revive starts the server with -l this file
        : >"$log" # append mode: the server goes on writing at the start
        "$DG" tpcc run --target "$DG_PG_URL" --vus "$n" --duration "${SECS}s" --results "$RES" --json --no-monitor \
            --fault "3s:date +%s.%N >$stamp && $ROOT/tests/servers.sh crash pg && sleep 2 && $ROOT/tests/servers.sh revive pg" \
            >"$TMP/rec.json" 2>"$TMP/rec.err" || { echo "  $n users: run failed: $(tail -n 1 "$TMP/rec.err")"; continue; }
        ready=$(grep -m1 "ready to accept connections" "$log" | awk '{print $1 " " $2}')
        python3 - "$TMP/rec.json" "$(cat "$stamp")" "$ready" "$n" <<'EOF'
import json, sys, datetime
d = json.load(open(sys.argv[1]))
crash = float(sys.argv[2])
ready = datetime.datetime.strptime(sys.argv[3], "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=datetime.timezone.utc).timestamp()
f, o = d["faults"][0], d["outages"][0]
away = ready - crash                              # the server's own time away
# in the window's clock: the fault began at f.start_s (= crash), the outage ended at start + duration
end = o["start_s"] + o["duration_s"]
added = end - (f["start_s"] + away)
rec = "%.3f" % o["recovery_s"] if o["recovery_s"] is not None else "not in run"
print("  %5s %14.3f %14.3f %12.3f %10d %12s" % (sys.argv[4], away, o["duration_s"], added, o["reconnects"], rec))
EOF
    done
done
echo "  (added: from the server ready to accept connections to the first new connection of a user)"
