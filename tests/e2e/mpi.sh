#!/usr/bin/env bash
# mpi.sh — one run driven from several client processes (`mpirun -n N dbgauge ...`) on this
# machine, SQLite: the work split exactly (3 ranks x 6 VUs x 100 = 600 transactions, NOPM from
# the database's own SUM(d_next_o_id)), one stored run with a row per rank, one JSON document on
# stdout, the ranks' windows within 1 ms in every run; `tpcc load` over ranks; a rank killed mid-run (with
# and without --enable-recovery): the run stored failed, the dead rank named, the others'
# figures kept; bad input on one rank only: every rank exits 2 before the window with that
# rank's message; Ctrl-C on rank 0: every rank stops, what was measured kept; stress and an
# experiment under mpirun. Each rank's own exit status is read through a small wrapper (mpirun's
# own status is Open MPI's, see docs/mpi-hosts.md). The PostgreSQL runs over namespace "hosts"
# are tests/e2e/mpi_hosts.sh.
. "$(dirname "$0")/../lib.sh"

command -v mpirun >/dev/null || { not_ok "mpirun installed" "no mpirun (openmpi-bin)"; finish; exit 1; }
"$DG" --version | grep -q 'mpi: Open MPI' ||
    { not_ok "dbgauge built with Open MPI" "$("$DG" --version)"; finish; exit 1; }

mpi_env # only the loopback: never the machine's other interfaces
DB=$T_TMP/tpcc.db
RES=$T_TMP/results.db
mpi_pid=""
LEAKS=""
trap '[[ -n $mpi_pid ]] && kill -KILL "$mpi_pid" 2>/dev/null; [[ -n ${DG_KEEP_TMP:-} ]] || rm -rf "$T_TMP"' EXIT

# Each rank runs through this wrapper: its dbgauge's pid lands in pid.RANK (written by the
# shell that then becomes dbgauge: no search of the process table), its exit status in rc.RANK.
WRAP=$T_TMP/rank.sh
cat >"$WRAP" <<'SH'
#!/bin/sh
# mpirun SIGTERMs every rank when one dies: dbgauge's own handler stores what it measured; the
# wrapper waits for it (a trap that runs a command leaves the child the default disposition).
trap ':' TERM
sh -c 'echo $$ >"$DG_RC_DIR/pid.$OMPI_COMM_WORLD_RANK"; exec "$@"' rank "$@"
rc=$?
echo "$rc" >"$DG_RC_DIR/rc.$OMPI_COMM_WORLD_RANK"
exit "$rc"
SH
chmod +x "$WRAP"

# mpi NAME N ARGS...: mpirun -n N dbgauge ARGS (stdout NAME.out, stderr NAME.err); the ranks'
# exit statuses in $T_TMP/NAME.rc/rc.K; sets RC (mpirun's). LEAKS=with_mpi_leaks before it:
# leaks checked in the sanitizer build.
mpi() {
    local name=$1 n=$2
    shift 2
    rm -rf "$T_TMP/$name.rc"
    mkdir -p "$T_TMP/$name.rc"
    DG_RC_DIR=$T_TMP/$name.rc $LEAKS timeout 300 mpirun -x DG_RC_DIR --oversubscribe -n "$n" "$WRAP" "$DG" "$@" \
        >"$T_TMP/$name.out" 2>"$T_TMP/$name.err" </dev/null
    RC=$? T_DG_ERR=$T_TMP/$name.err
}
# rank_rcs NAME: the ranks' exit statuses, "0 0 0"
rank_rcs() { for f in "$T_TMP/$1.rc"/rc.*; do cat "$f"; done | tr '\n' ' ' | sed 's/ $//'; }
sum_dnext() { sqlite3 "$DB" 'SELECT SUM(d_next_o_id) FROM district'; }
nruns() { sqlite3 "$RES" 'SELECT COUNT(*) FROM run' 2>/dev/null || echo 0; }

check "a 2-warehouse database, seed 7 (sqlite_tpcc)" sqlite_tpcc "$DB" 2 7

