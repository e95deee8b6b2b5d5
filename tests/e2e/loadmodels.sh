#!/usr/bin/env bash
# loadmodels.sh — the three load models on a real SQLite file (and the null driver for the
# scale of terminals): open-loop rate kept and missed, keying and think times, per-second series.
. "$(dirname "$0")/../lib.sh"

mem_tmp # the rate and think-time checks time SQLite's writes: in memory, not on the shared disk
DB=$T_MEM/tpcc.db
TGT=sqlite:$DB
RES=$T_TMP/results.db
sqlite_tpcc "${TGT#sqlite:}" || not_ok "load" "tpcc load failed: $(tail -n 3 "$T_TMP/fixture.err")"

py() { python3 - "$@"; }
# capacity JSON: the run's committed transactions a second, whole (0 when it cannot be read)
capacity() {
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(int(sum(v["committed"] for v in d["transactions"].values()) / d["measured_seconds"]))' "$1" 2>/dev/null || echo 0
}

# --- open loop: the verdict tells a rate the database keeps from one it cannot -----------------
# This SQLite file's capacity C with 2 workers is measured first (closed loop, 5 s, on this
# build and this machine as they are now); then a rate the file keeps whatever runs beside
# it, C/4 but at most 100/s, must be judged kept up, and one of 10C must be said to fall
# behind. Relative to C, neither depends on the machine's speed or on the sanitizer the
# binary was built with. Why not C/4 alone: SQLite runs inside dbgauge, so C is the CPU this
# process gets, and a busy neighbour cut it more than 4 times between the two runs (ASan
# build in tmpfs beside `dd conv=fsync` and a CPU hog: C 1,138/s, then 133 of 2,839 arrivals
# late at C/4; at 100/s four runs of four kept up, start lag p99 at most 7.3 ms). There the
# verdict "fell behind" was true: this check is about the verdict, not about the neighbour.
run_dg "$T_TMP/cap.json" "$T_TMP/cap.err" tpcc run --target "$TGT" --vus 2 --warmup 1s --duration 5s --results "$RES" --json
check_exit "capacity run (closed loop, 2 VUs) exits 0" 0
CAP=$(capacity "$T_TMP/cap.json")
num_cmp "capacity measured: $CAP transactions/s" "$CAP" ">=" 20
KEEP=$((CAP / 4 < 100 ? CAP / 4 : 100))
# That run goes at real-time priority (chrt -f 10: CI runs as root). In tmpfs it waits only
# for the CPU, and a neighbour's threads on both cores still delayed it: CI saw 30 of 1,001
# arrivals late, two stalls of about 140 ms, beside the other lane's suite. The verdict's
# rule is unchanged; the neighbour just cannot take the CPU from it.
printf '#!/bin/sh\nexec chrt -f 10 %q "$@"\n' "$DG" >"$T_TMP/dg-rt"
chmod +x "$T_TMP/dg-rt"
DG_PLAIN=$DG DG=$T_TMP/dg-rt
run_dg "$T_TMP/rate.json" "$T_TMP/rate.err" tpcc run --target "$TGT" --vus 2 --rate "$KEEP" --arrivals uniform --duration 10s --results "$RES" --json
DG=$DG_PLAIN
check_exit "rate min(C/4, 100) = $KEEP/s run (at real-time priority) exits 0" 0
py "$T_TMP/rate.json" "$KEEP" >"$T_TMP/rate.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rate = int(sys.argv[2])
want = 10 * rate
n = sum(v["count"] for v in d["transactions"].values())
print(("ok" if abs(n - want) <= want // 20 else "not ok") + f" - rate min(C/4, 100) = {rate}/s for 10 s completes {want} +-5%: {n}")
print(("ok" if d["rate"]["kept_up"] else "not ok") + f" - rate min(C/4, 100) = {rate}/s is kept up: {d['rate']} {d['schedule']}, start lag p99 {d['lag_p99_ms']} ms, max {d['lag_max_ms']} ms")
print(("ok" if d["latency_from"] == "intended_start" else "not ok") + " - rate run times from the intended start")
no = d["transactions"]["new_order"]
print(("ok" if no["p50_ms"] >= no["service_p50_ms"] else "not ok") + f" - response time >= service time: {no['p50_ms']} vs {no['service_p50_ms']}")
PY
relay <"$T_TMP/rate.txt"

# 10C must be a rate the file cannot keep. C is measured again just before (3 s): a neighbour
# that slowed the first measurement may have gone by now. The larger of the two is C. At 3C
# the file did more than half of it twice in CI (C read 119/s, then 357/s were all done, late
# but not short; with C measured twice, 262/s, then 487 of 786/s done): what the other lane
# does moves C by 2x. At 10C a run must do less than half, as it must on any machine where C
# is not off by 5x.
run_dg "$T_TMP/cap2.json" "$T_TMP/cap2.err" tpcc run --target "$TGT" --vus 2 --warmup 1s --duration 3s --results "$RES" --json
check_exit "capacity measured again (closed loop, 2 VUs) exits 0" 0
CAP2=$(capacity "$T_TMP/cap2.json")
((CAP2 > CAP)) && CAP=$CAP2
OVER=$((10 * CAP))
run_dg "$T_TMP/over.json" "$T_TMP/over.err" tpcc run --target "$TGT" --vus 2 --rate "$OVER" --duration 5s --results "$RES" --json
check_exit "rate 10C = $OVER/s run exits 0" 0
grep -q "FELL BEHIND" "$T_TMP/over.err" && ok "rate 10C: falling behind is said in the text" || not_ok "rate 10C: falling behind is said in the text" "$(grep rate "$T_TMP/over.err")"
py "$T_TMP/over.json" >"$T_TMP/over.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["rate"]
print(("ok" if not r["kept_up"] and r["achieved_per_s"] < 0.5 * r["asked_per_s"] else "not ok") + f" - rate 10C: the shortfall is reported: {r} {d['schedule']}")
no = d["transactions"]["new_order"]
print(("ok" if no["p50_ms"] > 20 * no["service_p50_ms"] and no["p50_ms"] > 100 else "not ok") + f" - rate 10C: queueing shows in response time: p50 {no['p50_ms']} ms vs service {no['service_p50_ms']} ms")
print(("ok" if d["lag_p99_ms"] > 100 else "not ok") + f" - rate 10C: the start lag grows: p99 {d['lag_p99_ms']} ms")
PY
relay <"$T_TMP/over.txt"

# --- keying and think times: 1 warehouse, 10 terminals, 2 workers, times scaled by 1/100 -------
run_dg "$T_TMP/think.json" "$T_TMP/think.err" tpcc run --target "$TGT" --vus 2 --think-time --think-time-scale 0.01 --warmup 2s --duration 30s --results "$RES" --json
check_exit "think-time run exits 0" 0
py "$T_TMP/think.json" >"$T_TMP/think.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = d["transactions"]
n = sum(v["count"] for v in t.values())
print(("ok" if d["terminals"] == 10 else "not ok") + f" - 10 terminals for 1 warehouse: {d['terminals']}")
# The 23-card deck's mean cycle: keying + think, (10*(18+12) + 10*(3+12) + (2+10) + 2*(2+5)) / 23 s.
cycle = (10 * 30 + 10 * 15 + 12 + 7 + 7) / 23 * 0.01
resp = sum(v["count"] * v["avg_ms"] for v in t.values()) / n / 1000.0
want = 10 * d["measured_seconds"] / (cycle + resp)
print(("ok" if abs(n / want - 1) < 0.10 else "not ok") + f" - per-terminal rate follows the keying and think means (+-10%): {n} done, {want:.0f} expected")
share = {k: 100.0 * v["count"] / n for k, v in t.items()}
ok = abs(share["new_order"] - 43.48) < 5 and abs(share["payment"] - 43.48) < 5 and all(abs(share[k] - 4.35) < 2.5 for k in ("order_status", "delivery", "stock_level"))
print(("ok" if ok else "not ok") + f" - committed mix follows the deck (+-5 / +-2.5 points): {share}")
print(("ok" if "tpmc" not in d and d["think_time_scale"] == 0.01 else "not ok") + " - no tpmC for scaled times")
print(("ok" if all("p90_pass" in v for v in t.values()) else "not ok") + " - each type's 90th percentile is judged against its limit")
PY
while read -r l; do case $l in "ok - "*) ok "${l#ok - }" ;; *) not_ok "${l#not ok - }" "" ;; esac; done <"$T_TMP/think.txt"

