#!/usr/bin/env bash
# targets.sh — several targets at once (`tpcc run --target A --target B`): per-target figures
# add up to the totals, the spread recomputed here from them equals what is printed and stored,
# exact counts with --txns-per-vu, unready targets named (exit 2), passwords never shown, and
# SQLite beside the PostgreSQL test server. Uses tests/lib.sh; real SQLite files and server.
. "$(dirname "$0")/../lib.sh"

A=$T_TMP/a.db
B=$T_TMP/b.db
RES=$T_TMP/results.db
for db in "$A" "$B"; do
    check "$(basename "$db"): a 1-warehouse database (sqlite_tpcc)" sqlite_tpcc "$db"
done

# verify FILE RUNLABEL: the JSON document's per-target figures against its totals and spread,
# and against the results database; prints ok/not ok lines.
verify() {
    python3 - "$1" "$RES" "$2" <<'PY'
import json, sqlite3, sys
d = json.load(open(sys.argv[1])); db = sqlite3.connect(sys.argv[2]); label = sys.argv[3]
def say(good, what): print(("ok" if good else "not ok") + f" - {label}: {what}")
ts = d["targets"]
say(len(ts) == 2, f"two targets in the JSON ({len(ts)})")
for ty, tot in d["transactions"].items():
    for field in ("committed", "rollbacks", "retries", "errors", "count"):
        s = sum(t["transactions"][ty][field] for t in ts)
        if s != tot[field]:
            say(False, f"{ty} {field}: targets sum {s} != total {tot[field]}")
            break
    else:
        continue
    break
else:
    say(True, "per-target counts of every type and field sum exactly to the totals")
committed = sum(v["committed"] for v in d["transactions"].values())
say(sum(t["committed"] for t in ts) == committed, f"per-target committed sum to {committed}")
say(abs(sum(t["nopm"] for t in ts) - d["nopm"]) <= 1e-6 * max(d["nopm"], 1), f"per-target NOPM sum to {d['nopm']:.3f}")
say(abs(sum(t["tpm"] for t in ts) - d["tpm"]) <= 1e-6 * max(d["tpm"], 1), f"per-target TPM sum to {d['tpm']:.3f}")
say(d["nopm"] > 0 and all(t["nopm"] > 0 for t in ts), "every target committed New-Orders")
for key, pk in (("nopm", "pct_from_mean"), ("avg_ms", "avg_ms_pct_from_mean")):
    v = [t[key] for t in ts]; mean = sum(v) / len(v)
    pct = [(x - mean) / mean * 100 for x in v]
    sp = d["spread"][key]
    good = abs(sp["mean"] - mean) < 1e-9 * mean and all(abs(a - t[pk]) < 1e-6 for a, t in zip(pct, ts))
    good = good and sp["min"] == min(v) and sp["max"] == max(v)
    good = good and sp["max_target"] == v.index(max(v)) + 1 and sp["min_target"] == v.index(min(v)) + 1
    good = good and abs(sp["max_pct_from_mean"] - max(pct)) < 1e-6 and abs(sp["min_pct_from_mean"] - min(pct)) < 1e-6
    say(good, f"spread of {key} recomputed from the per-target figures: mean {mean:.3f}, pct {[round(p, 2) for p in pct]}")
nv = [t["nopm"] for t in ts]
say(d["spread"]["fastest"] == nv.index(max(nv)) + 1 and d["spread"]["slowest"] == nv.index(min(nv)) + 1, "fastest/slowest by NOPM")
for t in ts:
    lat = t["p50_ms"] <= t["p95_ms"] <= t["p99_ms"] <= t["max_ms"] and t["avg_ms"] > 0
    say(lat, f"target {t['index']} latency order p50 {t['p50_ms']:.3f} <= p95 <= p99 <= max {t['max_ms']:.3f}")
rows = db.execute("SELECT idx, target_redacted, nopm, tpm, avg_ms, p95_ms, p99_ms, vus FROM run_target WHERE run_id = ? ORDER BY idx", (d["run_id"],)).fetchall()
def same(x, y): return abs(x - y) <= 1e-12 * max(abs(x), abs(y), 1)  # cJSON prints 15 digits
say(len(rows) == 2 and all(r[1] == t["target"] and same(r[2], t["nopm"]) and same(r[3], t["tpm"]) and same(r[4], t["avg_ms"]) and same(r[5], t["p95_ms"]) and same(r[6], t["p99_ms"]) and r[7] == t["vus"] for r, t in zip(rows, ts)),
    "run_target rows hold what the JSON shows")
n = db.execute("SELECT COUNT(*), SUM(committed), COUNT(histogram) FROM run_target_txn WHERE run_id = ?", (d["run_id"],)).fetchone()
say(n[0] == 10 and n[1] == committed and n[2] >= 2, f"run_target_txn: 2 x 5 types, committed {n[1]}, with histograms")
tgt = db.execute("SELECT target FROM run WHERE id = ?", (d["run_id"],)).fetchone()[0]
say(tgt == ", ".join(t["target"] for t in ts) == d["target"], f"run.target joins the targets: {tgt}")
PY
}

