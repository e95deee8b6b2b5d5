#!/usr/bin/env bash
# report.sh — reports from a results database made here by real short runs on SQLite (two
# TPC-C runs, two stress sweeps, labels with <script> and quotes): HTML numbers equal the
# stored ones, CSV/JSON round trips, compare's percentages, and headless Chromium drawing
# every chart with no error (screenshots in T_OUT, tests/lib.sh). The targets are deleted before
# rendering: reports read the results database only. Run A is monitored (the default) and
# a two-target run (one target's path holding <, > and &) gives the per-target charts. Two
# TPC-C experiments (job files sweeping vus=1,2,3 and vus=2,3,4, the first labelled with
# <script> and quotes) give `report exp:N` in every format and `compare exp:A exp:B`; a stress
# experiment (threads=1,2,3) its MB/s and rows/s charts.
. "$(dirname "$0")/../lib.sh"

RES=$T_TMP/results.db
OUT=$T_OUT
mkdir -p "$OUT"
CHECK=$DG_ROOT/tests/report_check.py
LABEL='<script>alert(1)</script>"'"'"'&'
relay() { while read -r l; do case $l in "ok - "*) ok "${l#ok - }" ;; "not ok - "*) not_ok "${l#not ok - }" "" ;; *) echo "$l" ;; esac; done; }
py() { python3 "$CHECK" "$@" >"$T_TMP/py.out" 2>&1 || echo "not ok - report_check.py $1 crashed: $(tail -n 3 "$T_TMP/py.out" | tr '\n' ' ')" >>"$T_TMP/py.out"; relay <"$T_TMP/py.out"; }
last_id() { sqlite3 "$RES" "SELECT MAX(id) FROM run"; }

TPCC=sqlite:$T_TMP/tpcc.db
STRESS=sqlite:$T_TMP/stress.db
expect_exit "fixture: tpcc load 1 warehouse" 0 tpcc load --target "$TPCC" --warehouses 1
expect_exit "fixture: tpcc run A with a <script> label (busy_timeout=0: it has retries)" 0 tpcc run --target "$TPCC?busy_timeout=0" --vus 2 --warmup 2s --duration 4s --results "$RES" --label "$LABEL"
A=$(last_id)
expect_exit "fixture: tpcc run B" 0 tpcc run --target "$TPCC" --vus 1 --warmup 1s --duration 3s --results "$RES" --label "run B"
B=$(last_id)
expect_exit "fixture: tpcc run C, open loop --rate" 0 tpcc run --target "$TPCC" --vus 2 --rate 100 --duration 2s --results "$RES"
C=$(last_id)
TA=$T_TMP/ta.db
TB="$T_TMP/t<b>&.db"
cp "$T_TMP/tpcc.db" "$TA" && cp "$T_TMP/tpcc.db" "$TB"
expect_exit "fixture: tpcc run on two SQLite targets at once" 0 tpcc run --target "sqlite:$TA" --target "sqlite:$TB" --vus 2 --warmup 1s --duration 3s --results "$RES"
M=$(last_id)
expect_exit "fixture: stress prepare" 0 stress prepare --target "$STRESS" --rows 20000
expect_exit "fixture: stress sweep 1,2,3 with a query holding '<'" 0 stress --target "$STRESS" --threads 1,2,3 --iterations 3 \
    --query "SELECT * FROM dbgauge_stress WHERE id < 15000" --results "$RES" --label "$LABEL"
G1=$(sqlite3 "$RES" "SELECT group_id FROM run WHERE id = $(last_id)")
expect_exit "fixture: stress sweep 2,1" 0 stress --target "$STRESS" --threads 2,1 --iterations 2 --results "$RES"
G2=$(sqlite3 "$RES" "SELECT group_id FROM run WHERE id = $(last_id)")
expect_exit "fixture: stress sweep 3,1" 0 stress --target "$STRESS" --threads 3,1 --iterations 2 --results "$RES"
G3=$(sqlite3 "$RES" "SELECT group_id FROM run WHERE id = $(last_id)")
job() { printf '[global]\nworkload=tpcc\ntarget=%s\nwarmup=0s\nduration=2s\nvus=%s\n' "$TPCC" "$1" >"$T_TMP/$2.ini"; }
job 1,2,3 expa
job 2,3,4 expb
expect_exit "fixture: experiment sweeping vus=1,2,3 with a <script> label" 0 experiment "$T_TMP/expa.ini" --results "$RES" --label "$LABEL"
EA=$(sqlite3 "$RES" "SELECT MAX(id) FROM experiment")
expect_exit "fixture: experiment sweeping vus=2,3,4" 0 experiment "$T_TMP/expb.ini" --results "$RES"
EB=$(sqlite3 "$RES" "SELECT MAX(id) FROM experiment")
printf '[global]\nworkload=stress\ntarget=%s\niterations=2\nthreads=1,2,3\n' "$STRESS" >"$T_TMP/exps.ini"
expect_exit "fixture: stress experiment sweeping threads=1,2,3" 0 experiment "$T_TMP/exps.ini" --results "$RES"
ES=$(sqlite3 "$RES" "SELECT MAX(id) FROM experiment")
printf '[global]\ntarget=%s\n[tpcc-step]\nworkload=tpcc\nduration=1s\nvus=1\n[stress-step]\nworkload=stress\ntarget=%s\nthreads=1\niterations=2\n' \
    "$TPCC" "$STRESS" >"$T_TMP/mixed.ini"