# --- 3 ranks, 6 VUs, 100 transactions each ---------------------------------------------------
d0=$(sum_dnext)
LEAKS=with_mpi_leaks mpi exact 3 tpcc run --target "sqlite:$DB" --vus 6 --txns-per-vu 100 --results "$RES" --json --seed 11
check_exit "3 ranks: mpirun exits 0" 0
check "3 ranks: every rank exits 0" test "$(rank_rcs exact)" = "0 0 0"
[[ $RC == 0 ]] || sed 's/^/# /' "$T_TMP/exact.err" | tail -n 15
d1=$(sum_dnext)
python3 - "$T_TMP/exact.out" "$((d1 - d0))" "$RES" <<'PY' | relay
import json, sqlite3, sys
text = open(sys.argv[1]).read()
try:
    d = json.loads(text)          # the whole of stdout: one document, nothing else
    print("ok - 3 ranks: stdout is one JSON document")
except ValueError as e:
    print(f"not ok - 3 ranks: stdout is one JSON document ({e}; {len(text)} bytes)"); sys.exit()
tx = d["transactions"]
total = sum(t["count"] for t in tx.values())
print(("ok" if total == 600 else "not ok") + f" - 3 ranks: exactly 600 transactions ({total})")
no = tx["new_order"]["committed"]
print(("ok" if no == int(sys.argv[2]) else "not ok") +
      f" - 3 ranks: New-Orders committed {no} == SUM(d_next_o_id) change {sys.argv[2]}")
nopm = d["nopm"]; want = no * 60 / d["measured_seconds"]
print(("ok" if abs(nopm - want) < 1e-6 * max(1, want) else "not ok") + f" - 3 ranks: NOPM {nopm:.3f} from it")
ranks = d.get("ranks", [])
print(("ok" if [r["rank"] for r in ranks] == [0, 1, 2] else "not ok") + f" - 3 ranks: a JSON row per rank ({len(ranks)})")
print(("ok" if [r.get("vus") for r in ranks] == [2, 2, 2] else "not ok") + " - 3 ranks: 2 VUs each")
c = sum(r["committed"] for r in ranks); want_c = sum(t["committed"] for t in tx.values())
print(("ok" if c == want_c else "not ok") + f" - 3 ranks: the ranks' committed sum to the run's ({c} == {want_c})")
print(("ok" if all(r["state"] == "ok" for r in ranks) else "not ok") + " - 3 ranks: every rank ok")
db = sqlite3.connect(sys.argv[3])
runs = db.execute("SELECT COUNT(*) FROM run").fetchone()[0]
print(("ok" if runs == 1 else "not ok") + f" - 3 ranks: one stored run ({runs})")
rows = db.execute("SELECT rank, committed, start_offset_ms FROM run_rank WHERE run_id = ? ORDER BY rank",
                  (d["run_id"],)).fetchall()
print(("ok" if [r[0] for r in rows] == [0, 1, 2] and sum(r[1] for r in rows) == want_c else "not ok")
      + f" - 3 ranks: 3 run_rank rows holding the committed counts ({rows})")
# each host sampled by its own rank: rank 0's in run_monitor, the others' in run_rank_monitor
mon = dict(db.execute("SELECT rank, COUNT(*) FROM run_rank_monitor WHERE run_id = ? AND cpu_user_pct IS NOT NULL "
                      "GROUP BY rank", (d["run_id"],)).fetchall())
own = db.execute("SELECT COUNT(*) FROM run_monitor WHERE run_id = ?", (d["run_id"],)).fetchone()[0]
secs = int(d["measured_seconds"]) + 2
print(("ok" if set(mon) == {1, 2} and all(1 <= v <= secs for v in mon.values()) and own >= 1 else "not ok")
      + f" - 3 ranks: each host's seconds sampled by its rank (rank 0: {own} in run_monitor; others: {mon})")
hm = [r.get("host_monitor", {}).get("samples", 0) for r in ranks]
print(("ok" if all(x >= 1 for x in hm) else "not ok") + f" - 3 ranks: the JSON's host_monitor per rank ({hm} samples)")
PY

