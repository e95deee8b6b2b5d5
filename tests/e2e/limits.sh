#!/usr/bin/env bash
# limits.sh — database limits on real servers, per engine (PostgreSQL, MariaDB): a limit of
# connections reached before the run starts (the server's text and the connections the run
# needs, exit 2), a statement timeout (every iteration fails: counted as timeout, stored and read
# back), a server that closes idle sessions (counted as closed_by_server; the workers reconnect
# and commit again). Each limit is set on the test role or user and put back afterwards, also
# when a check fails or the script is killed (a trap). The caller (tests/run.sh) starts and
# stops the servers; this reads their env file and never skips an engine silently.
. "$(dirname "$0")/../lib.sh"

env_file=${DG_SERVERS_ENV:-$DG_ROOT/tests/out/servers.env}
# shellcheck disable=SC1090
[[ -z ${DG_PG_URL:-}${DG_MY_URL:-} && -f $env_file ]] && . "$env_file"
RES=$T_TMP/results.db

pg_admin() { psql -X -q -v ON_ERROR_STOP=1 -At "$DG_PG_ADMIN_URL" -c "$1"; }
my_admin() { env -u MYSQL_PWD mariadb -h127.0.0.1 -P"$DG_MY_PORT" -uroot -N -B -e "$1"; }

# Every limit this script sets, put back (each statement on its own: one failing keeps none
# of the others from running).
restore() {
    if [[ -n ${pg_on:-} ]]; then
        pg_admin "ALTER ROLE dbgauge CONNECTION LIMIT -1"
        pg_admin "ALTER ROLE dbgauge RESET statement_timeout"
        pg_admin "ALTER ROLE dbgauge RESET idle_session_timeout"
    fi
    if [[ -n ${my_on:-} ]]; then
        my_admin "ALTER USER 'dbgauge'@'%' WITH MAX_USER_CONNECTIONS 0"
        my_admin "ALTER USER 'dbgauge'@'%' WITH MAX_STATEMENT_TIME 0"
        [[ -n ${my_wait0:-} ]] && my_admin "SET GLOBAL wait_timeout = $my_wait0"
    fi
} >/dev/null 2>&1
trap 'restore; [[ -n ${DG_KEEP_TMP:-} ]] || rm -rf "$T_TMP"' EXIT
trap 'exit 1' INT TERM

# connection_limit E URL SET SERVER_SAYS: a run of 4 threads against a limit of 2 connections
# does not start: exit 2 (as for any target that refuses us), the server's text, and how many
# connections the run holds at once (with and without the monitor's); with the limit put back
# the same run starts.
connection_limit() {
    local e=$1 url=$2 set=$3 says=$4
    "${e}_admin" "$set" >/dev/null || not_ok "$e: the connection limit is set" "$set failed"
    local run=(stress --target "$url" --query "SELECT 1" --threads 4 --iterations 5 --results "$RES")
    expect_exit "$e: a run needing more connections than the limit allows exits 2" 2 "${run[@]}"
    expect_stderr "$e: the error carries the server's text naming its limit" "$says"
    expect_stderr "$e: the error says how many connections the run holds at once" \
        "the run needs 7 connections at once \(4 for the virtual users, 2 for the monitor: none with --no-monitor, 1 for the workload's own\)"
    expect_exit "$e: without the monitor too (exit 2)" 2 "${run[@]}" --no-monitor
    expect_stderr "$e: without the monitor the run needs 5" \
        "the run needs 5 connections at once \(4 for the virtual users, 1 for the workload's own\)"
    restore
    expect_exit "$e: with the limit put back the same run starts (exit 0)" 0 "${run[@]}"
}

