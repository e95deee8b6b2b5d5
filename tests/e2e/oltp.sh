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
    echo "# $name: $(grep -c '^ok - ' "$T_TMP/$name.out") passed, $(grep -c '^not ok - ' "$T_TMP/$name.out") failed"
}

# cli NAME URL: `dbgauge oltp prepare|run|cleanup` on one target: exit codes, messages, JSON.
cli() {
    local e=$1 url=$2 o=(--target "$2" --tables 2 --table-size 1000)
    "$DG" oltp cleanup "${o[@]}" >/dev/null 2>&1
    expect_exit "$e: oltp run --test nope exits 2" 2 oltp run "${o[@]}" --test nope --results "$T_TMP/r.db"
    expect_stderr "$e: an unknown --test is named" "nope"
    expect_exit "$e: oltp run before prepare exits 2" 2 oltp run "${o[@]}" --txns-per-vu 1 --results "$T_TMP/r.db"
    if [[ $e == *sqlite ]]; then # a missing file is refused by the run life before oltp sees it
        expect_stderr "$e: run before prepare says the database must exist" "must exist|oltp prepare"
    else
        expect_stderr "$e: run before prepare says 'oltp prepare'" "oltp prepare"
    fi
    run_dg "$T_TMP/p.json" "$T_TMP/p.err" oltp prepare "${o[@]}" --threads 2 --seed 3 --json
    check "$e: oltp prepare 2 x 1000 rows exits 0" test "$RC/$(json_get "$T_TMP/p.json" rows 2>/dev/null)" = 0/2000
    expect_exit "$e: oltp prepare again exits 2" 2 oltp prepare "${o[@]}"
    expect_stderr "$e: prepare again says cleanup" "cleanup"
    run_dg "$T_TMP/r.json" "$T_TMP/r.err" oltp run "${o[@]}" --test read_write --threads 2 --txns-per-vu 50 \
        --no-monitor --results "$T_TMP/r.db" --json
    check "$e: oltp run read_write 2 threads x 50 exits 0" test "$RC" = 0
    python3 - "$T_TMP/r.json" "$e" >"$T_TMP/py.out" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); e = sys.argv[2]; t = d["transactions"]
ok = lambda c, m: print(("ok" if c else "not ok") + f" - {e}: {m}")
ok(d["workload"] == "oltp" and t["read_write"]["committed"] == 100 and
   sum(v["committed"] for k, v in t.items() if k != "read_write") == 0,
   f"JSON: 100 read_write committed, no other type ({t['read_write']['committed']})")
figs = d.get("figures")
if isinstance(figs, list):
    figs = {f["name"]: f["value"] for f in figs}
if figs and "tps" in figs:
    ok(abs(figs["qps"] - 20 * figs["tps"]) < 1e-6 * figs["qps"] + 1e-9, f"JSON: qps = 20 x tps ({figs})")
    ok(abs(figs["reads_per_s"] - 14 * figs["tps"]) < 1e-6 * figs["qps"] + 1e-9, "JSON: reads/s = 14 x tps")
else:
    print(f"skip - {e}: JSON figures (tps, qps): not in this build's run JSON yet")
q = d.get("queries")
if q:
    ok(q["read"] == 1400 and q["write"] == 400 and q["other"] == 200 and q["total"] == 2000,
       f"JSON queries: read 1400, write 400, other 200, total 2000 ({q})")
else:
    print(f"skip - {e}: JSON queries {{read, write, other, total}}: not in this build's run JSON yet")
PY
    relay < <(grep -E '^(ok|not ok) - ' "$T_TMP/py.out")
    grep '^skip - ' "$T_TMP/py.out"
    expect_exit "$e: oltp run point_select for 1 s exits 0" 0 oltp run "${o[@]}" --test point_select --duration 1s \
        --no-monitor --results "$T_TMP/r.db"
    expect_exit "$e: oltp cleanup exits 0" 0 oltp cleanup "${o[@]}"
    expect_exit "$e: oltp run after cleanup exits 2" 2 oltp run "${o[@]}" --txns-per-vu 1 --results "$T_TMP/r.db"
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
# The command line (src/workloads/oltp/cli.c) exists once this branch is merged with the option
# tables of wt-cli; before that, one visible skip.
if "$DG" oltp --help >/dev/null 2>&1; then
    cli cli-sqlite "sqlite:$T_TMP/cli.db"
    [[ -z ${DG_NO_PG:-} && -n ${DG_PG_URL:-} ]] && cli cli-pgsql "postgres://dbgauge:$DG_PG_PASSWORD@127.0.0.1:$DG_PG_PORT/dbgauge"
    [[ -z ${DG_NO_MY:-} && -n ${DG_MY_URL:-} ]] && cli cli-mysql "mysql://dbgauge:$DG_MY_PASSWORD@127.0.0.1:$DG_MY_PORT/dbgauge"
else
    echo "skip - cli: this dbgauge has no 'oltp' command (src/workloads/oltp/cli.c is built after the merge with wt-cli)"
fi
finish