# --- window alignment: each rank's recorded start (when it really began, in rank 0's clock)
# within 1 ms of rank 0's, in each of three runs. Ranks on one host read one clock: its offset
# is 0 exactly, not a measurement that a busy host's round trips make err by milliseconds.
for k in 1 2 3; do
    if [[ $k == 1 ]]; then f=$T_TMP/exact.out; else
        mpi align$k 3 tpcc run --target "sqlite:$DB" --vus 6 --txns-per-vu 20 --results "$RES" --json --no-monitor
        f=$T_TMP/align$k.out
    fi
    python3 - "$f" "$k" <<'PY' | relay
import json, sys
try:
    r = json.load(open(sys.argv[1]))["ranks"]
except (ValueError, KeyError) as e:
    print(f"not ok - window alignment, run {sys.argv[2]}: no ranks in its JSON ({e})"); sys.exit()
starts = [x["start_offset_ms"] for x in r]
clocks = [x["clock_offset_ms"] for x in r]
print(("ok" if len(r) == 3 and all(c == 0 for c in clocks) else "not ok")
      + f" - window alignment, run {sys.argv[2]}: ranks on this host read rank 0's clock, offset 0 ({clocks})")
print(("ok" if len(r) == 3 and max(abs(x) for x in starts) < 1.0 else "not ok")
      + f" - window alignment, run {sys.argv[2]}: every rank began within 1 ms of rank 0 (ms: {starts})")
PY
done

# --- tpcc load over ranks: disjoint warehouses, one database --------------------------------
mpi load 3 tpcc load --target "sqlite:$T_TMP/load3.db" --warehouses 3 --seed 5
check "load over 3 ranks: every rank exits 0" test "$RC,$(rank_rcs load)" = "0,0 0 0"
check "load over 3 ranks: 3 warehouses, 300,000 stock rows" \
    test "$(sqlite3 "$T_TMP/load3.db" 'SELECT COUNT(*) FROM warehouse; SELECT COUNT(*) FROM stock' | tr '\n' ,)" = "3,300000,"
expect_exit "load over 3 ranks: tpcc check passes" 0 tpcc check --target "sqlite:$T_TMP/load3.db"

# signal_rank NAME MPIRUN-OPTION DURATION RANK SIGNAL: 3 ranks, 6 VUs for DURATION; about 3 s
# into the window RANK gets SIGNAL. Sets RC (mpirun's) and WAITED (seconds from the signal).
signal_rank() {
    local name=$1 opt=$2 pid t0
    mkdir -p "$T_TMP/$name.rc"
    # shellcheck disable=SC2086
    DG_RC_DIR=$T_TMP/$name.rc timeout 120 mpirun $opt -x DG_RC_DIR --oversubscribe -n 3 "$WRAP" "$DG" tpcc run \
        --target "sqlite:$DB" --vus 6 --duration "$3" --results "$RES" --json --no-monitor \
        >"$T_TMP/$name.out" 2>"$T_TMP/$name.err" </dev/null &
    mpi_pid=$!
    wait_for 30 grep -q "6 virtual users" "$T_TMP/$name.err"
    sleep 3
    # the rank's pid as its wrapper wrote it (written before the start line, so there by now)
    pid=$(cat "$T_TMP/$name.rc/pid.$4" 2>/dev/null)
    if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then kill -"$5" "$pid"; else
        not_ok "$name: rank $4 running" "pid '${pid}' (pid.$4): not running; mpirun: $(tail -c 300 "$T_TMP/$name.err")"
    fi
    t0=$SECONDS
    wait "$mpi_pid"
    RC=$? T_DG_ERR=$T_TMP/$name.err
    WAITED=$((SECONDS - t0))
    mpi_pid=""
}