# statement_timeout E URL SET QUERY: each iteration outlives the timeout: the run's errors are
# all timeouts, in its JSON, its text, the stored run read back (text, JSON, HTML, CSV, the
# column).
statement_timeout() {
    local e=$1 url=$2 set=$3 query=$4
    "${e}_admin" "$set" >/dev/null || not_ok "$e: the statement timeout is set" "$set failed"
    run_dg "$T_TMP/$e-st.json" "$T_TMP/$e-st.err" stress --target "$url" --query "$query" --threads 2 --iterations 3 \
        --results "$RES" --json
    restore
    check_exit "$e: a run whose every iteration timed out exits 1" 1
    local errors timeouts id
    errors=$(json_get "$T_TMP/$e-st.json" steps.0.errors 2>/dev/null)
    timeouts=$(json_get "$T_TMP/$e-st.json" steps.0.error_causes.timeout 2>/dev/null)
    check "$e: its JSON counts 6 errors, all under error_causes.timeout ($timeouts of $errors)" \
        test "${errors:-x}" = 6 -a "${timeouts:-y}" = 6
    check "$e: its step line says the cause" grep -q "6 iterations failed (timeout 6): " "$T_TMP/$e-st.err"
    id=$(json_get "$T_TMP/$e-st.json" steps.0.run_id 2>/dev/null)
    run_dg "$T_TMP/$e-show.txt" "$T_TMP/$e-show.err" runs show "${id:-0}" --results "$RES"
    check "$e: runs show of the stored run says 'errors by cause: timeout 6'" \
        grep -qx "  errors by cause: timeout 6" "$T_TMP/$e-show.txt"
    run_dg "$T_TMP/$e-show.json" "$T_TMP/$e-show.err" runs show "${id:-0}" --results "$RES" --json
    check "$e: its JSON read back has error_causes.timeout = errors = 6" test \
        "$(json_get "$T_TMP/$e-show.json" transactions.query.error_causes.timeout 2>/dev/null)/$(json_get "$T_TMP/$e-show.json" transactions.query.errors 2>/dev/null)" = 6/6
    check "$e: run_txn.errors_timeout holds 6" \
        test "$(sqlite3 "$RES" "SELECT errors_timeout FROM run_txn WHERE run_id = ${id:-0}")" = 6
    run_dg "$T_TMP/$e-html.out" "$T_TMP/$e-html.err" report "${id:-0}" --results "$RES" -o "$T_TMP/$e-st.html"
    check "$e: the HTML report says 'errors by cause: timeout 6'" grep -qF "errors by cause: timeout 6<" "$T_TMP/$e-st.html"
    run_dg "$T_TMP/$e-st.csv" "$T_TMP/$e-csv.err" report "${id:-0}" --format csv --results "$RES"
    check "$e: the CSV's txn row has errors_timeout 6, errors_other 0" python3 -c '
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["kind"] == "txn"]
sys.exit(not (len(rows) == 1 and rows[0]["errors_timeout"] == "6" and rows[0]["errors_other"] == "0"))' "$T_TMP/$e-st.csv"
}

# idle_close E URL SET RATE SAYS: one user at RATE transactions/s (Poisson, fixed seed) with a
# server that closes sessions idle longer than the gaps often are: the closes are errors under
# closed_by_server (all of them), the first named with the server's reason; each is followed
# by a reconnect and commits after it. oltp fails a run with errors (exit 1): stored failed.
idle_close() {
    local e=$1 url=$2 set=$3 rate=$4 says=$5
    "$DG" oltp cleanup --target "$url" --tables 1 >/dev/null 2>&1
    expect_exit "$e: oltp prepare (1 table of 100 rows) for the idle test" 0 oltp prepare --target "$url" --tables 1 \
        --table-size 100
    "${e}_admin" "$set" >/dev/null || not_ok "$e: the idle timeout is set" "$set failed"
    run_dg "$T_TMP/$e-idle.json" "$T_TMP/$e-idle.err" oltp --target "$url" --test point_select --tables 1 \
        --table-size 100 --threads 1 --rate "$rate" --duration 12s --seed 7 --results "$RES" --json
    restore
    check "$e: the run with idle closes exits 1 (oltp: errors fail it) and is stored failed" \
        test "$RC/$(json_get "$T_TMP/$e-idle.json" status 2>/dev/null)" = 1/failed
    local id
    id=$(json_get "$T_TMP/$e-idle.json" run_id 2>/dev/null)
    run_dg "$T_TMP/$e-series.json" "$T_TMP/$e-series.err" runs show "${id:-0}" --series --json --results "$RES"
    python3 - "$T_TMP/$e-series.json" "$e" <<'PY' | relay
import json, sys
d = json.load(open(sys.argv[1])); e = sys.argv[2]
x = d["transactions"]["point_select"]; c = x.get("error_causes", {})
def ok(cond, name): print(("ok - " if cond else "not ok - ") + f"{e}: {name}")
ok(x["errors"] > 0 and c.get("closed_by_server") == x["errors"],
   f"every close is an error under closed_by_server ({c.get('closed_by_server')} of {x['errors']})")
s = d["series"]
first = next((p["second"] for p in s if p["transactions"]["point_select"]["errors"]), None)
after = sum(p["transactions"]["point_select"]["committed"] for p in s if first is not None and p["second"] > first)
ok(after > 0, f"commits after the first close (second {first}): {after}")
rec = sum(p.get("reconnects", 0) for p in s)
ok(rec >= x["errors"] > 0, f"a reconnect after each close: {rec} reconnects, {x['errors']} errors")
PY
    check "$e: the first error names the server's reason" grep -qE "$says" <(json_get "$T_TMP/$e-idle.json" error 2>/dev/null)
    run_dg "$T_TMP/$e-idle.txt" "$T_TMP/$e-idle.err2" runs show "${id:-0}" --results "$RES"
    check "$e: runs show says 'errors by cause: closed_by_server N'" \
        grep -qE "^  errors by cause: closed_by_server [1-9][0-9]*$" "$T_TMP/$e-idle.txt"
    "$DG" oltp cleanup --target "$url" --tables 1 >/dev/null 2>&1
}

