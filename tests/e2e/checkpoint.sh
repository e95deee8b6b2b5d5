#!/usr/bin/env bash
# checkpoint.sh — a run killed outright keeps what it measured: SIGKILL of `tpcc run` 5 s after
# its first checkpoint in a 60 s window leaves a "lost" run with its seconds up to that
# checkpoint, whose counts, series, report and comparison hold together; the results file
# passes SQLite's integrity check and takes the next run. An experiment killed after its first
# step keeps that step whole and reads back as lost.
. "$(dirname "$0")/../lib.sh"

RES=$T_TMP/results.db
DB=$T_TMP/tpcc.db
check "a 1-warehouse SQLite database (sqlite_tpcc)" sqlite_tpcc "$DB"

# --- a run killed with SIGKILL in its window
"$DG" tpcc run --target "sqlite:$DB" --vus 2 --duration 60s --results "$RES" --label killed \
    >"$T_TMP/killed.out" 2>"$T_TMP/killed.err" </dev/null &
pid=$!
# Killed halfway between two checkpoints once the first (10 s, --checkpoint-every's default) is
# kept: the run loses the seconds since, as a kill does. Waited for in the results file, not
# slept: a busy machine starts the window late.
kept_10s() { [[ $(sqlite3 -cmd ".timeout 2000" "$RES" "SELECT measured_s >= 10 FROM run WHERE label = 'killed'" 2>/dev/null) == 1 ]]; }
wait_for 50 kept_10s || not_ok "the first checkpoint (10 s) is kept within 50 s" "$(tail -n 3 "$T_TMP/killed.err")"
sleep 5
kill -KILL "$pid"
wait "$pid" 2>/dev/null
check "the run was killed (not finished)" test ! -s "$T_TMP/killed.out"

run_dg "$T_TMP/runs.txt" "$T_TMP/runs.err" runs --results "$RES"
check_exit "runs exits 0 after the kill" 0
check "runs lists the killed run as lost" grep -Eq '^ +1 .* lost .*killed' "$T_TMP/runs.txt"
run_dg "$T_TMP/lost.json" "$T_TMP/lost.err" runs show 1 --results "$RES" --json
check_exit "runs show of the lost run exits 0" 0
run_dg "$T_TMP/series.json" "$T_TMP/series.err" runs show 1 --results "$RES" --series --json
python3 - "$T_TMP" <<'PY' | relay
import json, sys
d = sys.argv[1]
r = json.load(open(f"{d}/lost.json"))
s = json.load(open(f"{d}/series.json"))
def say(c, what): print(("ok" if c else "not ok") + " - " + what)
say(r["status"] == "lost", f"its status reads back as lost: {r['status']}")
say(r["measured_seconds"] >= 10, f"it kept at least 10 measured seconds: {r['measured_seconds']}")
say("last checkpoint" in r.get("error", ""), "it says its figures are its last checkpoint")
tx = r["transactions"]
committed = sum(t["committed"] for t in tx.values())
say(committed > 0 and all(t["p95_ms"] > 0 for t in tx.values() if t["committed"]),
    f"counts and latency percentiles were kept: {committed} committed")
say(r["nopm"] > 0, f"its NOPM is derived from what was kept: {r['nopm']}")
pts = [p for p in s["series"] if p["second"] >= 0]
say(len(pts) == int(r["measured_seconds"]), f"one series point per kept second: {len(pts)} for {r['measured_seconds']} s")
per = sum(sum(t["committed"] for t in p["transactions"].values()) for p in pts)
say(per == committed, f"the series adds up to the kept counts: {per} = {committed}")
PY
check "the lost run's checks ran to their end" test "${PIPESTATUS[0]}" = 0
expect_exit "report of the lost run renders" 0 report 1 --results "$RES" -o "$T_TMP/lost.html"
check "the report says the run was lost" grep -q 'lost' "$T_TMP/lost.html"
check "the report draws the lost run's series" grep -q 'class="chart"' "$T_TMP/lost.html"
check "the results file passes SQLite's integrity check" test "$(sqlite3 "$RES" 'PRAGMA integrity_check')" = ok

expect_exit "a second run into the same results file works" 0 tpcc run --target "sqlite:$DB" --vus 1 \
    --duration 3s --results "$RES" --label after
run_dg "$T_TMP/runs2.txt" "$T_TMP/runs2.err" runs --results "$RES"
check "the second run is complete, the lost one still lost" \
    bash -c "grep -Eq '^ +2 .* complete .*after' '$T_TMP/runs2.txt' && grep -Eq '^ +1 .* lost ' '$T_TMP/runs2.txt'"
expect_exit "compare takes the lost run" 0 compare 1 2 --results "$RES"
check "compare shows both runs' NOPM" grep -q 'NOPM' "$T_TMP/last.out"

# --- an experiment killed after its first step
cat >"$T_TMP/sweep.ini" <<INI
[global]
workload=tpcc
target=sqlite:$DB
duration=3s
vus=1,2,1
INI
"$DG" experiment "$T_TMP/sweep.ini" --results "$RES" >"$T_TMP/exp.out" 2>"$T_TMP/exp.err" </dev/null &
pid=$!
complete_steps() { [[ $(sqlite3 "$RES" "select count(*) from run where experiment_id is not null and status = 'complete'" 2>/dev/null) -ge 1 ]]; }
wait_for 60 complete_steps
kill -KILL "$pid"
wait "$pid" 2>/dev/null
EXP=$(sqlite3 "$RES" 'select max(id) from experiment')
run_dg "$T_TMP/exshow.json" "$T_TMP/exshow.err" experiment show "${EXP:-0}" --results "$RES" --json
check_exit "experiment show of the killed experiment exits 0" 0
python3 - "$T_TMP/exshow.json" <<'PY' | relay
import json, sys
e = json.load(open(sys.argv[1]))
def say(c, what): print(("ok" if c else "not ok") + " - " + what)
say(e["status"] == "lost", f"the killed experiment reads back as lost: {e['status']}")
steps = [s for s in e["steps"] if s.get("run_id")]
first = steps[0] if steps else {}
say(first.get("status") == "complete" and first.get("nopm", 0) > 0,
    f"its finished first step is intact: {first.get('status')}, NOPM {first.get('nopm')}")
PY
check "the experiment's checks ran to their end" test "${PIPESTATUS[0]}" = 0
expect_exit "report of the killed experiment renders" 0 report "exp:${EXP:-0}" --results "$RES" -o "$T_TMP/exp.html"
check "the results file still passes the integrity check" test "$(sqlite3 "$RES" 'PRAGMA integrity_check')" = ok
finish
