#!/usr/bin/env bash
# sqlite.sh — TPC-C end to end on real SQLite files: load and population rules, check, timed
# and counted runs, the mix, latency order, stored runs, Ctrl-C. Uses tests/lib.sh.
. "$(dirname "$0")/../lib.sh"

DB=$T_TMP/tpcc.db
TGT=sqlite:$DB
RES=$T_TMP/results.db
q() { sqlite3 "$DB" "$1"; }

# --- load 1 warehouse ---------------------------------------------------------------------
run_dg "$T_TMP/load.json" "$T_TMP/load.err" tpcc load --target "$TGT" --warehouses 1 --json
check_exit "load exits 0" 0
num_cmp "load reports rows/s" "$(json_get "$T_TMP/load.json" rows_per_s)" ">" 0
grep -q "warehouses" "$T_TMP/load.err" && ok "load shows progress on stderr" || not_ok "load shows progress on stderr" "no progress line"

for spec in warehouse:1 district:10 customer:30000 history:30000 orders:30000 new_order:9000 \
    stock:100000 item:100000; do
    table=${spec%%:*} want=${spec##*:}
    check "load: $table has $want rows" test "$(q "SELECT COUNT(*) FROM $table")" = "$want"
done
ol=$(q "SELECT COUNT(*) FROM order_line")
check "load: order_line rows = sum(o_ol_cnt)" test "$ol" = "$(q 'SELECT SUM(o_ol_cnt) FROM orders')"
num_cmp "load: order_line about 10 per order" "$ol" ">" 280000
check "load: o_ol_cnt within 5..15" test "$(q 'SELECT MIN(o_ol_cnt) || "," || MAX(o_ol_cnt) FROM orders')" = "5,15"
bc=$(q "SELECT COUNT(*) FROM customer WHERE c_credit = 'BC'")
num_cmp "load: BC customers near 10% (low)" "$bc" ">" 2740
num_cmp "load: BC customers near 10% (high)" "$bc" "<" 3260
orig=$(q "SELECT COUNT(*) FROM item WHERE i_data LIKE '%ORIGINAL%'")
num_cmp "load: ORIGINAL items near 10% (low)" "$orig" ">" 9525
num_cmp "load: ORIGINAL items near 10% (high)" "$orig" "<" 10475
check "load: C_LAST of c_id 1..1000 follows the syllables" test \
    "$(q "SELECT c_last FROM customer WHERE c_w_id=1 AND c_d_id=3 AND c_id IN (1, 372, 1000) ORDER BY c_id" | tr '\n' ' ')" \
    = "BARBARBAR PRICALLYOUGHT EINGEINGEING "
check "load: every district has all 1000 last names" test \
    "$(q 'SELECT MIN(n) FROM (SELECT COUNT(DISTINCT c_last) AS n FROM customer GROUP BY c_d_id)')" = 1000
check "load: last 900 orders undelivered" test \
    "$(q 'SELECT COUNT(*) FROM orders WHERE (o_id > 2100) = (o_carrier_id IS NOT NULL)')" = 0
check "load: d_next_o_id = 3001" test "$(q 'SELECT MIN(d_next_o_id) || MAX(d_next_o_id) FROM district')" = 30013001
check "load: each customer has one order" test "$(q 'SELECT COUNT(DISTINCT o_c_id) FROM orders WHERE o_d_id = 7')" = 3000

expect_exit "load again without --drop exits 2" 2 tpcc load --target "$TGT"
expect_stderr "load again names --drop" "--drop"

# --- check right after load -----------------------------------------------------------------
run_dg "$T_TMP/check0.json" "$T_TMP/check0.err" tpcc check --target "$TGT" --json
check_exit "check after load exits 0" 0
check "check after load: pass" test "$(json_get "$T_TMP/check0.json" pass)" = True
check "check after load: CC11 applies" test "$(json_get "$T_TMP/check0.json" conditions.19.name)/$(json_get "$T_TMP/check0.json" conditions.19.applicable)" = "CC11/True"

# --- a damaged database fails the check, naming the condition ------------------------------
cp "$DB" "$T_TMP/bad.db"
sqlite3 "$T_TMP/bad.db" "UPDATE warehouse SET w_ytd = w_ytd + 1"
expect_exit "check of a damaged database exits 1" 1 tpcc check --target "sqlite:$T_TMP/bad.db"
grep -q "FAIL  CC1 " "$T_TMP/last.out" && ok "check names CC1 as failing" || not_ok "check names CC1 as failing" "$(grep FAIL "$T_TMP/last.out")"
rm -f "$T_TMP/bad.db"*

# --- timed run: 2 virtual users, 15 s -------------------------------------------------------
run_dg "$T_TMP/run.json" "$T_TMP/run.err" tpcc run --target "$TGT" --vus 2 --duration 15s --warmup 2s --results "$RES" --json --label "e2e timed"
check_exit "timed run exits 0" 0
nopm=$(json_get "$T_TMP/run.json" nopm)
num_cmp "timed run: NOPM > 0" "$nopm" ">" 0
num_cmp "timed run: measured 15 s" "$(json_get "$T_TMP/run.json" measured_seconds)" "==" 15
grep -Eq '^\[ +[0-9]+s\] measure' "$T_TMP/run.err" && ok "timed run prints a line every 10 s" || not_ok "timed run prints a line every 10 s" "$(head -5 "$T_TMP/run.err")"
python3 - "$T_TMP/run.json" >"$T_TMP/mix.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = d["transactions"]
total = sum(v["count"] for v in t.values())
mins = {"payment": 43.0, "order_status": 4.0, "delivery": 4.0, "stock_level": 4.0}
for k, m in mins.items():
    share = 100.0 * t[k]["count"] / total
    print(("ok" if share >= m else "not ok") + f" - mix: {k} {share:.2f}% >= {m}%")
for k, v in t.items():
    good = v["p50_ms"] <= v["p95_ms"] <= v["max_ms"] and v["count"] > 0
    print(("ok" if good else "not ok") + f" - latency order {k}: p50 {v['p50_ms']} <= p95 {v['p95_ms']} <= max {v['max_ms']}")
    print(("ok" if v["errors"] == 0 else "not ok") + f" - no errors in {k}: {v['errors']}")
no = t["new_order"]
share = 100.0 * no["rollbacks"] / no["count"]
print(("ok" if 0.3 <= share <= 2.0 else "not ok") + f" - New-Order rolls back about 1%: {share:.2f}%")
tpm = sum(v["committed"] for v in t.values()) * 60.0 / d["measured_seconds"]
print(("ok" if abs(tpm - d["tpm"]) < 1 else "not ok") + f" - TPM equals committed per minute: {d['tpm']} vs {tpm}")
nopm = no["committed"] * 60.0 / d["measured_seconds"]
print(("ok" if abs(nopm - d["nopm"]) < 1 else "not ok") + f" - NOPM equals committed New-Orders per minute: {d['nopm']} vs {nopm}")
PY
while read -r line; do
    case $line in "ok - "*) ok "${line#ok - }" ;; *) not_ok "${line#not ok - }" "see above" ;; esac