if [[ -n ${DG_NO_PG:-} ]]; then
    echo "# pgsql: not run (--no-pg)"
elif [[ -n ${DG_PG_URL:-} ]]; then
    export PGPASSWORD=$DG_PG_PASSWORD
    pg_on=1
    restore
    connection_limit pg "$DG_PG_URL" "ALTER ROLE dbgauge CONNECTION LIMIT 2" 'too many connections for role "dbgauge"'
    statement_timeout pg "$DG_PG_URL" "ALTER ROLE dbgauge SET statement_timeout = '100ms'" "SELECT pg_sleep(0.2)"
    # PostgreSQL 14+ ends a session idle longer than idle_session_timeout with 57P05.
    idle_close pg "$DG_PG_URL" "ALTER ROLE dbgauge SET idle_session_timeout = '500ms'" 2 \
        "connection error 57P05: .*terminating connection due to idle-session timeout"
else
    not_ok "pgsql" "no PostgreSQL server (DG_PG_URL unset)"
fi

if [[ -n ${DG_NO_MY:-} ]]; then
    echo "# mysql: not run (--no-my)"
elif [[ -n ${DG_MY_URL:-} ]]; then
    export DG_MYSQL_PASSWORD=$DG_MY_PASSWORD
    my_on=1
    my_wait0=$(my_admin "SELECT @@GLOBAL.wait_timeout" 2>/dev/null)
    [[ $my_wait0 =~ ^[0-9]+$ && $my_wait0 -gt 1 ]] || my_wait0=28800 # left at 1 by a killed run: the default
    restore
    # An account's MAX_USER_CONNECTIONS refuses with 1226 (the server-wide max_user_connections
    # with 1203, max_connections with 1040: the same cause).
    connection_limit my "$DG_MY_URL" "ALTER USER 'dbgauge'@'%' WITH MAX_USER_CONNECTIONS 2" \
        "has exceeded the 'max_user_connections' resource \(current value: 2\) \(1226\)"
    statement_timeout my "$DG_MY_URL" "ALTER USER 'dbgauge'@'%' WITH MAX_STATEMENT_TIME 0.1" "SELECT SLEEP(0.2)"
    # MariaDB closes a session idle longer than wait_timeout without a word (2006 at the next
    # statement): the driver tells it from the session's wait_timeout and the time idle.
    idle_close my "$DG_MY_URL" "SET GLOBAL wait_timeout = 1" 1.5 \
        "Server has gone away \(2006\) \(idle [0-9.]+ s: the server closes sessions idle 1 s, wait_timeout\)|\(2013\) \(idle"
else
    not_ok "mysql" "no MariaDB server (DG_MY_URL unset)"
fi
finish
