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
    check_exit "$e: oltp run read_write 2 threads x 50 exits 0" 0
    python3 - "$T_TMP/r.json" "$e" >"$T_TMP/py.out" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); e = sys.argv[2]; t = d["transactions"]
ok = lambda c, m: print(("ok" if c else "not ok") + f" - {e}: {m}")
ok(d["workload"] == "oltp" and t["read_write"]["committed"] == 100 and
   sum(v["committed"] for k, v in t.items() if k != "read_write") == 0,
   f"JSON: 100 read_write committed, no other type ({t['read_write']['committed']})")
figs = {k: d[k] for k in ("tps", "qps", "reads_per_s") if k in d}
ok(len(figs) == 3 and d["tps"] > 0 and abs(d["tps"] - 100 / d["measured_seconds"]) < 1e-6 * d["tps"],
   f"JSON: tps = 100 committed / measured seconds ({figs})")
ok(len(figs) == 3 and abs(figs["qps"] - 20 * figs["tps"]) < 1e-6 * figs["qps"], f"JSON: qps = 20 x tps ({figs})")
ok(len(figs) == 3 and abs(figs["reads_per_s"] - 14 * figs["tps"]) < 1e-6 * figs["qps"], "JSON: reads/s = 14 x tps")
q = d.get("queries") or {}
ok(q.get("read") == 1400 and q.get("write") == 400 and q.get("other") == 200 and q.get("total") == 2000,
   f"JSON queries: read 1400, write 400, other 200, total 2000 ({q})")
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
# The command line (src/workloads/oltp/cli.c) on each engine.
cli cli-sqlite "sqlite:$T_TMP/cli.db"
[[ -z ${DG_NO_PG:-} && -n ${DG_PG_URL:-} ]] && cli cli-pgsql "postgres://dbgauge:$DG_PG_PASSWORD@127.0.0.1:$DG_PG_PORT/dbgauge"
[[ -z ${DG_NO_MY:-} && -n ${DG_MY_URL:-} ]] && cli cli-mysql "mysql://dbgauge:$DG_MY_PASSWORD@127.0.0.1:$DG_MY_PORT/dbgauge"

# An experiment of oltp runs (workload=oltp, a list of tests swept), its report and compare:
# nothing in cmd/ or report/ knows oltp, so this shows the registry, the option table's job-file
# keys and the generic figures at work.
db="sqlite:$T_TMP/exp.db"
"$DG" oltp prepare --target "$db" --tables 2 --table-size 500 >/dev/null 2>&1
cat >"$T_TMP/oltp.ini" <<INI
[global]
workload=oltp
target=$db
tables=2
table_size=500
test=point_select,read_write
threads=2
txns_per_vu=40
no_monitor=1
INI
run_dg "$T_TMP/exp.out" "$T_TMP/exp.err" experiment "$T_TMP/oltp.ini" --results "$T_TMP/exp-results.db" --json
check_exit "experiment workload=oltp, test=point_select,read_write: exits 0" 0
python3 - "$T_TMP/exp.out" >"$T_TMP/exp.py" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
steps = d["steps"]
ok = lambda c, m: print(("ok" if c else "not ok") + f" - {m}")
ok(len(steps) == 2, f"two steps ({len(steps)})")
ok([s.get("test") for s in steps] == ["point_select", "read_write"],
   f"the steps swept test ({[s.get('test') for s in steps]})")
ok(all(s.get("status") == "complete" for s in steps), "both steps complete")
print("# " + json.dumps(steps[0])[:400])
PY
relay < <(grep -E '^(ok|not ok) - ' "$T_TMP/exp.py")
grep '^# ' "$T_TMP/exp.py" | head -2
exp_id=$(sqlite3 "$T_TMP/exp-results.db" "SELECT max(id) FROM experiment")
runs=$(sqlite3 "$T_TMP/exp-results.db" "SELECT group_concat(id, ' ') FROM run WHERE experiment_id = $exp_id ORDER BY id")
read -r r1 r2 <<<"$runs"
check "the experiment stored two oltp runs with their figures" test \
    "$(sqlite3 "$T_TMP/exp-results.db" "SELECT count(DISTINCT run_id) FROM run_figure WHERE name = 'tps' AND run_id IN ($r1, $r2)")" = 2
run_dg "$T_TMP/exp.html" "$T_TMP/exp-html.err" report "exp:$exp_id" --results "$T_TMP/exp-results.db" -o "$T_TMP/exp.html"
check_exit "report exp:N of the oltp experiment exits 0" 0
check "its HTML heads the step table with TPS and QPS" grep -q "TPS.*QPS\|QPS.*TPS" "$T_TMP/exp.html"
run_dg "$T_TMP/r2.json" "$T_TMP/r2.err" report "$r2" --results "$T_TMP/exp-results.db" --format json
check "report RUN --format json of the read_write step has tps and queries.total = 20 x committed" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["items"][0]["runs"][0]
c = r["transactions"]["read_write"]["committed"]
sys.exit(0 if r["tps"] > 0 and r["queries"]["total"] == 20 * c == 20 * 80 else 1)' "$T_TMP/r2.json"
run_dg "$T_TMP/cmp.out" "$T_TMP/cmp.err" compare "$r1" "$r2" --results "$T_TMP/exp-results.db"
check "compare of the two oltp runs shows TPS and its change" grep -Eq "TPS.*[-+][0-9.]+%" "$T_TMP/cmp.out"
finish