# --- a timed run over two SQLite files ------------------------------------------------------
run_dg "$T_TMP/run.json" "$T_TMP/run.err" tpcc run --target "sqlite:$A" --target "sqlite:$B" --vus 2 --duration 4s --results "$RES" --json
check_exit "two targets at once exit 0" 0
verify "$T_TMP/run.json" "timed"
check "timed: one VU per target" test "$(json_get "$T_TMP/run.json" targets.0.vus)/$(json_get "$T_TMP/run.json" targets.1.vus)" = 1/1
check "timed: total warehouses 2" test "$(json_get "$T_TMP/run.json" warehouses)" = 2
id=$(json_get "$T_TMP/run.json" run_id)
run_dg "$T_TMP/show.txt" "$T_TMP/show.err" runs show "$id" --results "$RES"
grep -q "per target" "$T_TMP/show.txt" && grep -q "spread   NOPM mean" "$T_TMP/show.txt" &&
    grep -q "sqlite:$B" "$T_TMP/show.txt" && ok "runs show prints the per-target table and the spread" ||
    not_ok "runs show prints the per-target table and the spread" "$(head -c 400 "$T_TMP/show.txt")"
run_dg "$T_TMP/show.json" "$T_TMP/show.err" runs show "$id" --results "$RES" --json
check "runs show --json gives the stored spread" test \
    "$(json_get "$T_TMP/show.json" spread.nopm.max_pct_from_mean)" = "$(json_get "$T_TMP/run.json" spread.nopm.max_pct_from_mean)"
for db in "$A" "$B"; do
    run_dg "$T_TMP/check.json" "$T_TMP/check.err" tpcc check --target "sqlite:$db" --json
    check "tpcc check of $(basename "$db") passes after the run" test "$RC/$(json_get "$T_TMP/check.json" pass)" = 0/True
done