expect_exit "fixture: an experiment of a tpcc step then a stress step" 0 experiment "$T_TMP/mixed.ini" --results "$RES"
EM=$(sqlite3 "$RES" "SELECT MAX(id) FROM experiment")
rm -f "$T_TMP"/tpcc.db* "$T_TMP"/stress.db* "$TA"* "$TB"*

# HTML: numbers, escaping, and a real browser: each page is queued in BROWSE (page, screenshot,
# label or -) and all are opened in one headless Chromium before the bad-input checks.
BROWSE=()
expect_exit "report RUN group:ID writes HTML" 0 report "$A" "group:$G1" --results "$RES" -o "$OUT/report-run-group.html"
py html "$OUT/report-run-group.html" "$RES" "$A" "$G1" "$LABEL"
check "html: the query's '<' is escaped" grep -q 'WHERE id &lt; 15000' "$OUT/report-run-group.html"
py monitor "$OUT/report-run-group.html" "$RES" "$A"
BROWSE+=("$OUT/report-run-group.html" "$OUT/report-run-group.png" "$LABEL")

# Several targets at once: each target's figures, the mean, the total and the spread.
expect_exit "report of a two-target run" 0 report "$M" --results "$RES" -o "$OUT/report-targets.html"
py targets "$OUT/report-targets.html" "$RES" "$M"
py monitor "$OUT/report-targets.html" "$RES" "$M"
check "html: the target's '<b>&' is escaped" grep -qF 't&lt;b&gt;&amp;.db' "$OUT/report-targets.html"
check "html: the target's '<b>' is not in the page raw" bash -c '! grep -qF "t<b>" "$0"' "$OUT/report-targets.html"
BROWSE+=("$OUT/report-targets.html" "$OUT/report-targets.png" -)

# An open-loop run: asked and achieved rates, start lag, service time beside response time.
expect_exit "report of a --rate run" 0 report "$C" --results "$RES" -o "$OUT/report-rate.html"
py card "$OUT/report-rate.html" "$RES" "$C" rate_asked rate_asked
py card "$OUT/report-rate.html" "$RES" "$C" lag_p99_ms lag_p99_ms
py card "$OUT/report-rate.html" "$RES" "$C" rate_achieved "(SELECT SUM(committed + rollbacks) FROM run_txn WHERE run_id = run.id) / measured_s"
check "html: a --rate run shows service time apart" grep -q 'class="data service"' "$OUT/report-rate.html"
check "html: a --rate run says latency is response time" grep -q 'response time, from each transaction' "$OUT/report-rate.html"

# A password in the target never reaches a report (PostgreSQL, when the harness started one).
if [[ -n ${DG_PG_URL:-} && -n ${DG_PG_PASSWORD:-} ]]; then
    PGURL="postgres://dbgauge:$DG_PG_PASSWORD@127.0.0.1:$DG_PG_PORT/dbgauge"
    "$DG" stress prepare --target "$PGURL" --rows 2000 --drop >/dev/null 2>&1
    expect_exit "fixture: stress on PostgreSQL with the password in the URL" 0 stress --target "$PGURL" --threads 1,2 --results "$RES"
    PG=$(sqlite3 "$RES" "SELECT group_id FROM run WHERE id = $(last_id)")
    "$DG" stress drop --target "$PGURL" >/dev/null 2>&1
    "$DG" report "group:$PG" --results "$RES" -o "$T_TMP/pg.html" 2>/dev/null
    "$DG" report "group:$PG" --results "$RES" --format csv >"$T_TMP/pg.csv" 2>/dev/null
    "$DG" report "group:$PG" --results "$RES" --format json >"$T_TMP/pg.json" 2>/dev/null
    "$DG" compare "group:$PG" "group:$PG" --results "$RES" -o "$T_TMP/pgc.html" >"$T_TMP/pgc.txt" 2>/dev/null
    check "PostgreSQL report shows the redacted target" grep -q 'dbgauge:\*\*\*@127.0.0.1' "$T_TMP/pg.html"
    check "no report, export or comparison holds the password" bash -c '! grep -lF -- "$0" "$@"' "$DG_PG_PASSWORD" \
        "$T_TMP/pg.html" "$T_TMP/pg.csv" "$T_TMP/pg.json" "$T_TMP/pgc.html" "$T_TMP/pgc.txt"
