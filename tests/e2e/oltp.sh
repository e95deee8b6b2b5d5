#!/usr/bin/env bash
# oltp.sh — the sysbench OLTP workload on every engine: runs the test_oltp program (prepare,
# every test through the runner, the server's statement counters, cleanup) against SQLite,
# PostgreSQL and MariaDB, natively and through ODBC. The caller (tests/run.sh) starts and stops
# the servers; this only reads their env file, and never skips an engine silently.
. "$(dirname "$0")/../lib.sh"

PROG=$(dirname "$DG")/tests/test_oltp
[[ -x $PROG ]] || { not_ok "test_oltp built" "no $PROG"; finish; exit 1; }
env_file=${DG_SERVERS_ENV:-$DG_ROOT/tests/out/servers.env}
# shellcheck disable=SC1090
[[ -z ${DG_PG_URL:-}${DG_MY_URL:-} && -f $env_file ]] && . "$env_file"

# suite NAME URL: the program's checks, each named after the engine
suite() {
    local name=$1 url=$2
    "$PROG" "$url" >"$T_TMP/$name.out" 2>&1
    local rc=$?
    sed -n 's/^\(ok\|not ok\|skip\) - /&'"$name"': /p' "$T_TMP/$name.out" >"$T_TMP/$name.lines"
    relay < <(grep -E '^(ok|not ok) - ' "$T_TMP/$name.lines")
    grep '^skip - ' "$T_TMP/$name.lines"
    grep '^# ' "$T_TMP/$name.out"
    if [[ $rc != 0 ]] && ! grep -q '^not ok' "$T_TMP/$name.out"; then
        not_ok "$name: test_oltp exited $rc" "$(tail -n 5 "$T_TMP/$name.out")"
    fi
}

suite sqlite "sqlite:$T_TMP/oltp.db"
if [[ -n ${DG_NO_PG:-} ]]; then
    echo "# pgsql: not run (--no-pg)"
elif [[ -n ${DG_PG_URL:-} ]]; then
    suite pgsql "postgres://dbgauge:$DG_PG_PASSWORD@127.0.0.1:$DG_PG_PORT/dbgauge"
else
    not_ok "pgsql" "no PostgreSQL server (DG_PG_URL unset)"
fi
if [[ -n ${DG_NO_MY:-} ]]; then
    echo "# mysql: not run (--no-my)"
elif [[ -n ${DG_MY_URL:-} ]]; then
    suite mysql "mysql://dbgauge:$DG_MY_PASSWORD@127.0.0.1:$DG_MY_PORT/dbgauge"
else
    not_ok "mysql" "no MariaDB server (DG_MY_URL unset)"
fi

# ODBC: the dialect comes from the connection (unixODBC drivers named by their library).
odbc_so() { dpkg -L "$1" 2>/dev/null | grep -m1 "/$2\$"; }
if grep -q "DG_HAVE_ODBC 1" "$(dirname "$DG")/dg_config.h" 2>/dev/null; then
    so=$(odbc_so libsqliteodbc libsqlite3odbc.so)
    [[ -n $so ]] && suite odbc-sqlite "odbc:Driver=$so;Database=$T_TMP/oltp-odbc.db;Timeout=2000"
    so=$(odbc_so odbc-postgresql psqlodbcw.so)
    [[ -n $so && -z ${DG_NO_PG:-} && -n ${DG_PG_PORT:-} ]] &&
        suite odbc-pgsql "odbc:Driver=$so;Server=127.0.0.1;Port=$DG_PG_PORT;Database=dbgauge;UID=dbgauge;PWD=$DG_PG_PASSWORD"
    so=$(odbc_so odbc-mariadb libmaodbc.so)
    [[ -n $so && -z ${DG_NO_MY:-} && -n ${DG_MY_PORT:-} ]] &&
        suite odbc-mariadb "odbc:Driver=$so;Server=127.0.0.1;Port=$DG_MY_PORT;Database=dbgauge;UID=dbgauge;PWD=${DG_MY_PASSWORD:-}"
fi
finish
