#!/usr/bin/env bash
# pgsql.sh — TPC-C end to end on a real PostgreSQL server: parallel load and check, timed runs
# in both modes, serialization failures retried (and given up: error cause gave_up), a read-only
# database refused to a run that writes and read by a query stress, its refusals (made read-only
# during a run) counted as read_only, bad targets named without their password, and
# redacted stored runs. The caller (tests/run.sh) starts and stops the server; this only reads
# tests/out/servers.env and never skips silently.
. "$(dirname "$0")/../lib.sh"

need_server DG_PG_URL pgsql "no PostgreSQL server"
export PGPASSWORD=$DG_PG_PASSWORD
TGT=$DG_PG_URL
RES=$T_TMP/results.db
HOSTPART=${DG_PG_URL#postgres://dbgauge@} # 127.0.0.1:PORT/dbgauge
HOSTPORT=${HOSTPART%%/*}
PSQL=(psql -X -q -v ON_ERROR_STOP=1 -At)

# sum_field FILE FIELD: the sum of transactions.*.FIELD in a run's JSON
# check_passes NAME: tpcc check on the target exits 0 with "pass": true
check_passes() {
    run_dg "$T_TMP/check.json" "$T_TMP/check.err" tpcc check --target "$TGT" --json
    if [[ $RC == 0 && $(json_get "$T_TMP/check.json" pass 2>/dev/null) == True ]]; then ok "$1"; else
        not_ok "$1" "exit $RC; $(grep -h FAIL "$T_TMP/check.json" "$T_TMP/check.err" | head -3) $(head -c 300 "$T_TMP/check.err")"
    fi
}

# no_secret NAME FILE SECRET: FILE must not contain SECRET
no_secret() {
    if grep -qF -- "$3" "$2"; then not_ok "$1" "$(basename "$2") contains the password"; else ok "$1"; fi
}

# --- load 2 warehouses with 2 jobs, then check --------------------------------------------
run_dg "$T_TMP/load.json" "$T_TMP/load.err" tpcc load --target "$TGT" --warehouses 2 --jobs 2 --drop --json
check_exit "load 2 warehouses with 2 jobs exits 0" 0
check "load used 2 jobs" test "$(json_get "$T_TMP/load.json" jobs 2>/dev/null)" = 2
check "load installed the procedures" test \
    "$("${PSQL[@]}" "$TGT" -c "SELECT count(*) FROM pg_proc WHERE proname LIKE 'dbgauge\_%'" 2>&1)" = 6
check_passes "check after load passes"
# Tables updated in place keep room on their pages (HOT updates): the load sets fillfactor.
check "load sets fillfactor on stock and district" test \
    "$("${PSQL[@]}" "$TGT" -c "SELECT string_agg(relname || ':' || array_to_string(reloptions, ','), ' ' ORDER BY relname) FROM pg_class WHERE relname IN ('stock', 'district')")" = \
    "district:fillfactor=10 stock:fillfactor=80"

# --- timed runs in both modes --------------------------------------------------------------
for mode in sql procedures; do
    run_dg "$T_TMP/$mode.json" "$T_TMP/$mode.err" tpcc run --target "$TGT" --mode "$mode" --vus 4 \
        --duration 15s --results "$RES" --json --label "e2e $mode"
    check_exit "$mode run exits 0" 0
    num_cmp "$mode run: NOPM > 0" "$(json_get "$T_TMP/$mode.json" nopm 2>/dev/null || echo 0)" ">" 0
    check "$mode run: no errors" test "$(sum_field "$T_TMP/$mode.json" errors 2>/dev/null)" = 0
    num_cmp "$mode run: New-Order rolls back about 1% (some)" \
        "$(json_get "$T_TMP/$mode.json" transactions.new_order.rollbacks 2>/dev/null || echo 0)" ">" 0
    check "$mode run records its mode" test "$(json_get "$T_TMP/$mode.json" options.mode 2>/dev/null)" = "$mode"
    check_passes "check after the $mode run passes"
done

# --- a lost connection: counted as an error of its worker, the worker reconnects, the run goes on
"$DG" tpcc run --target "$TGT" --vus 4 --duration 8s --results "$RES" --json >"$T_TMP/kill.json" 2>"$T_TMP/kill.err" &
runpid=$!
sleep 3
killed=$("${PSQL[@]}" "$DG_PG_ADMIN_URL" -c "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'dbgauge-w2'" 2>&1)
wait "$runpid"
rc=$?
check "a killed session was there to kill" test "$killed" = 1
check "run with a killed session still ends normally" test "$rc" = 0
num_cmp "the lost connection is counted as an error" "$(sum_field "$T_TMP/kill.json" errors 2>/dev/null || echo 0)" ">=" 1
grep -q "worker 2, .*connection error" <(json_get "$T_TMP/kill.json" error 2>/dev/null) &&
    ok "the lost connection is named with its worker" || not_ok "the lost connection is named with its worker" "$(json_get "$T_TMP/kill.json" error 2>&1)"
num_cmp "the other workers went on (NOPM > 0)" "$(json_get "$T_TMP/kill.json" nopm 2>/dev/null || echo 0)" ">" 0
check_passes "check after the killed session passes"

# --- serialization failures are retried with the same inputs and counted ------------------
# Four users on two warehouses all update the warehouse rows in Payment: under SERIALIZABLE
# concurrent updates of one row fail with 40001 and must be run again, not reported.
run_dg "$T_TMP/ser.json" "$T_TMP/ser.err" tpcc run --target "$TGT" --mode procedures --vus 4 \
    --duration 8s --isolation serializable --results "$RES" --json
check_exit "serializable procedures run exits 0" 0
num_cmp "serializable procedures run: retries > 0" "$(sum_field "$T_TMP/ser.json" retries 2>/dev/null || echo 0)" ">" 0
num_cmp "serializable procedures run: serialization failures (40001) counted by cause" \
    "$(sum_field "$T_TMP/ser.json" retry_causes.serialization 2>/dev/null || echo 0)" ">" 0
# A retryable error fails for good only after 100 retries, and is then counted under the error
# cause gave_up. Under SSI that happens (one New-Order in about 1,500 at 8 users on 2 warehouses
# here: PostgreSQL can cancel one pivot transaction "on identification as a pivot" again and
# again), so gave_up errors may be there, but few: at most 1% of the transactions. Any error of
# another cause is a finding, named.
python3 "$DG_ROOT/tests/report_check.py" causes "$T_TMP/ser.json" gave_up \
    "serializable procedures run: errors given up after 100 retries at most 1%, no other error" 1 | relay
check "serializable run records its isolation" test "$(json_get "$T_TMP/ser.json" options.isolation 2>/dev/null)" = serializable
check_passes "check after the serializable procedures run passes"
run_dg "$T_TMP/ser2.json" "$T_TMP/ser2.err" tpcc run --target "$TGT" --mode sql --vus 4 \
    --duration 5s --isolation serializable --results "$RES" --json
check_exit "serializable sql run exits 0" 0
num_cmp "serializable sql run: retries > 0" "$(sum_field "$T_TMP/ser2.json" retries 2>/dev/null || echo 0)" ">" 0
num_cmp "serializable sql run: serialization failures (40001) counted by cause" \
    "$(sum_field "$T_TMP/ser2.json" retry_causes.serialization 2>/dev/null || echo 0)" ">" 0
check_passes "check after the serializable sql run passes"

# --- a read-only database: a run that writes is refused before its window (exit 2) and a query
# stress reads it; made read-only during a run, the writes it refuses (25006) are errors of
# cause read_only. A scratch database with 1 warehouse and a stress table, then
# default_transaction_read_only set on it (no role altered, the other databases untouched).
RO=dg_e2e_read_only
# the server-wide setting the mid-run part makes is undone at exit, whatever happens
ro_reset() { "${PSQL[@]}" "$DG_PG_ADMIN_URL" -c "ALTER SYSTEM RESET default_transaction_read_only" -c "SELECT pg_reload_conf()" >/dev/null 2>&1; }
eval "set -- $(trap -p EXIT)" # the trap lib.sh set: kept, run after ours
lib_exit_trap=${3:-}
trap "ro_reset; $lib_exit_trap" EXIT
if "${PSQL[@]}" "$DG_PG_ADMIN_URL" -c "DROP DATABASE IF EXISTS $RO" -c "CREATE DATABASE $RO OWNER dbgauge" >"$T_TMP/psql.err" 2>&1; then
    ROTGT="postgres://dbgauge@$HOSTPORT/$RO"
    run_dg "$T_TMP/ro-load.json" "$T_TMP/ro-load.err" tpcc load --target "$ROTGT" --warehouses 1 --jobs 2 --json
    check_exit "read-only: 1 warehouse loads into a scratch database" 0
    expect_exit "read-only: and a stress table of 1,000 rows" 0 stress prepare --target "$ROTGT" --rows 1000
    "${PSQL[@]}" "$DG_PG_ADMIN_URL" -c "ALTER DATABASE $RO SET default_transaction_read_only = on" >"$T_TMP/psql.err" 2>&1
    check "read-only: the scratch database is made read-only" test "$("${PSQL[@]}" "$ROTGT" -c "SHOW default_transaction_read_only" 2>&1)" = on
    read_only_target "$ROTGT" "its transactions are read-only (default_transaction_read_only is on)"
    # during a run: the server's default turned read-only 1 s in (a reload reaches the open sessions)
    "${PSQL[@]}" "$DG_PG_ADMIN_URL" -c "ALTER DATABASE $RO RESET default_transaction_read_only" >/dev/null 2>&1
    run_dg "$T_TMP/ro.json" "$T_TMP/ro.err" tpcc run --target "$ROTGT" --vus 2 --duration 3s --results "$RES" --json \
        --fault "1s:psql -X -q -At $(printf '%q' "$DG_PG_ADMIN_URL") -c 'ALTER SYSTEM SET default_transaction_read_only = on' -c 'SELECT pg_reload_conf()'"
    ro_reset
    check "read-only: turned read-only during the run, the fault ran (exit 0)" test "$(json_get "$T_TMP/ro.json" faults.0.exit_status 2>/dev/null)" = 0
    python3 "$DG_ROOT/tests/report_check.py" causes "$T_TMP/ro.json" read_only \
        "read-only: every error of the run on a database made read-only is counted under read_only" | relay
    check "read-only: the first error is the server's refusal (25006)" grep -q "fatal error 25006: .*read-only transaction" \
        <(json_get "$T_TMP/ro.json" error 2>/dev/null)
    id=$(json_get "$T_TMP/ro.json" run_id 2>/dev/null)
    run_dg "$T_TMP/ro.csv" "$T_TMP/ro-csv.err" report "${id:-0}" --format csv --results "$RES"
    check "read-only: the CSV's new_order row has them under errors_read_only" python3 -c '
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["kind"] == "txn" and r["type"] == "new_order"]
sys.exit(not (len(rows) == 1 and int(rows[0]["errors"]) > 0 and rows[0]["errors_read_only"] == rows[0]["errors"]))' "$T_TMP/ro.csv"
    "${PSQL[@]}" "$DG_PG_ADMIN_URL" -c "DROP DATABASE IF EXISTS $RO" >/dev/null 2>&1
else
    not_ok "read-only database" "could not create a scratch database: $(head -c 200 "$T_TMP/psql.err")"
fi
ro_reset
trap -- "$lib_exit_trap" EXIT

# --- bad targets: exit 2, the problem named, the password never shown ----------------------
expect_exit "unreachable server exits 2" 2 tpcc run --target "postgres://dbgauge@127.0.0.1:1/dbgauge" --duration 2s --results "$RES"
expect_stderr "unreachable server is named" "cannot connect to postgres://dbgauge@127.0.0.1:1/dbgauge"
no_secret "unreachable server: no password in the message" "$T_TMP/last.err" "$DG_PG_PASSWORD"

BAD="postgres://dbgauge:wrong-pass-123@$HOSTPORT/dbgauge"
expect_exit "wrong password exits 2" 2 tpcc run --target "$BAD" --duration 2s --results "$RES"
expect_stderr "wrong password is named" "password authentication failed"
no_secret "wrong password: not in the message" "$T_TMP/last.err" "wrong-pass-123"
expect_exit "wrong password: check exits 2" 2 tpcc check --target "$BAD"
no_secret "wrong password: not in check's message" "$T_TMP/last.err" "wrong-pass-123"

if "${PSQL[@]}" "$DG_PG_ADMIN_URL" -c "DROP DATABASE IF EXISTS dg_e2e_empty" -c "CREATE DATABASE dg_e2e_empty OWNER dbgauge" >"$T_TMP/psql.err" 2>&1; then
    EMPTY="postgres://dbgauge:$DG_PG_PASSWORD@$HOSTPORT/dg_e2e_empty"
    for m in sql procedures; do
        expect_exit "missing schema ($m run) exits 2" 2 tpcc run --target "$EMPTY" --mode "$m" --duration 2s --results "$RES"
        expect_stderr "missing schema ($m run) names the table and the fix" "no usable TPC-C table 'warehouse'.*tpcc load"
        no_secret "missing schema ($m run): no password in the message" "$T_TMP/last.err" "$DG_PG_PASSWORD"
    done
    expect_exit "missing schema: check exits 2" 2 tpcc check --target "$EMPTY"
    expect_stderr "missing schema: check names the table" "warehouse"
    "${PSQL[@]}" "$DG_PG_ADMIN_URL" -c "DROP DATABASE IF EXISTS dg_e2e_empty" >/dev/null 2>&1
else
    not_ok "missing schema" "could not create an empty database: $(head -c 200 "$T_TMP/psql.err")"
fi

expect_exit "procedures mode on SQLite exits 2" 2 tpcc run --target "sqlite:$T_TMP/none.db" --mode procedures --duration 2s --results "$RES"

# --- stored runs keep the target without its password --------------------------------------
WITHPASS="postgres://dbgauge:$DG_PG_PASSWORD@$HOSTPORT/dbgauge"
run_dg "$T_TMP/pw.json" "$T_TMP/pw.err" tpcc run --target "$WITHPASS" --mode procedures --vus 1 --txns-per-vu 200 --results "$RES" --json
check_exit "run with the password in the URL exits 0" 0
id=$(json_get "$T_TMP/pw.json" run_id 2>/dev/null)
run_dg "$T_TMP/show.json" "$T_TMP/show.err" runs show "$id" --json --results "$RES"
check_exit "runs show exits 0" 0
check "stored target is redacted" test "$(json_get "$T_TMP/show.json" target 2>/dev/null)" = "postgres://dbgauge:***@$HOSTPORT/dbgauge"
check "stored run records the engine" test "$(json_get "$T_TMP/show.json" engine 2>/dev/null)" = postgresql
no_secret "stored run holds no password" "$T_TMP/show.json" "$DG_PG_PASSWORD"
no_secret "run output holds no password" "$T_TMP/pw.err" "$DG_PG_PASSWORD"
if sqlite3 "$RES" .dump 2>/dev/null | grep -qF -- "$DG_PG_PASSWORD"; then
    not_ok "results database holds no password" "found in the dump"
else ok "results database holds no password"; fi
check_passes "check after all runs passes"

# --- the set-based Delivery function -------------------------------------------------------
# One call delivers the oldest new order of each of the ten districts.
before=$("${PSQL[@]}" "$TGT" -c "SELECT count(*) FROM new_order WHERE no_w_id = 1")
skipped=$("${PSQL[@]}" "$TGT" -c "SELECT dbgauge_delivery(1, 7)" 2>&1)
after=$("${PSQL[@]}" "$TGT" -c "SELECT count(*) FROM new_order WHERE no_w_id = 1")
check "delivery call skips no district" test "$skipped" = 0
check "delivery call takes one new order from each district" test "$((before - after))" = 10
check_passes "check after a direct delivery call passes"
# A new order taken by another transaction while this Delivery waits for its row lock:
# the function gives up with 40001 (the runner retries it) instead of skipping the district.
"${PSQL[@]}" "$TGT" >/dev/null 2>&1 <<'SQL' &
BEGIN;
DELETE FROM new_order WHERE no_w_id = 2 AND no_d_id = 1
    AND no_o_id = (SELECT min(no_o_id) FROM new_order WHERE no_w_id = 2 AND no_d_id = 1);
SELECT pg_sleep(2);
COMMIT;
SQL
holder=$!
sleep 0.7
out=$(psql -X -q -At -v VERBOSITY=verbose "$TGT" -c "SELECT dbgauge_delivery(2, 7)" 2>&1)
wait "$holder"
if grep -q "40001" <<<"$out"; then ok "delivery whose new order was taken raises 40001"; else
    not_ok "delivery whose new order was taken raises 40001" "got: $(head -c 300 <<<"$out")"
fi

finish
