#!/usr/bin/env bash
# live.sh — `--live`: a 26 s SQLite run serves /metrics (read twice mid-run with a strict
# OpenMetrics parser: Debian's python3-prometheus-client), /api/run and the live page (drawn
# by headless Chromium with no script error, updated from /section); the port is closed after
# the run. Bad --live values exit 2 naming the part, a taken port says so. Needs no server.
. "$(dirname "$0")/../lib.sh"

PY=/usr/bin/python3 # Debian's: the parser is a Debian package, not in any other python's path
OUT=$T_OUT
DB=$T_TMP/t.db
RES=$T_TMP/r.db

# ---- bad input -----------------------------------------------------------------------------
expect_exit "--live with a port that is no number exits 2" 2 tpcc run --target "sqlite:$DB" --live 80x
expect_stderr "... and names the port" "--live: port '80x'"
expect_exit "--live with a port above 65535 exits 2" 2 tpcc run --target "sqlite:$DB" --live 70000
expect_exit "--live with a host name instead of an address exits 2" 2 tpcc run --target "sqlite:$DB" --live localhost:9090
expect_stderr "... and names the address" "address 'localhost' is not an IPv4 address"

check "a 1-warehouse database (sqlite_tpcc)" sqlite_tpcc "$DB"

# A port another program holds: said, exit 2, nothing stored.
"$PY" -c 'import socket,sys,time
s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(); print(s.getsockname()[1], flush=True); time.sleep(30)' >"$T_TMP/holder.port" &
HOLDER=$!
wait_for 5 test -s "$T_TMP/holder.port"
expect_exit "--live on a taken port exits 2" 2 tpcc run --target "sqlite:$DB" --duration 2s --warmup 0s \
    --live "127.0.0.1:$(cat "$T_TMP/holder.port")" --results "$RES"
expect_stderr "... and says the port is taken" "cannot listen there: Address already in use"
kill "$HOLDER" 2>/dev/null
check "... and stores no run" test "$(sqlite3 "$RES" 'SELECT count(*) FROM run' 2>/dev/null || echo 0)" = 0

# ---- a 26 s run, watched -------------------------------------------------------------------
"$DG" tpcc run --target "sqlite:$DB" --vus 2 --warmup 2s --duration 24s --live 127.0.0.1:0 --results "$RES" \
    >"$T_TMP/run.out" 2>"$T_TMP/run.err" </dev/null &
RUN=$!
wait_for 15 grep -q '^live: http://127.0.0.1:[0-9]*/' "$T_TMP/run.err"
PORT=$(grep -o '^live: http://127.0.0.1:[0-9]*' "$T_TMP/run.err" | cut -d: -f4)
check "the run says where it serves (port $PORT)" test -n "$PORT"
URL=http://127.0.0.1:${PORT:-1}
sleep 5
curl -s -m 5 "$URL/metrics" -o "$T_TMP/m1.txt" -D "$T_TMP/m1.hdr"
sleep 2
curl -s -m 5 "$URL/metrics" -o "$T_TMP/m2.txt"
check "/metrics says it is OpenMetrics text" grep -qi '^content-type: application/openmetrics-text; version=1.0.0' "$T_TMP/m1.hdr"

# The strict parser reads both scrapes; the figures the test asks for come out of it.
cat >"$T_TMP/om.py" <<'EOF'
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
def read(path):
    fams = {f.name: f for f in text_string_to_metric_families(open(path).read())}
    tx = sum(s.value for s in fams["dbgauge_transactions"].samples if s.labels["outcome"] == "committed")
    phase = [s.labels["dbgauge_phase"] for s in fams["dbgauge_phase"].samples if s.value == 1]
    lat = sum(s.value for s in fams["dbgauge_latency_seconds"].samples if s.name.endswith("_count"))
    types = {s.labels["type"] for s in fams["dbgauge_transactions"].samples}
    return tx, phase, lat, len(types), len(fams)
a, b = read(sys.argv[1]), read(sys.argv[2])
print(int(a[0]), int(b[0]), ",".join(a[1]), int(a[2]), a[3], a[4])
EOF
read -r TX1 TX2 PHASE LAT NTYPES NFAMS < <("$PY" "$T_TMP/om.py" "$T_TMP/m1.txt" "$T_TMP/m2.txt" 2>"$T_TMP/om.err" || echo "x x x x x x")
check "both scrapes parse as OpenMetrics ($NFAMS families)" test "$TX1" != x
[[ $TX1 == x ]] && sed 's/^/# /' "$T_TMP/om.err" | tail -n 5
num_cmp "the committed-transaction counter is above 0 mid-run" "${TX1/x/0}" '>' 0
num_cmp "... and grows between two scrapes 2 s apart ($TX1 -> $TX2)" "${TX2/x/0}" '>' "${TX1/x/0}"
check "the phase stateset says measure" test "$PHASE" = measure
num_cmp "the latency histogram counts the measured transactions" "${LAT/x/0}" '>' 0
check "the counters carry TPC-C's five types" test "$NTYPES" = 5
check "the monitor's gauges are there (host CPU)" grep -q '^dbgauge_host_cpu_ratio{mode="user"}' "$T_TMP/m1.txt"

# The parser is strict: a scrape with its end marker or a counter's _total cut is refused.
sed '/^# EOF$/d' "$T_TMP/m1.txt" >"$T_TMP/bad1.txt"
sed 's/^dbgauge_transactions_total{/dbgauge_transactions{/' "$T_TMP/m1.txt" >"$T_TMP/bad2.txt"
for bad in bad1 bad2; do
    if "$PY" "$T_TMP/om.py" "$T_TMP/$bad.txt" "$T_TMP/$bad.txt" >/dev/null 2>&1; then
        not_ok "the parser refuses a broken scrape ($bad)" "it accepted it"
    else
        ok "the parser refuses a broken scrape ($bad)"
    fi