else
    not_ok "reports of a PostgreSQL run keep its password out" "no PostgreSQL server (DG_PG_URL unset)"
fi

# Exports.
run_dg "$T_TMP/r.csv" "$T_TMP/r.err" report "$A" "$B" "g$G1" --results "$RES" --format csv
check_exit "report --format csv exits 0" 0
py csv "$T_TMP/r.csv" "$RES"
run_dg "$T_TMP/r.json" "$T_TMP/r.err" report "$A" "group:$G2" --results "$RES" --format json
check_exit "report --format json exits 0" 0
py json "$T_TMP/r.json" "$RES"
run_dg "$OUT/report.md" "$T_TMP/r.err" report "$A" "group:$G1" --results "$RES" --format md
check "report --format md escapes the label" grep -qF '\<script\>alert(1)\</script\>' "$OUT/report.md"
check "report --format md has the step table" grep -qE '^\| 3 \| [0-9]+ \|' "$OUT/report.md"

# compare: runs, then groups paired by thread count.
run_dg "$T_TMP/cmp.txt" "$T_TMP/cmp.err" compare "$A" "$B" --results "$RES" -o "$OUT/compare-runs.html"
check_exit "compare A B exits 0" 0
py compare "$T_TMP/cmp.txt" "$RES" "$A" "$B"
BROWSE+=("$OUT/compare-runs.html" "$OUT/compare-runs.png" -)
run_dg "$T_TMP/cmpg.txt" "$T_TMP/cmpg.err" compare "group:$G1" "group:$G2" --results "$RES" -o "$OUT/compare-groups.html"
check_exit "compare group:A group:B exits 0" 0
py compare-groups-html "$T_TMP/cmpg.txt" "$OUT/compare-groups.html" "$RES" "$G1" "$G2"
BROWSE+=("$OUT/compare-groups.html" "$OUT/compare-groups.png" -)
# three sides: each later side's change from the first, in the table and on its own bars
run_dg "$T_TMP/cmpg3.txt" "$T_TMP/cmpg3.err" compare "group:$G1" "group:$G2" "group:$G3" --results "$RES" -o "$OUT/compare-groups3.html"
check_exit "compare of three groups exits 0" 0
py compare-groups-html "$T_TMP/cmpg3.txt" "$OUT/compare-groups3.html" "$RES" "$G1" "$G2" "$G3"
BROWSE+=("$OUT/compare-groups3.html" "$OUT/compare-groups3.png" -)
check "compare html escapes the label" grep -qF '&lt;script&gt;alert(1)' "$OUT/compare-groups.html"