# --- exact counts: --txns-per-vu with 3 VUs over 2 targets (2 + 1) ------------------------
run_dg "$T_TMP/n.json" "$T_TMP/n.err" tpcc run --target "sqlite:$A" --target "sqlite:$B" --vus 3 --txns-per-vu 30 --results "$RES" --json
check_exit "--txns-per-vu over two targets exits 0" 0
verify "$T_TMP/n.json" "counted"
python3 - "$T_TMP/n.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def cnt(t): return sum(v["count"] + v["errors"] for v in t.values())
tot, a, b = cnt(d["transactions"]), cnt(d["targets"][0]["transactions"]), cnt(d["targets"][1]["transactions"])
print(("ok" if tot == 90 else "not ok") + f" - counted: 3 VUs x 30 = exactly 90 transactions ({tot})")
print(("ok" if (a, b) == (60, 30) else "not ok") + f" - counted: remainder to the first target: 60 and 30 ({a}, {b})")
print(("ok" if [t["vus"] for t in d["targets"]] == [2, 1] else "not ok") + " - counted: VUs split 2 + 1")
PY
run_dg "$T_TMP/p.json" "$T_TMP/p.err" tpcc run --target "sqlite:$A" --target "sqlite:$B" --vus-per-target 2 --txns-per-vu 10 --results "$RES" --json
check "--vus-per-target 2: 2 + 2 VUs, 40 transactions" test \
    "$RC/$(json_get "$T_TMP/p.json" vus)/$(json_get "$T_TMP/p.json" targets.0.vus)/$(json_get "$T_TMP/p.json" targets.1.vus)/$(python3 -c 'import json,sys; print(sum(v["count"]+v["errors"] for v in json.load(open(sys.argv[1]))["transactions"].values()))' "$T_TMP/p.json")" = 0/4/2/2/40

# --- a target that is not ready is named, nothing is measured -------------------------------
sqlite3 "$T_TMP/empty.db" "CREATE TABLE unrelated (x)"
runs_before=$(sqlite3 "$RES" "SELECT COUNT(*) FROM run")
expect_exit "a target not loaded exits 2" 2 tpcc run --target "sqlite:$A" --target "sqlite:$T_TMP/empty.db" --txns-per-vu 5 --vus 2 --results "$RES"
expect_stderr "the unready target is named with its number" "target 2 \(sqlite:$T_TMP/empty.db\)"
check "nothing stored for the unready run" test "$(sqlite3 "$RES" "SELECT COUNT(*) FROM run")" = "$runs_before"
expect_exit "a missing file as a second target exits 2" 2 tpcc run --target "sqlite:$A" --target "sqlite:$T_TMP/none.db" --txns-per-vu 5 --vus 2 --results "$RES"
expect_stderr "the missing target is named" "target 2 \(sqlite:$T_TMP/none.db\)"
check "a missing target file is not created" test ! -e "$T_TMP/none.db"

# --- bad combinations ------------------------------------------------------------------------
expect_exit "--vus 1 over 2 targets exits 2" 2 tpcc run --target "sqlite:$A" --target "sqlite:$B" --vus 1 --results "$RES"
expect_stderr "--vus 1 over 2 targets says why" "fewer than the 2 targets"
expect_exit "--vus with --vus-per-target exits 2" 2 tpcc run --target "sqlite:$A" --target "sqlite:$B" --vus 2 --vus-per-target 1
expect_exit "--vus-per-target with one target exits 2" 2 tpcc run --target "sqlite:$A" --vus-per-target 1
expect_exit "--vus-per-target past 4096 virtual users in all exits 2" 2 tpcc run --target "sqlite:$A" --target "sqlite:$B" --vus-per-target 4000
expect_stderr "--vus-per-target past 4096 says how many" "8000 virtual users"
expect_exit "--think-time with 2 targets exits 2" 2 tpcc run --target "sqlite:$A" --target "sqlite:$B" --think-time
expect_exit "tpcc check takes one target" 2 tpcc check --target "sqlite:$A" --target "sqlite:$B"

# --- a password in the second target's URL never shows ---------------------------------------
SECRET=s3cr3t-$$-pw
expect_exit "an unreachable second target with a password exits 2" 2 tpcc run --target "sqlite:$A" \
    --target "postgres://dbgauge:$SECRET@127.0.0.1:1/nowhere" --txns-per-vu 5 --vus 2 --results "$RES"
expect_stderr "the unreachable target is named, redacted" "target 2 \(postgres://dbgauge:\*\*\*@127.0.0.1:1/nowhere\)"
grep -qF -- "$SECRET" "$T_TMP/last.err" "$T_TMP/last.out" && not_ok "no password in the output of a failed start" "found" ||
    ok "no password in the output of a failed start"