# --- a rank killed in the window -------------------------------------------------------------
# kill_run NAME MPIRUN-OPTION: rank 2 killed about 3 s into a 10 s window
kill_run() {
    local name=$1 opt=$2 before
    before=$(nruns)
    signal_rank "$name" "$opt" 10s 2 KILL
    check "$name: mpirun returns (status $RC)" test "$RC" != 124
    # Without --enable-recovery Open MPI kills the job as soon as a rank leaves with a failure:
    # rank 0's own status may be cut short (after it stored and printed); with it, it is 1.
    if [[ -n $opt ]]; then
        check "$name: rank 0's dbgauge exits 1" test "$(cat "$T_TMP/$name.rc/rc.0" 2>/dev/null)" = 1
    else
        check "$name: mpirun exits non-zero ($RC)" test "$RC" != 0
    fi
    check "$name: one more run stored" test "$(nruns)" = $((before + 1))
    check "$name: no rank left running" wait_for 10 bash -c "! pgrep -f '^$DG .*$T_TMP' >/dev/null"
    python3 - "$T_TMP/$name.out" "$RES" "$name" <<'PY' | relay
import json, sqlite3, sys
name = sys.argv[3]
d = json.load(open(sys.argv[1]))
def say(c, m): print(("ok" if c else "not ok") + f" - {name}: {m}")
say(d["status"] == "failed", f"the run is failed ({d['status']})")
say("rank 2" in (d.get("error") or ""), f"the dead rank is named ({d.get('error')})")
st = {r["rank"]: r for r in d.get("ranks", [])}
say(st.get(2, {}).get("state") == "dead", "rank 2's row says dead")
say(all(st.get(k, {}).get("committed", 0) > 0 for k in (0, 1)), "ranks 0 and 1 kept their figures")
say(sum(t["committed"] for t in d["transactions"].values()) == st[0]["committed"] + st[1]["committed"],
    "the run's counts are the live ranks' counts")
db = sqlite3.connect(sys.argv[2])
row = db.execute("SELECT status, error FROM run WHERE id = ?", (d["run_id"],)).fetchone()
say(row and row[0] == "failed" and "rank 2" in (row[1] or ""), f"stored failed, naming rank 2 ({row})")
PY
}
kill_run killed ""
kill_run killed-recovery --enable-recovery

# --- bad input on one rank only: all stop before the window, exit 2, that rank's message ------
before=$(nruns)
mkdir -p "$T_TMP/bad.rc"
DG_RC_DIR=$T_TMP/bad.rc timeout 120 mpirun -x DG_RC_DIR --oversubscribe \
    -n 2 "$WRAP" "$DG" tpcc run --target "sqlite:$DB" --vus 3 --txns-per-vu 10 --results "$RES" : \
    -n 1 "$WRAP" "$DG" tpcc run --target "sqlite:$T_TMP/no-such-dir/x.db" --vus 3 --txns-per-vu 10 --results "$RES" \
    >"$T_TMP/bad.out" 2>"$T_TMP/bad.err" </dev/null
check "bad input on rank 2: every rank exits 2" test "$(rank_rcs bad)" = "2 2 2"
if grep -q "rank 2 on .*no-such-dir" "$T_TMP/bad.err"; then ok "bad input on rank 2: its message, naming it"; else
    not_ok "bad input on rank 2: its message, naming it" "$(grep -v '^\s*$' "$T_TMP/bad.err" | head -n 5 | tr '\n' ' ')"
fi
check "bad input on rank 2: nothing measured, nothing stored" test "$(nruns)" = "$before"

# --- Ctrl-C on rank 0: every rank stops, what was measured is kept ----------------------------
before=$(nruns)
signal_rank int "" 60s 0 INT
check "Ctrl-C on rank 0: the run ends within 10 s" test "$WAITED" -le 10
check "Ctrl-C on rank 0: every rank exits 1" test "$(rank_rcs int)" = "1 1 1"
check "Ctrl-C on rank 0: one more run stored" test "$(nruns)" = $((before + 1))
python3 - "$T_TMP/int.out" <<'PY' | relay
import json, sys
d = json.load(open(sys.argv[1]))
def say(c, m): print(("ok" if c else "not ok") + f" - Ctrl-C on rank 0: {m}")
say(d["status"] == "incomplete", f"stored incomplete ({d['status']})")
say(1 <= d["measured_seconds"] < 30, f"the seconds measured kept ({d['measured_seconds']})")
r = d.get("ranks", [])
say(len(r) == 3 and all(x["committed"] > 0 and x["state"] == "interrupted" for x in r),
    "all 3 ranks' figures kept, each interrupted")