done <"$T_TMP/mix.txt"
run_dg "$T_TMP/check1.json" "$T_TMP/check1.err" tpcc check --target "$TGT" --json
check "check after the timed run passes" test "$RC/$(json_get "$T_TMP/check1.json" pass)" = 0/True

# --- counted run: 200 transactions per virtual user ----------------------------------------
run_dg "$T_TMP/count.json" "$T_TMP/count.err" tpcc run --target "$TGT" --vus 2 --txns-per-vu 200 --results "$RES" --json
check_exit "counted run exits 0" 0
total=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(v["count"] for v in d["transactions"].values()))' "$T_TMP/count.json")
check "counted run completes exactly 400 transactions" test "$total" = 400
check "check after the counted run passes" "$DG" tpcc check --target "$TGT" >/dev/null 2>&1

# --- the results database ---------------------------------------------------------------------
run_dg "$T_TMP/runs.json" "$T_TMP/runs.err" runs --results "$RES" --json
check "runs lists both runs" test "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["runs"]))' "$T_TMP/runs.json")" = 2
id=$(json_get "$T_TMP/run.json" run_id)
run_dg "$T_TMP/show.json" "$T_TMP/show.err" runs show "$id" --results "$RES" --json
check "runs show gives the stored NOPM" test "$(json_get "$T_TMP/show.json" nopm)" = "$nopm"
check "runs show keeps the label" test "$(json_get "$T_TMP/show.json" label)" = "e2e timed"
check "stored run records the host" test "$(json_get "$T_TMP/show.json" host.cores)" -ge 1
check "stored run records the engine" test "$(json_get "$T_TMP/show.json" engine)" = sqlite
check "stored run records the command line" grep -q -- "--duration 15s" <(json_get "$T_TMP/show.json" command_line)
hist=$(sqlite3 "$RES" "SELECT COUNT(*) FROM run_txn WHERE run_id = $id AND length(histogram) > 10")
check "stored run keeps five histograms" test "$hist" = 5
run_dg "$T_TMP/show.txt" "$T_TMP/show.err" runs show "$id" --results "$RES"
grep -q "new_order" "$T_TMP/show.txt" && ok "runs show prints the per-type table" || not_ok "runs show prints the per-type table" "no new_order row"

