#!/usr/bin/env bash
# odbc.sh — the ODBC driver end to end through unixODBC's real drivers: TPC-C load, check, run,
# check and query stress on PostgreSQL (psqlodbc), SQLite (sqliteodbc) and MariaDB (MariaDB
# Connector/ODBC), DSN-less strings, the password from DG_ODBC_PASSWORD, never shown. Reads the
# servers tests/run.sh started; a server or driver that is missing is a `not ok`, never a pass.
. "$(dirname "$0")/../lib.sh"

ENV_FILE=${DG_SERVERS_ENV:-$DG_ROOT/tests/out/servers.env}
# shellcheck disable=SC1090
[[ -f $ENV_FILE ]] && . "$ENV_FILE"
RES=$T_TMP/results.db

# so_path PACKAGE NAME: the driver library a Debian package installed
so_path() { dpkg -L "$1" 2>/dev/null | grep -m1 "/$2\$"; }
PG_SO=$(so_path odbc-postgresql psqlodbcw.so)
SQLITE_SO=$(so_path libsqliteodbc libsqlite3odbc.so)
MY_SO=$(so_path odbc-mariadb libmaodbc.so)

no_secret() {
    if grep -qF -- "$3" "$2"; then not_ok "$1" "$(basename "$2") contains the password"; else ok "$1"; fi
}

# tpcc_cycle NAME TARGET MODE SETTING=VALUE: load 1 warehouse (its session settings recorded,
# SETTING among them: the engine's own, as its native driver sets them), check, a 5 s run with
# 3 users (each kind of transaction commits: at 4% a kind, none in some hundreds is
# improbable), check
tpcc_cycle() {
    local e=$1 tgt=$2 mode=${3:-sql} want=$4
    run_dg "$T_TMP/$e.load.json" "$T_TMP/$e.load.err" tpcc load --target "$tgt" --warehouses 1 --jobs 2 --drop --json
    check_exit "$e: tpcc load exits 0" 0
    [[ $RC == 0 ]] || { echo "# $(tail -c 400 "$T_TMP/$e.load.err")"; return; }
    check "$e: the load records its session settings, $want among them ($(json_get "$T_TMP/$e.load.json" load_settings 2>/dev/null))" \
        test "$(json_get "$T_TMP/$e.load.json" "load_settings.${want%%=*}" 2>/dev/null)" = "${want#*=}"
    num_cmp "$e: load reports its rows" "$(json_get "$T_TMP/$e.load.json" rows 2>/dev/null || echo 0)" ">" 500000
    run_dg "$T_TMP/$e.check.json" "$T_TMP/$e.check.err" tpcc check --target "$tgt" --json
    check "$e: check after load passes" test "$RC:$(json_get "$T_TMP/$e.check.json" pass 2>/dev/null)" = 0:True
    run_dg "$T_TMP/$e.run.json" "$T_TMP/$e.run.err" tpcc run --target "$tgt" --mode "$mode" --vus 3 \
        --duration 5s --results "$RES" --json --label "odbc $e"
    check_exit "$e: $mode run exits 0" 0
    [[ $RC == 0 ]] || echo "# $(tail -c 400 "$T_TMP/$e.run.err")"
    num_cmp "$e: NOPM > 0" "$(json_get "$T_TMP/$e.run.json" nopm 2>/dev/null || echo 0)" ">" 0
    check "$e: no errors" test "$(sum_field "$T_TMP/$e.run.json" errors 2>/dev/null)" = 0
    num_cmp "$e: client CPU is reported" "$(json_get "$T_TMP/$e.run.json" client_cpu_seconds 2>/dev/null || echo 0)" ">" 0
    for t in new_order payment order_status delivery stock_level; do
        num_cmp "$e: $t committed" "$(json_get "$T_TMP/$e.run.json" "transactions.$t.count" 2>/dev/null || echo 0)" ">" 0
    done
    run_dg "$T_TMP/$e.check2.json" "$T_TMP/$e.check2.err" tpcc check --target "$tgt" --json
    check "$e: check after the run passes" test "$RC:$(json_get "$T_TMP/$e.check2.json" pass 2>/dev/null)" = 0:True
}

# stress_cycle NAME TARGET: prepare 20,000 rows, a 1,2-thread sweep reads exactly what it should
stress_cycle() {
    local e=$1 tgt=$2
    expect_exit "$e: stress prepare" 0 stress prepare --target "$tgt" --rows 20000 --drop
    run_dg "$T_TMP/$e.s.json" "$T_TMP/$e.s.err" stress --target "$tgt" --threads 1,2 --iterations 2 --results "$RES" --json
    check_exit "$e: stress sweep exits 0" 0
    check "$e: stress reads 40,000 and 80,000 rows" test "$(python3 -c 'import json,sys; print([s["rows"] for s in json.load(open(sys.argv[1]))["steps"]])' "$T_TMP/$e.s.json" 2>&1)" = "[40000, 80000]"
    expect_exit "$e: stress drop" 0 stress drop --target "$tgt"
}

# --- PostgreSQL through psqlodbc --------------------------------------------------------
if [[ -z $PG_SO ]]; then
    not_ok "odbc-postgresql" "psqlodbcw.so not installed (odbc-postgresql)"