# --- the per-second series adds up to the run's totals ---------------------------------------
for f in think rate; do
    id=$(json_get "$T_TMP/$f.json" run_id)
    run_dg "$T_TMP/series-$f.json" "$T_TMP/series.err" runs show "$id" --series --json --results "$RES"
    py "$T_TMP/series-$f.json" "$f" >"$T_TMP/s.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["series"]
meas = [p for p in s if p["second"] >= 0]
tot = {k: v["committed"] for k, v in d["transactions"].items()}
sums = {k: sum(p["transactions"][k]["committed"] for p in meas) for k in tot}
print(("ok" if sums == tot else "not ok") + f" - {sys.argv[2]} series: per-second committed counts add up to the totals: {sums} vs {tot}")
print(("ok" if len(meas) == round(d["measured_seconds"]) else "not ok") + f" - {sys.argv[2]} series: one point per measured second: {len(meas)}")
warm = [p for p in s if p["second"] < 0]
print(("ok" if len(warm) == round(d["warmup_seconds"]) else "not ok") + f" - {sys.argv[2]} series: warm-up seconds flagged: {len(warm)}")
PY
    while read -r l; do case $l in "ok - "*) ok "${l#ok - }" ;; *) not_ok "${l#not ok - }" "" ;; esac; done <"$T_TMP/s.txt"