# --- Ctrl-C stores what was measured, marked incomplete ---------------------------------------
"$DG" tpcc run --target "$TGT" --vus 2 --duration 60s --results "$RES" --json >"$T_TMP/int.json" 2>"$T_TMP/int.err" &
pid=$!
sleep 4
kill -INT "$pid"
wait "$pid"
rc=$?
check "interrupted run exits 1" test "$rc" = 1
check "interrupted run is stored as incomplete" test "$(json_get "$T_TMP/int.json" status)" = incomplete
num_cmp "interrupted run kept its measured seconds" "$(json_get "$T_TMP/int.json" measured_seconds)" "<" 10
num_cmp "interrupted run kept its transactions" "$(json_get "$T_TMP/int.json" nopm)" ">" 0
check "database still consistent after the interruption" "$DG" tpcc check --target "$TGT" >/dev/null 2>&1

# --- SQLite busy is retryable, not an error ---------------------------------------------------
run_dg "$T_TMP/busy.json" "$T_TMP/busy.err" tpcc run --target "$TGT?busy_timeout=0" --vus 2 --duration 5s --results "$RES" --json
check_exit "busy run exits 0" 0
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); t=d["transactions"].values(); print(sum(v["retries"] for v in t), sum(v["errors"] for v in t))' "$T_TMP/busy.json" >"$T_TMP/busy.txt"
read -r retries errors <"$T_TMP/busy.txt"
num_cmp "busy without a timeout is retried (retries > 0)" "$retries" ">" 0
check "busy retries end in commits, not errors" test "$errors" = 0
# each retry is counted by its cause: here SQLITE_BUSY, never a deadlock or a lock timeout
python3 - "$T_TMP/busy.json" >"$T_TMP/causes.txt" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["transactions"].values()
c = {k: sum(v["retry_causes"][k] for v in t) for k in next(iter(t))["retry_causes"]}
print(sum(v["retries"] for v in t), c.get("busy", 0), sum(c.values()), c.get("deadlock", 0) + c.get("serialization", 0) + c.get("lock_timeout", 0))
PY
read -r retries busy counted others <"$T_TMP/causes.txt"
check "busy retries counted by cause: busy $busy of $retries, causes sum to the retries ($counted)" \
    test "${busy:-0}" -gt 0 -a "${counted:-x}" = "$retries" -a "${others:-x}" = 0
check "a new run's types carry their errors by cause, summing to the errors" \
    python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["transactions"].values(); sys.exit(not all(sum(v["error_causes"].values()) == v["errors"] for v in t))' "$T_TMP/busy.json"
