#!/usr/bin/env bash
# faults.sh — a run's outages, faults, in-doubt errors, reconnects and --rate schedule (schema
# 10) as every view shows them, read back from a results database: a real short --rate run on
# SQLite, whose stored rows are then given two outages (one in the warm-up, with no commit or
# recovery after it), two faults (one still running at the end, a command holding < > & and
# quotes), in-doubt errors, reconnects per second and a schedule. `runs show`, `report
# --format json|csv` and the HTML report must agree with the database, every per-second chart
# must carry the spans, and headless Chromium must draw the page with no error. A second
# schedule past 1% late or skipped must say FELL BEHIND.
. "$(dirname "$0")/../lib.sh"

RES=$T_TMP/results.db
OUT=$T_OUT
mkdir -p "$OUT"
CHECK=$DG_ROOT/tests/report_check.py
relay() { while read -r l; do case $l in "ok - "*) ok "${l#ok - }" ;; "not ok - "*) not_ok "${l#not ok - }" "" ;; *) echo "$l" ;; esac; done; }
py() { python3 "$CHECK" "$@" >"$T_TMP/py.out" 2>&1 || echo "not ok - report_check.py $1 crashed: $(tail -n 3 "$T_TMP/py.out" | tr '\n' ' ')" >>"$T_TMP/py.out"; relay <"$T_TMP/py.out"; }

DB=sqlite:$T_TMP/tpcc.db
check "fixture: a 1-warehouse database (sqlite_tpcc)" sqlite_tpcc "${DB#sqlite:}"
expect_exit "fixture: tpcc run --rate 50 with a warm-up" 0 tpcc run --target "$DB" --vus 2 --rate 50 --warmup 1s --duration 3s --results "$RES"
ID=$(sqlite3 "$RES" "SELECT MAX(id) FROM run")
check "a new run is stored with its schedule (not NULL: schema 10)" test "$(sqlite3 "$RES" "SELECT arrivals IS NOT NULL FROM run WHERE id = $ID")" = 1
check "a new run's types store in_doubt, its series reconnects on type-0 rows only" test \
    "$(sqlite3 "$RES" "SELECT (SELECT COUNT(*) FROM run_txn WHERE run_id = $ID AND in_doubt IS NULL) || ':' ||
       (SELECT COUNT(*) FROM run_series WHERE run_id = $ID AND (seq = 0) != (reconnects IS NOT NULL))")" = "0:0"
sqlite3 "$RES" "
INSERT INTO run_fault VALUES ($ID, 0, 1.0, 1.002, 1.4, 0, 'pg_ctl -D /tmp/pg stop -m immediate');
INSERT INTO run_fault VALUES ($ID, 1, 2.0, 2.001, NULL, 137, 'sleep 9 && echo ''<b>&\"x\"''');
INSERT INTO run_outage (run_id, seq, target_idx, start_s, duration_s, first_commit_s, recovery_s, errors, reconnects, back_on) VALUES ($ID, 0, 0, -0.5, 0.3, NULL, NULL, 3, 2, NULL);
INSERT INTO run_outage (run_id, seq, target_idx, start_s, duration_s, first_commit_s, recovery_s, errors, reconnects, back_on) VALUES ($ID, 1, 0, 1.1, 0.9, 1.2, 1.6, 212, 57, '127.0.0.1:5432');
UPDATE run SET arrivals = 150, late = 1, skipped = 0 WHERE id = $ID;
UPDATE run_txn SET errors = errors + 5, in_doubt = 2 WHERE run_id = $ID AND seq = 0;
UPDATE run_series SET reconnects = 7, errors = errors + 3 WHERE run_id = $ID AND seq = 0 AND second = 1;"
rm -f "$T_TMP"/tpcc.db*

run_dg "$T_TMP/show.txt" "$T_TMP/show.err" runs show "$ID" --results "$RES"
check_exit "runs show exits 0" 0
check "text: the warm-up outage, never committed after" grep -qF "  outage   at -0.5 s (warm-up) for 0.3 s, 3 errors, 2 reconnects; first commit never, back to 90% never" "$T_TMP/show.txt"
check "text: the outage after the fault, where it came back" grep -qF "  outage   at 1.1 s for 0.9 s, 212 errors, 57 reconnects; first commit after 1.2 s, back to 90% after 1.6 s, back on 127.0.0.1:5432" "$T_TMP/show.txt"
check "text: the faults, one still running" grep -qF "  fault    at 2.0 s: sleep 9 && echo '<b>&\"x\"' (still running when the run ended, exit 137: signal 9)" "$T_TMP/show.txt"
check "text: the in-doubt errors" grep -qF "  in doubt 2 of the 5 errors (new_order 2)" "$T_TMP/show.txt"
run_dg "$T_TMP/r.json" "$T_TMP/r.err" runs show "$ID" --json --results "$RES"
expect_exit "report writes HTML" 0 report "$ID" --results "$RES" -o "$OUT/report-faults.html"
py events "$OUT/report-faults.html" "$T_TMP/r.json" "$T_TMP/show.txt" "$RES" "$ID"
check "html: the fault's command is escaped" grep -qF 'echo &#39;&lt;b&gt;&amp;&quot;x&quot;&#39;' "$OUT/report-faults.html"
py browser "$OUT/report-faults.html" "$OUT/report-faults.png"
run_dg "$T_TMP/r.csv" "$T_TMP/r.err" report "$ID" --results "$RES" --format csv
py csv "$T_TMP/r.csv" "$RES"

# 2 of 150 late or skipped: 1.3%, FELL BEHIND whatever the start lag says
sqlite3 "$RES" "UPDATE run SET late = 1, skipped = 1 WHERE id = $ID"
run_dg "$T_TMP/show2.txt" "$T_TMP/show.err" runs show "$ID" --results "$RES"
run_dg "$T_TMP/r2.json" "$T_TMP/r.err" runs show "$ID" --json --results "$RES"
py events "$OUT/report-faults.html" "$T_TMP/r2.json" "$T_TMP/show2.txt" "$RES" "$ID"
check "text: 1.33% late or skipped" grep -qF "150 arrivals, 1 late, 1 skipped: 1.33% late or skipped" "$T_TMP/show2.txt"
check "text: so it fell behind" grep -qF "achieved: FELL BEHIND" "$T_TMP/show2.txt"
finish