elif [[ -z ${DG_PG_PORT:-} || -z ${DG_PG_ADMIN_URL:-} ]]; then
    not_ok "odbc/pgsql" "no PostgreSQL server (DG_PG_PORT unset)"
else
    psql -X -q -At "$DG_PG_ADMIN_URL" -c "DROP DATABASE IF EXISTS dg_odbc" -c "CREATE DATABASE dg_odbc OWNER dbgauge" >"$T_TMP/psql.err" 2>&1 ||
        not_ok "odbc/pgsql: a database of its own" "$(head -c 200 "$T_TMP/psql.err")"
    export DG_ODBC_PASSWORD=$DG_PG_PASSWORD
    PGT="odbc:Driver=$PG_SO;Server=127.0.0.1;Port=$DG_PG_PORT;Database=dg_odbc;UID=dbgauge"
    tpcc_cycle pgsql "$PGT" sql maintenance_work_mem=256MB
    check "pgsql: the engine is PostgreSQL" test "$(json_get "$T_TMP/pgsql.run.json" engine 2>/dev/null)" = postgresql
    # psqlodbc runs a step's statements as one joined text (one round trip), and says so
    check "pgsql: steps joined into one text, recorded" \
        test "$(json_get "$T_TMP/pgsql.run.json" settings.odbc_step 2>/dev/null)" = "one joined text per step (dg_batch=auto)"
    # dg_batch=off: one prepared statement per round trip, taken out of the string the driver sees
    run_dg "$T_TMP/nobatch.json" "$T_TMP/nobatch.err" tpcc run --target "$PGT;dg_batch=off" --vus 2 \
        --duration 4s --results "$RES" --json
    check_exit "pgsql: dg_batch=off run exits 0" 0
    [[ $RC == 0 ]] || echo "# $(tail -c 400 "$T_TMP/nobatch.err")"
    check "pgsql: dg_batch=off recorded" \
        test "$(json_get "$T_TMP/nobatch.json" settings.odbc_step 2>/dev/null)" = "one prepared statement per round trip"
    check "pgsql: dg_batch=off run has no errors" test "$(sum_field "$T_TMP/nobatch.json" errors 2>/dev/null)" = 0
    run_dg "$T_TMP/check3.json" "$T_TMP/check3.err" tpcc check --target "$PGT" --json
    check "pgsql: check after the dg_batch=off run passes" test "$RC:$(json_get "$T_TMP/check3.json" pass 2>/dev/null)" = 0:True
    expect_exit "pgsql: dg_batch=maybe exits 2" 2 tpcc run --target "$PGT;dg_batch=maybe" --duration 2s --results "$RES"
    expect_stderr "pgsql: dg_batch=maybe is named" "dg_batch=maybe in the ODBC string: expected auto or off"
    # procedures mode works through ODBC where the engine behind it has them
    run_dg "$T_TMP/proc.json" "$T_TMP/proc.err" tpcc run --target "$PGT" --mode procedures --vus 2 --duration 5s --results "$RES" --json
    check_exit "pgsql: procedures run through ODBC exits 0" 0
    num_cmp "pgsql: procedures run NOPM > 0" "$(json_get "$T_TMP/proc.json" nopm 2>/dev/null || echo 0)" ">" 0
    stress_cycle pgsql "$PGT"
    # the password never appears: output, stored runs, the results database
    id=$(json_get "$T_TMP/pgsql.run.json" run_id 2>/dev/null)
    run_dg "$T_TMP/show.json" "$T_TMP/show.err" runs show "$id" --json --results "$RES"
    check "pgsql: stored target as given (no password in it)" test "$(json_get "$T_TMP/show.json" target 2>/dev/null)" = "$PGT"
    for f in pgsql.load.err pgsql.run.err pgsql.run.json show.json; do
        no_secret "pgsql: no password in $f" "$T_TMP/$f" "$DG_PG_PASSWORD"
    done
    WITHPW="$PGT;PWD=$DG_PG_PASSWORD"
    unset DG_ODBC_PASSWORD
    run_dg "$T_TMP/pw.json" "$T_TMP/pw.err" tpcc run --target "$WITHPW" --vus 1 --txns-per-vu 50 --results "$RES" --json
    check_exit "pgsql: PWD= in the string works" 0
    no_secret "pgsql: PWD= not in the output" "$T_TMP/pw.err" "$DG_PG_PASSWORD"
    check "pgsql: PWD= stored redacted" test "$(json_get "$T_TMP/pw.json" target 2>/dev/null)" = "$PGT;PWD=***"
    if sqlite3 "$RES" .dump 2>/dev/null | grep -qF -- "$DG_PG_PASSWORD"; then
        not_ok "pgsql: results database holds no password" "found in the dump"
    else ok "pgsql: results database holds no password"; fi
    expect_exit "pgsql: wrong password exits 2" 2 tpcc run --target "$PGT;PWD=wrong-odbc-77" --duration 2s --results "$RES"
    expect_stderr "pgsql: wrong password is named" "password authentication failed"
    no_secret "pgsql: wrong password not shown" "$T_TMP/last.err" "wrong-odbc-77"
    # a driver message that would carry the password (the user name is the same text): scrubbed
    SAME="odbc:Driver=$PG_SO;Server=127.0.0.1;Port=$DG_PG_PORT;Database=dg_odbc;UID=zz-pw-4242;PWD={zz-pw-4242}"
    expect_exit "pgsql: a message holding the PWD= text exits 2" 2 tpcc check --target "$SAME"
    no_secret "pgsql: the PWD= text is scrubbed from the driver's message" "$T_TMP/last.err" "zz-pw-4242"
    expect_stderr "pgsql: the scrubbed message keeps the rest" 'password authentication failed for user "\*\*\*"'
    psql -X -q "$DG_PG_ADMIN_URL" -c "DROP DATABASE IF EXISTS dg_odbc" >/dev/null 2>&1