id=$(json_get "$T_TMP/busy.json" run_id)
check "the stored run keeps the busy retries (run_txn.retries_busy)" \
    test "$(sqlite3 "$RES" "SELECT SUM(retries_busy) FROM run_txn WHERE run_id = ${id:-0}")" = "$busy"
"$DG" runs show "${id:-0}" --results "$RES" >"$T_TMP/busy-show.txt" 2>&1
check "runs show prints the retries by cause" grep -qE "^  retries by cause: busy $busy" "$T_TMP/busy-show.txt"
expect_exit "report of the busy run writes HTML" 0 report "${id:-0}" --results "$RES" -o "$T_TMP/busy.html"
check "the HTML report says the retries by cause" grep -qF "retries by cause: busy $busy<" "$T_TMP/busy.html"
# A results database of schema 7 (before causes were kept): the columns are taken away again
# from a copy (with what schemas 10 to 14 added), which then migrates on open; its runs show no
# causes rather than made-up zeros.
cp "$RES" "$T_TMP/v7.db"
drop="DROP TABLE run_fault; DROP TABLE run_outage; DROP TABLE run_ack; ALTER TABLE run_series DROP COLUMN reconnects;"
drop+="DROP TABLE run_replication; DROP TABLE run_audit; ALTER TABLE run_target DROP COLUMN role; ALTER TABLE run_target DROP COLUMN cluster;"
drop+="DROP TABLE run_rank_monitor; DROP TABLE run_rank_figure; DROP TABLE run_rank;"
drop+="ALTER TABLE run DROP COLUMN proc_id; ALTER TABLE run DROP COLUMN alive_at;"
for c in proc_id host_name alive_at; do drop+="ALTER TABLE experiment DROP COLUMN $c;"; done
for c in arrivals late skipped; do drop+="ALTER TABLE run DROP COLUMN $c;"; done
for tbl in run_txn run_target_txn; do for c in retries_deadlock retries_serialization retries_lock_timeout retries_busy retries_certification retries_other in_doubt \
    errors_connection errors_timeout errors_too_many_connections errors_closed_by_server errors_read_only errors_gave_up \
    errors_other; do
    drop+="ALTER TABLE $tbl DROP COLUMN $c;"; done; done
sqlite3 "$T_TMP/v7.db" "$drop PRAGMA user_version=7;" 2>"$T_TMP/v7.err"
check "fixture: a copy of the results database taken back to schema 7" test "$(sqlite3 "$T_TMP/v7.db" "PRAGMA user_version")" = 7
run_dg "$T_TMP/v7.json" "$T_TMP/v7.err" runs show "${id:-0}" --results "$T_TMP/v7.db" --json
check_exit "a schema 7 database opens and migrates (runs show exits 0)" 0
check "it is at this binary's schema afterwards" test "$(sqlite3 "$T_TMP/v7.db" "PRAGMA user_version")" = "$(sqlite3 "$RES" "PRAGMA user_version")"
check "a run stored before causes were kept shows none (no retry_causes)" \
    python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["transactions"]; sys.exit(any("retry_causes" in v for v in t.values()) or sum(v["retries"] for v in t.values()) == 0)' "$T_TMP/v7.json"
check "a run stored before error causes were kept shows none (no error_causes)" \
    python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["transactions"]; sys.exit(any("error_causes" in v for v in t.values()))' "$T_TMP/v7.json"

# --- the bare commands work on the default target -------------------------------------------
mkdir -p "$T_TMP/bare"
(cd "$T_TMP/bare" && "$DG" tpcc load >/dev/null 2>&1 && "$DG" tpcc run --txns-per-vu 50 >/dev/null 2>&1)
check "bare 'tpcc load && tpcc run' works" test $? = 0
check "bare commands use sqlite:tpcc.db and dbgauge-results.db" test -s "$T_TMP/bare/tpcc.db" -a -s "$T_TMP/bare/dbgauge-results.db"

finish