done

curl -s -m 5 "$URL/api/run" -o "$T_TMP/run.json"
check "/api/run is the report's JSON of the run, status running" \
    "$PY" -c 'import json,sys; r=json.load(open(sys.argv[1]))["items"][0]["runs"][0]; sys.exit(not (r["status"]=="running" and r["nopm"]>0))' "$T_TMP/run.json"
check "an unknown path is 404" test "$(curl -s -m 5 -o /dev/null -w '%{http_code}' "$URL/nosuch")" = 404

# The page in a browser: charts drawn from the live section, updated, no script error.
rm -f "$OUT/live-page.png"
# First the page's section once by hand: the reporter makes it only once someone reads it, and
# a slow build (TSan) must not spend the browser's budget waiting for its first second.
wait_for 10 test "$(curl -s -m 5 -o /dev/null -w '%{http_code}' "$URL/section")" = 200
check "the run still goes on when the browser opens the page" kill -0 "$RUN"
# One browser for the DOM and the screenshot, each taken once the page has swapped in the run's
# section twice: a second Chromium started after the first used to find the 26 s run over,
# its port closed, under a busy CI (no screenshot written).
"$PY" "$DG_ROOT/scripts/browser.py" --timeout 15 --until "+document.documentElement.getAttribute('data-live-updates') >= 2" \
    "dom:1200x2600:$URL/:$T_TMP/page.dom" "shot:1200x1400:$URL/:$OUT/live-page.png" >"$T_TMP/browser.log" 2>&1
html_attr() { grep -o "<html[^>]*" "$T_TMP/page.dom" | grep -o "$1=\"[^\"]*\"" | cut -d'"' -f2; }
check "the live page runs with no script error or blocked load" test "$(grep -c 'data-errors=""' "$T_TMP/page.dom")" = 1
CH=$(html_attr data-charts)
check "the live page draws every chart of the run's section ($CH)" test -n "$CH" -a "${CH%/*}" = "${CH#*/}" -a "${CH%/*}" -ge 4
num_cmp "the live page swapped in the run's section more than once" "$(html_attr data-live-updates || echo 0)" '>=' 2
if [[ -s $OUT/live-page.png ]]; then ok "a screenshot of the live page is kept (live-page.png)"; else
    not_ok "a screenshot of the live page is kept (live-page.png)" "$(tr '\n' ' ' <"$T_TMP/browser.log" | cut -c1-300)"
fi


wait "$RUN"
RC=$? T_DG_ERR=$T_TMP/run.err
check_exit "the watched run exits 0" 0
check "the watched run is stored complete" test "$(sqlite3 "$RES" "SELECT status FROM run ORDER BY id DESC LIMIT 1")" = complete
check "the port is closed after the run" test "$(curl -s -m 3 -o /dev/null -w '%{http_code}' "$URL/metrics")" = 000

# ---- a stress sweep and an experiment: one server for all their steps, each step named ----------
# watch NAME ARGS...: runs dbgauge ARGS in the background with --live, then scrapes /metrics
# every second into NAME.N until it ends; PORTS gets every port it said.
watch() {
    local name=$1 i=0
    shift
    "$DG" "$@" --live 127.0.0.1:0 --progress none >"$T_TMP/$name.out" 2>"$T_TMP/$name.err" </dev/null &
    local pid=$!
    wait_for 15 grep -q '^live: ' "$T_TMP/$name.err"
    local port
    port=$(grep -o '^live: http://127.0.0.1:[0-9]*' "$T_TMP/$name.err" | head -n 1 | cut -d: -f4)
    while kill -0 "$pid" 2>/dev/null; do
        curl -s -m 2 "http://127.0.0.1:${port:-1}/metrics" >"$T_TMP/$name.$i" 2>/dev/null
        i=$((i + 1))
        sleep 1
    done
    wait "$pid"
    RC=$? T_DG_ERR=$T_TMP/$name.err
}
steps_seen() { cat "$T_TMP/$1".[0-9]* 2>/dev/null | grep -o 'step="[^"]*"' | sort -u | tr '\n' ' '; }
watch sweep stress --target "sqlite:$DB" --query "SELECT COUNT(*) FROM item" --threads 1,2 --duration 3s \
    --warmup 0s --results "$RES"
check_exit "a stress sweep with --live exits 0" 0
check "... says one server for its two steps" test "$(grep -c '^live: ' "$T_TMP/sweep.err")" = 1
check "... names each step on it" test "$(steps_seen sweep)" = 'step="1/2: 1 thread" step="2/2: 2 threads" '
check "... and counts the stress query as the workload's transactions" \
    grep -qh '^dbgauge_transactions_total{type="query",outcome="committed"} [1-9]' "$T_TMP"/sweep.[0-9]*
cat >"$T_TMP/exp.ini" <<INI
[global]
workload=tpcc
target=sqlite:$DB
warmup=0s
duration=3s
vus=1,2
INI
watch exp experiment "$T_TMP/exp.ini" --results "$RES"
check_exit "an experiment with --live exits 0" 0
check "... says one server for its two steps" test "$(grep -c '^live: ' "$T_TMP/exp.err")" = 1
check "... names each step on it" test "$(steps_seen exp)" = 'step="step 1/2" step="step 2/2" '
finish