fi

# --- SQLite through sqliteodbc -----------------------------------------------------------
if [[ -z $SQLITE_SO ]]; then
    not_ok "libsqliteodbc" "libsqlite3odbc.so not installed (libsqliteodbc)"
else
    SQT="odbc:Driver=$SQLITE_SO;Database=$T_TMP/odbc.db;Timeout=10000"
    tpcc_cycle sqlite "$SQT" sql synchronous=OFF
    check "sqlite: the engine is SQLite" test "$(json_get "$T_TMP/sqlite.run.json" engine 2>/dev/null)" = sqlite
    stress_cycle sqlite "$SQT"
    # an experiment through ODBC: a job file's target is the ODBC string (its ';' are not comments)
    printf '[global]\ntarget=%s\nvus=1,2\nduration=2s\nwarmup=0s\n' "$SQT" >"$T_TMP/odbc.ini"
    run_dg "$T_TMP/exp.json" "$T_TMP/exp.err" experiment "$T_TMP/odbc.ini" --results "$RES" --json
    check_exit "sqlite: experiment through ODBC exits 0" 0
    [[ $RC == 0 ]] || echo "# $(tail -c 400 "$T_TMP/exp.err")"
    check "sqlite: experiment stored two steps, each with NOPM > 0 and the ODBC target" python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); steps = d["steps"]
assert len(steps) == 2, steps
for s in steps:
    assert s["nopm"] > 0 and s["status"] == "complete", s
    assert s["summary"]["target"] == sys.argv[2], s["summary"]["target"]
assert [s["vus"] for s in steps] == ["1", "2"], steps
' "$T_TMP/exp.json" "$SQT"
    expect_exit "sqlite: procedures mode exits 2" 2 tpcc run --target "$SQT" --mode procedures --duration 2s --results "$RES"
    expect_stderr "sqlite: procedures mode says why" "no stored procedures"
fi

# --- MariaDB through Connector/ODBC (server from tests/servers.sh start mariadb) -----------
if [[ -z $MY_SO ]]; then
    not_ok "odbc-mariadb" "libmaodbc.so not installed (odbc-mariadb)"
elif [[ -z ${DG_MY_PORT:-} ]]; then
    not_ok "odbc/mariadb" "no MariaDB server (DG_MY_PORT unset: tests/servers.sh start mariadb)"
else
    export DG_ODBC_PASSWORD=${DG_MY_PASSWORD:-}
    MYT="odbc:Driver=$MY_SO;Server=127.0.0.1;Port=$DG_MY_PORT;Database=dbgauge;UID=dbgauge"
    tpcc_cycle mariadb "$MYT" sql foreign_key_checks=0
    check "mariadb: statements one per round trip (no joined text through this driver)" \
        test "$(json_get "$T_TMP/mariadb.run.json" settings.odbc_step 2>/dev/null)" = "one prepared statement per round trip"
    run_dg "$T_TMP/myproc.json" "$T_TMP/myproc.err" tpcc run --target "$MYT" --mode procedures --vus 2 --duration 5s --results "$RES" --json
    check_exit "mariadb: procedures run through ODBC exits 0" 0
    [[ $RC == 0 ]] || echo "# $(tail -c 400 "$T_TMP/myproc.err")"
    num_cmp "mariadb: procedures run NOPM > 0" "$(json_get "$T_TMP/myproc.json" nopm 2>/dev/null || echo 0)" ">" 0
    stress_cycle mariadb "$MYT"
    unset DG_ODBC_PASSWORD
fi

# --- bad targets: exit 2 and the part that is wrong named ---------------------------------
expect_exit "odbc: an empty target exits 2" 2 tpcc run --target "odbc:" --duration 2s --results "$RES"
expect_stderr "odbc: an empty target is explained" "odbc:DSN=NAME"
expect_exit "odbc: a missing driver library exits 2" 2 tpcc check --target "odbc:Driver=/nonexistent/libnone.so;Database=x"
expect_stderr "odbc: a missing driver library is named" "libnone|IM0|Can't open lib"
expect_exit "odbc: an unknown DSN exits 2" 2 tpcc check --target "odbc:DSN=dg_no_such_dsn"
expect_stderr "odbc: an unknown DSN is named" "IM002|not found"

finish