ENV_FILE=${DG_SERVERS_ENV:-$DG_ROOT/tests/out/servers.env}
# shellcheck disable=SC1090
[[ -z ${DG_PG_URL:-} && -f $ENV_FILE ]] && . "$ENV_FILE"
if [[ -z ${DG_PG_URL:-} ]]; then
    not_ok "SQLite + PostgreSQL at once" "no PostgreSQL server (DG_PG_URL unset; tests/run.sh starts one)"
else
    PG="postgres://dbgauge:$DG_PG_PASSWORD@127.0.0.1:$DG_PG_PORT/dbgauge"
    run_dg "$T_TMP/pgload.out" "$T_TMP/pgload.err" tpcc load --target "$PG" --warehouses 1 --drop
    check_exit "load PostgreSQL with 1 warehouse" 0
    run_dg "$T_TMP/mix.json" "$T_TMP/mix.err" tpcc run --target "sqlite:$A" --target "$PG" --vus 2 --duration 4s --results "$RES" --json
    check_exit "SQLite + PostgreSQL at once exit 0" 0
    verify "$T_TMP/mix.json" "mixed"
    check "mixed: engine per target" test "$(json_get "$T_TMP/mix.json" targets.0.engine)/$(json_get "$T_TMP/mix.json" targets.1.engine)" = sqlite/postgresql
    check "mixed: the run's engine names both" test "$(json_get "$T_TMP/mix.json" engine)" = "sqlite+postgresql"
    check "mixed: PostgreSQL's target redacted" test "$(json_get "$T_TMP/mix.json" targets.1.target)" = "postgres://dbgauge:***@127.0.0.1:$DG_PG_PORT/dbgauge"
    for f in "$T_TMP/mix.json" "$T_TMP/mix.err" "$RES"; do
        grep -qaF -- "$DG_PG_PASSWORD" "$f" && not_ok "mixed: no password in $(basename "$f")" "found" ||
            ok "mixed: no password in $(basename "$f")"
    done
    run_dg "$T_TMP/check.json" "$T_TMP/check.err" tpcc check --target "$PG" --json
    check "tpcc check of PostgreSQL passes after the run" test "$RC/$(json_get "$T_TMP/check.json" pass)" = 0/True
fi
# --- --targets and a job file's targets=: several targets in one value ------------------------
run_dg "$T_TMP/tl.json" "$T_TMP/tl.err" tpcc run --targets "sqlite:$A,sqlite:$B" --vus-per-target 1 --txns-per-vu 20 --results "$RES" --json
check_exit "--targets A,B exits 0" 0
check "--targets A,B drives both targets" test "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["targets"]), sum(t["committed"] for t in d["targets"]) > 0)' "$T_TMP/tl.json" 2>&1)" = "2 True"
expect_exit "--targets with an empty element exits 2" 2 tpcc run --targets "sqlite:$A,,sqlite:$B" --results "$RES"
expect_stderr "--targets with an empty element is named" "--targets: an empty target"
printf '[global]\nworkload=tpcc\ntargets=sqlite:%s,sqlite:%s\nvus_per_target=1\ntxns_per_vu=20\n[both]\n' "$A" "$B" >"$T_TMP/two.ini"
run_dg "$T_TMP/ex.json" "$T_TMP/ex.err" experiment "$T_TMP/two.ini" --results "$RES" --json
check_exit "a job file with targets= exits 0" 0
rid=$(json_get "$T_TMP/ex.json" steps.0.run_id 2>/dev/null)
run_dg "$T_TMP/exrun.json" "$T_TMP/exrun.err" runs show "${rid:-0}" --json --results "$RES"
check "the step of a targets= job file is one run over both targets, each with 20 transactions" \
    test "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([sum(x["committed"] + x["rollbacks"] for x in t["transactions"].values()) for t in d["targets"]])' "$T_TMP/exrun.json" 2>&1)" = "[20, 20]"

finish