# Experiments: the step table and charts by swept value in every format, and compare paired by value.
expect_exit "report exp:N writes HTML" 0 report "exp:$EA" --results "$RES" -o "$OUT/report-experiment.html"
py exp-html "$OUT/report-experiment.html" "$RES" "$EA" "$LABEL"
BROWSE+=("$OUT/report-experiment.html" "$OUT/report-experiment.png" "$LABEL")
expect_exit "report exp:N of a stress experiment writes HTML" 0 report "exp:$ES" --results "$RES" -o "$OUT/report-experiment-stress.html"
py exp-html "$OUT/report-experiment-stress.html" "$RES" "$ES"
BROWSE+=("$OUT/report-experiment-stress.html" "$OUT/report-experiment-stress.png" -)
run_dg "$T_TMP/e.json" "$T_TMP/e.err" report "experiment:$EA" --results "$RES" --format json
check_exit "report experiment:N --format json exits 0" 0
py exp-json "$T_TMP/e.json" "$RES" "$EA"
py exact-json "$T_TMP/e.json" "$RES"
run_dg "$T_TMP/e.csv" "$T_TMP/e.err" report "exp:$EA" --results "$RES" --format csv
check_exit "report exp:N --format csv exits 0" 0
py exp-csv "$T_TMP/e.csv" "$RES" "$EA"
run_dg "$OUT/report-experiment.md" "$T_TMP/e.err" report "exp:$EA" --results "$RES" --format md
check_exit "report exp:N --format md exits 0" 0
py exp-md "$OUT/report-experiment.md" "$RES" "$EA"
check "report --format md escapes the experiment's label" grep -qF '(\<script\>alert(1)\</script\>' "$OUT/report-experiment.md"
run_dg "$T_TMP/cmpe.txt" "$T_TMP/cmpe.err" compare "exp:$EA" "exp:$EB" --results "$RES" -o "$OUT/compare-experiments.html"
check_exit "compare exp:A exp:B exits 0" 0
py compare-exp "$T_TMP/cmpe.txt" "$OUT/compare-experiments.html" "$RES" "$EA" "$EB"
BROWSE+=("$OUT/compare-experiments.html" "$OUT/compare-experiments.png" -)
check "compare html escapes the experiment's label" grep -qF '&lt;script&gt;alert(1)' "$OUT/compare-experiments.html"
check "compare html has not the label's <script> raw" bash -c '! grep -qF "<script>alert(1)" "$0"' "$OUT/compare-experiments.html"
# An experiment whose steps run both workloads: both figure names head the shared columns, the
# other workload's step is marked, and no change across workloads is written anywhere.
run_dg "$T_TMP/mixed.txt" "$T_TMP/mixed.err" experiment show "$EM" --results "$RES"
check "mixed experiment: the text table heads its columns 'TPM or rows/s' and 'NOPM or MB/s'" grep -qE 'TPM or rows/s +NOPM or MB/s' "$T_TMP/mixed.txt"
check "mixed experiment: the stress step is marked, its change n/a" grep -qE '^ +2 +stress-step .* +- +- +[0-9]+ +complete \(stress\)$' "$T_TMP/mixed.txt"
run_dg "$OUT/report-mixed.md" "$T_TMP/mixed.err" report "exp:$EM" --results "$RES" --format md
check "mixed experiment md: both names head the columns" grep -qF '| TPM or rows/s | NOPM or MB/s |' "$OUT/report-mixed.md"
check "mixed experiment md: the stress step is marked" grep -qF '| 2 (stress) | stress-step |' "$OUT/report-mixed.md"
expect_exit "report of the mixed experiment writes HTML" 0 report "exp:$EM" --results "$RES" -o "$OUT/report-mixed.html"
py exp-mixed "$OUT/report-mixed.html"
BROWSE+=("$OUT/report-mixed.html" "$OUT/report-mixed.png" -)
expect_exit "report of a missing experiment exits 2" 2 report exp:999 --results "$RES" -o "$T_TMP/x.html"
expect_stderr "the missing experiment is named" "no experiment 999"
expect_exit "report exp:x exits 2" 2 report exp:x --results "$RES"
expect_stderr "the bad experiment item is named" "'exp:x'"
expect_exit "compare of an experiment with a run exits 2" 2 compare "exp:$EA" "$A" --results "$RES"
expect_stderr "the run mixed with an experiment is named" "'$A' is a run and 'exp:$EA' an experiment"

py browser "${BROWSE[@]}"

# Bad input: exit 2 and a message naming what was wrong.
expect_exit "report with nothing named exits 2" 2 report --results "$RES"
expect_exit "report of a missing run exits 2" 2 report 999 --results "$RES" -o "$T_TMP/x.html"
expect_stderr "the missing run is named" "no run 999"
expect_exit "report of a missing group exits 2" 2 report group:999 --results "$RES" -o "$T_TMP/x.html"
expect_stderr "the missing group is named" "no group 999"
expect_exit "report --format xml exits 2" 2 report "$A" --format xml --results "$RES"
expect_stderr "the bad format is named" "--format: 'xml'"
expect_exit "report of 'abc' exits 2" 2 report abc --results "$RES"
expect_stderr "the bad item is named" "'abc'"
expect_exit "report of a missing results file exits 2" 2 report 1 --results "$T_TMP/none.db"
expect_stderr "the missing results file is named" "none.db"
check "report never creates a results file" test ! -e "$T_TMP/none.db"
expect_exit "compare of one run exits 2" 2 compare "$A" --results "$RES"
expect_exit "compare of a tpcc run with a stress run exits 2" 2 compare "$A" "$G1" --results "$RES"
expect_stderr "compare explains the mismatch" "cannot compare a tpcc run"
finish
