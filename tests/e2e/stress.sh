#!/usr/bin/env bash
# stress.sh — query stress end to end on a real SQLite file, and on PostgreSQL when the test
# harness started one: exact row counts per step, linked steps, parameter cycling, errors
# before timing, flat memory while reading 1M rows.
. "$(dirname "$0")/../lib.sh"

RES=$T_TMP/results.db
py() { python3 - "$@"; }
# relay <FILE: counts the `ok`/`not ok` lines a python check printed (not in a pipe: counts must stick).

targets=("sqlite:$T_TMP/stress.db")
if [[ -n ${DG_NO_PG:-} ]]; then
    echo "# pgsql: not run (--no-pg)"
elif [[ -n ${DG_PG_URL:-} ]]; then
    export PGPASSWORD=${DG_PG_PASSWORD:-}
    targets+=("$DG_PG_URL")
else
    not_ok "stress on PostgreSQL" "no PostgreSQL server (DG_PG_URL unset)"
fi

for TGT in "${targets[@]}"; do
    e=${TGT%%:*}
    "$DG" stress drop --target "$TGT" >/dev/null 2>&1 # a table left by anyone else would hide the first check
    expect_exit "$e: stress before prepare exits 2" 2 stress --target "$TGT" --results "$RES"
    expect_stderr "$e: stress before prepare points to 'stress prepare'" "stress prepare"
    expect_exit "$e: prepare 100,000 rows" 0 stress prepare --target "$TGT" --rows 100000 --drop
    expect_exit "$e: prepare again without --drop exits 2" 2 stress prepare --target "$TGT" --rows 10
    run_dg "$T_TMP/s.json" "$T_TMP/s.err" stress --target "$TGT" --threads 1,2 --iterations 3 --results "$RES" --json --label sweep
    check_exit "$e: sweep 1,2 x 3 iterations exits 0" 0
    py "$T_TMP/s.json" "$e" >"$T_TMP/py.out" <<'PY' 
import json, sys
d = json.load(open(sys.argv[1])); e = sys.argv[2]
st = d["steps"]
print(("ok" if [s["threads"] for s in st] == [1, 2] else "not ok") + f" - {e}: one step per thread count")
for s in st:
    want = 3 * s["threads"] * 100000
    print(("ok" if s["rows"] == want and s["iterations"] == 3 * s["threads"] else "not ok") + f" - {e}: {s['threads']} threads read exactly {want} rows: {s['rows']}")
    print(("ok" if s["bytes"] > 150 * s["rows"] else "not ok") + f" - {e}: bytes counted ({s['bytes']} for {s['rows']} rows)")
    print(("ok" if s["mb_per_s"] > 0 and s["p95_ms"] <= s["max_ms"] else "not ok") + f" - {e}: rates and latencies reported")
print(("ok" if st[1]["run_id"] == st[0]["run_id"] + 1 and d["group_id"] == st[0]["run_id"] else "not ok") + f" - {e}: steps stored as consecutive runs of one group")
PY
    relay <"$T_TMP/py.out"
    id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["steps"][1]["run_id"])' "$T_TMP/s.json")
    run_dg "$T_TMP/show.json" "$T_TMP/show.err" runs show "$id" --results "$RES" --json
    check "$e: a step is a stored run linked to its group" test "$(json_get "$T_TMP/show.json" group_id)/$(json_get "$T_TMP/show.json" workload)" = "$(json_get "$T_TMP/s.json" group_id)/stress"
    check "$e: a step's stored options say its threads and iterations (SQLQueryStress's words)" test \
        "$(sqlite3 "$RES" "SELECT json_extract(options, '\$.threads') || '/' || json_extract(options, '\$.iterations') || '/' || (json_extract(options, '\$.vus') IS NULL) FROM run WHERE id = $id")" = "2/3/1"

    # Parameters cycle: ids 1, 2, 3, 1, 2, 3 -> 1+2+3+1+2+3 rows.
    run_dg "$T_TMP/p.json" "$T_TMP/p.err" stress --target "$TGT" --query "SELECT id FROM dbgauge_stress WHERE id <= ?" \
        --params-query "SELECT id FROM dbgauge_stress WHERE id <= 3 ORDER BY id" --iterations 6 --results "$RES" --json
    check "$e: parameter substitution cycles through the parameter rows (12 rows)" test "$RC/$(json_get "$T_TMP/p.json" steps.0.rows)" = 0/12

    # 1,000 rows an iteration: many iterations in 3 s even on a loaded machine under ASan (a
    # 100,000-row read took over 3 s there, and a window with none measured fails)
    run_dg "$T_TMP/d.json" "$T_TMP/d.err" stress --target "$TGT" --query "SELECT * FROM dbgauge_stress WHERE id <= 1000" \
        --threads 2 --warmup 1s --duration 3s --results "$RES" --json
    check_exit "$e: timed stress exits 0" 0
    py "$T_TMP/d.json" "$e" >"$T_TMP/py.out" <<'PY' 