PY

# --- stress and an experiment under mpirun ----------------------------------------------------
before=$(nruns)
mpi stress 2 stress --target "sqlite:$DB" --query "SELECT COUNT(*) FROM warehouse" --threads 4 \
    --iterations 50 --results "$RES" --json
check "stress over 2 ranks: every rank exits 0" test "$RC,$(rank_rcs stress)" = "0,0 0"
check "stress over 2 ranks: 4 threads x 50 = 200 executions" \
    test "$(json_get "$T_TMP/stress.out" steps.0.iterations 2>/dev/null)" = 200
cat >"$T_TMP/exp.ini" <<INI
[global]
workload=tpcc
target=sqlite:$DB
txns_per_vu=20
vus=2,4
INI
before=$(nruns)
LEAKS=with_mpi_leaks mpi exp 2 experiment "$T_TMP/exp.ini" --results "$RES" --json
check "experiment over 2 ranks: every rank exits 0" test "$RC,$(rank_rcs exp)" = "0,0 0"
check "experiment over 2 ranks: 2 steps stored, one run each" test "$(nruns)" = $((before + 2))
check "experiment over 2 ranks: steps of 2x20 and 4x20 transactions" test "$(sqlite3 "$RES" \
    "SELECT GROUP_CONCAT(n) FROM (SELECT SUM(committed + rollbacks + errors) AS n FROM run_txn JOIN run ON run.id = run_txn.run_id
     WHERE run.experiment_id IS NOT NULL GROUP BY run.id ORDER BY run.id)")" = "40,80"
# --- --live over ranks: rank 0 serves, its counters merge every rank's beats -------------------
# An open loop of 400/s split over the ranks, so that each rank does half: closed, two
# processes on one SQLite file share it as its busy handler's sleeps fall (seen: rank 1 did 22%
# of the commits beside a CPU hog), and the merged count could not tell a rank's beats apart
# from that unfairness.
mpi live 2 tpcc run --target "sqlite:$DB" --vus 4 --rate 400 --warmup 0s --duration 12s --results "$RES" \
    --live 127.0.0.1:0 --progress none &
live_job=$!
wait_for 60 grep -q '^live: http://127.0.0.1:[0-9]*/' "$T_TMP/live.err"
PORT=$(grep -o '^live: http://127.0.0.1:[0-9]*' "$T_TMP/live.err" | head -n 1 | cut -d: -f4)
check "--live over 2 ranks: one server, said once (rank 0's)" test "$(grep -c '^live: ' "$T_TMP/live.err")" = 1
sleep 6
curl -s -m 5 "http://127.0.0.1:${PORT:-1}/metrics" >"$T_TMP/live.metrics"
/usr/bin/python3 - "$T_TMP/live.metrics" <<'PY'
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
try:
    f = {x.name: x for x in text_string_to_metric_families(open(sys.argv[1]).read())}
except Exception as e:
    print(f"not ok - --live over 2 ranks: /metrics parses: {e}"); sys.exit()
ranks = f["dbgauge_ranks"].samples[0].value
merged = sum(s.value for s in f["dbgauge_transactions"].samples if s.labels["outcome"] != "error")
own = sum(s.value for s in f["dbgauge_target_commits"].samples)  # rank 0's own series
print(("ok" if ranks == 2 else "not ok") + f" - --live over 2 ranks: /metrics says 2 ranks ({ranks:g})")
print(("ok" if own > 0 and merged > 1.3 * own else "not ok") +
      f" - --live over 2 ranks: the transaction counters hold both ranks' ({merged:g} finished, rank 0's own {own:g})")
PY
wait "$live_job" # the function's RC stays in its subshell: the ranks' own statuses say it
check "--live over 2 ranks: every rank exits 0" test "$(rank_rcs live)" = "0 0"
check "--live over 2 ranks: the port is closed after the run" \
    test "$(curl -s -m 3 -o /dev/null -w '%{http_code}' "http://127.0.0.1:${PORT:-1}/metrics")" = 000
check "no rank left running at the end" bash -c "! pgrep -f '^$DG .*$T_TMP' >/dev/null"
finish