done
run_dg "$T_TMP/series.txt" "$T_TMP/series.err" runs show "$id" --series --results "$RES"
grep -Eq '^ +0  measure' "$T_TMP/series.txt" && ok "runs show --series prints seconds" || not_ok "runs show --series prints seconds" "$(head -3 "$T_TMP/series.txt")"

# --- many terminals over few workers with the null driver ------------------------------------
run_dg "$T_TMP/null.json" "$T_TMP/null.err" tpcc run --target null: --warehouses 300 --think-time --think-time-scale 0.1 --vus 4 --duration 8s --results "$RES" --json
check_exit "null driver, 3,000 terminals over 4 workers exits 0" 0
check "null driver run has 3,000 terminals" test "$(json_get "$T_TMP/null.json" terminals)" = 3000
# A scheduler that cannot keep up shows a lag that grows with the run, to seconds (the overloaded
# run above); one that keeps up stays near the timer's resolution whatever the machine's load.
# 100 ms tells the two apart without timing this machine (bench/ measures the lag itself).
num_cmp "null driver keeps up with 3,000 terminals: schedule lag p99 under 100 ms" "$(json_get "$T_TMP/null.json" lag_p99_ms)" "<" 100

# --- bad combinations --------------------------------------------------------------------------
expect_exit "--rate with --think-time exits 2" 2 tpcc run --target "$TGT" --rate 10 --think-time
expect_exit "--arrivals without --rate exits 2" 2 tpcc run --target "$TGT" --arrivals uniform
expect_exit "--rate 0 exits 2" 2 tpcc run --target "$TGT" --rate 0
expect_exit "--think-time-scale without --think-time exits 2" 2 tpcc run --target "$TGT" --think-time-scale 0.1
expect_exit "--warehouses on a real database's run exits 2" 2 tpcc run --target "$TGT" --warehouses 5 --results "$RES"
expect_stderr "--warehouses misuse is explained" "null: target only"
finish