import json, sys
s = json.load(open(sys.argv[1]))["steps"][0]; e = sys.argv[2]
print(("ok" if s["rows"] == s["iterations"] * 1000 and s["iterations"] > 0 else "not ok") + f" - {e}: timed step counts the measured iterations' rows only: {s['iterations']} it, {s['rows']} rows")
print(("ok" if abs(s["seconds"] - 3) < 0.01 else "not ok") + f" - {e}: timed step measures 3 s: {s['seconds']}")
PY
    relay <"$T_TMP/py.out"

    expect_exit "$e: bad SQL exits 2 before timing" 2 stress --target "$TGT" --query "SELEKT * FROM dbgauge_stress" --results "$RES"
    expect_stderr "$e: bad SQL shows the engine's message" "(syntax|SELEKT)"
    expect_exit "$e: unknown table exits 2" 2 stress --target "$TGT" --query "SELECT * FROM no_such_table" --results "$RES"
    expect_stderr "$e: unknown table is named" "no_such_table"
    expect_exit "$e: a placeholder without --params-query exits 2" 2 stress --target "$TGT" --query "SELECT * FROM dbgauge_stress WHERE id = ?" --results "$RES"
    expect_stderr "$e: parameter mismatch is explained" "parameter"
done
n_runs=$(sqlite3 "$RES" "SELECT COUNT(*) FROM run WHERE workload = 'stress'")
check "errors before timing store no run" test "$n_runs" = $((4 * ${#targets[@]}))

# Memory stays flat: reading 1M rows needs no more than reading 100k (small page cache). Under
# AddressSanitizer freed memory sits in a quarantine first: keep it small for these runs.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}quarantine_size_mb=4"
peak_kb() { /usr/bin/time -f %M "$DG" stress "$@" --results "$T_TMP/mem.db" 2>&1 >/dev/null | tail -n 1; }
sqlite_fixture "$T_TMP/big.db" stress-1000000 stress prepare --rows 1000000 || not_ok "a 1M-row stress table" "$(tail -n 3 "$T_TMP/fixture.err")"
sqlite_fixture "$T_TMP/small.db" stress-100000 stress prepare --rows 100000 || not_ok "a 100k-row stress table" "$(tail -n 3 "$T_TMP/fixture.err")"
big=$(peak_kb --target "sqlite:$T_TMP/big.db?cache_mib=4")
small=$(peak_kb --target "sqlite:$T_TMP/small.db?cache_mib=4")
num_cmp "reading 1M rows keeps resident memory within 16 MB of reading 100k ($big vs $small KB)" "$big" "<" "$((small + 16384))"
if [[ -z ${DG_NO_PG:-} && -n ${DG_PG_URL:-} ]]; then
    "$DG" stress prepare --target "$DG_PG_URL" --rows 1000000 --drop >/dev/null 2>&1
    pbig=$(peak_kb --target "$DG_PG_URL")
    psmall=$(peak_kb --target "$DG_PG_URL" --query "SELECT * FROM dbgauge_stress WHERE id <= 100000")
    num_cmp "PostgreSQL: reading 1M rows keeps resident memory within 16 MB of reading 100k ($pbig vs $psmall KB)" \
        "$pbig" "<" "$((psmall + 16384))"
    "$DG" stress drop --target "$DG_PG_URL" >/dev/null 2>&1
fi
finish
