#!/usr/bin/env bash
# monitor.sh — the host and engine monitor end to end: live TPC-C runs on SQLite and PostgreSQL
# store one sample per second (warm-up included) with real CPU, process and cache figures,
# --no-monitor stores none, --monitor-device is checked, stress steps carry theirs. Uses
# tests/lib.sh; a missing PostgreSQL server is a `not ok`, never a silent skip.
. "$(dirname "$0")/../lib.sh"

DB=$T_TMP/tpcc.db
RES=$T_TMP/results.db

# mon_check FILE: prints ok / not ok lines about a `runs show ID --monitor --json` document.
# Arguments after FILE: LABEL WANT_SAMPLES FIRST_SECOND then what must be non-zero.
mon_check() {
    python3 - "$@" <<'PY'
import json, sys
path, label, want, first = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
need = sys.argv[5:]
d = json.load(open(path))
s = d.get("monitor_series", [])
def say(good, what):
    print(("ok" if good else "not ok") + f" - {label}: {what}")
say(len(s) == want, f"{len(s)} samples stored, measured + warm-up seconds = {want}")
secs = [p["second"] for p in s]
say(secs == list(range(first, first + want)), f"seconds run {first}..{first + want - 1} in order: {secs}")
say(all(p["phase"] == ("warmup" if p["second"] < 0 else "measure") for p in s), "phase follows the second")
for f in need:
    vals = [p[f] for p in s if p["second"] >= 0]
    say(bool(vals) and all(v is not None for v in vals) and sum(vals) > 0,
        f"{f} is there and non-zero in the measured seconds: {vals}")
m = d.get("monitor")
say(m is not None and m["measured_samples"] == sum(1 for x in secs if x >= 0), "the run's monitor means cover the measured samples")
if m is not None:
    for f in need:
        say(m[f] is not None and m[f] > 0, f"mean {f} > 0: {m[f]}")
PY
}

run_id() { json_get "$1" run_id; }

# relay: turns `ok - X` / `not ok - X: why` lines from a checker into this script's counts.
relay() {
    local line
    while IFS= read -r line; do
        case $line in
        "ok - "*) ok "${line#ok - }" ;;
        "not ok - "*) line=${line#not ok - }; not_ok "${line%%: *}" "${line#*: }" ;;
        *) echo "$line" ;;
        esac
    done
}

# --- SQLite: a live run, 2 s warm-up + 4 s -------------------------------------------------
sqlite_tpcc "$DB" || not_ok "sqlite load" "tpcc load failed: $(tail -n 3 "$T_TMP/fixture.err")"
run_dg "$T_TMP/run.json" "$T_TMP/run.err" tpcc run --target "sqlite:$DB" --vus 2 --duration 4s --warmup 2s --results "$RES" --json
check_exit "sqlite monitored run exits 0" 0
grep -Eq '^  monitor  CPU user [0-9.]+% sys [0-9.]+% iowait [0-9.]+%; disk [^ ]+ read .* MB/s, IOPS .*await .*cache hit ratio [0-9.]+%' "$T_TMP/run.err" &&
    ok "sqlite run summary has the monitor line" || not_ok "sqlite run summary has the monitor line" "$(grep -i monitor "$T_TMP/run.err")"
id=$(run_id "$T_TMP/run.json")
run_dg "$T_TMP/show.json" "$T_TMP/show.err" runs show "$id" --monitor --json --results "$RES"
check_exit "runs show --monitor --json exits 0" 0
relay < <(mon_check "$T_TMP/show.json" "sqlite" 6 -2 cpu_user_pct server_rss_bytes cache_hits_per_s)
dev=$(json_get "$T_TMP/run.json" monitor.device)
want_dev=$(python3 -c 'import os,sys
st=os.stat(sys.argv[1]); mm="%d %d" % (os.major(st.st_dev), os.minor(st.st_dev))
name="none"
for l in open("/proc/diskstats"):
    f=l.split()
    if f[0]+" "+f[1]==mm: name=f[2]
print(name)' "$DB")
check "sqlite: the device watched is the one holding the file ($want_dev)" test "$dev" = "$want_dev"
run_dg "$T_TMP/show.txt" "$T_TMP/show.err" runs show "$id" --monitor --results "$RES"
check "runs show --monitor prints one line per second" test "$(grep -cE '^ +-?[0-9]+  ' "$T_TMP/show.txt")" = 6

# --- --no-monitor stores none --------------------------------------------------------------
run_dg "$T_TMP/nomon.json" "$T_TMP/nomon.err" tpcc run --target "sqlite:$DB" --vus 1 --duration 2s --no-monitor --results "$RES" --json
check_exit "--no-monitor run exits 0" 0
id2=$(run_id "$T_TMP/nomon.json")
check "--no-monitor: no row in run_monitor" test "$(sqlite3 "$RES" "SELECT COUNT(*) FROM run_monitor WHERE run_id = $id2")" = 0
check "--no-monitor: no monitor object in the JSON" test "$(python3 -c 'import json,sys; print("monitor" in json.load(open(sys.argv[1])))' "$T_TMP/nomon.json")" = False
grep -q "monitor  CPU" "$T_TMP/nomon.err" && not_ok "--no-monitor: no monitor line" "printed one" || ok "--no-monitor: no monitor line"

# --- --monitor-device ------------------------------------------------------------------------
expect_exit "--monitor-device with no such device exits 2" 2 tpcc run --target "sqlite:$DB" --monitor-device nosuchdisk0 --results "$RES"
expect_stderr "--monitor-device error names the option and the value" "--monitor-device: 'nosuchdisk0'"
run_dg "$T_TMP/none.json" "$T_TMP/none.err" tpcc run --target "sqlite:$DB" --vus 1 --duration 2s --monitor-device none --results "$RES" --json
check "--monitor-device none: device none" test "$(json_get "$T_TMP/none.json" monitor.device)" = none
check "--monitor-device none: no disk figures" test "$(json_get "$T_TMP/none.json" monitor.disk_read_mb_s)" = None

expect_exit "runs --monitor without show exits 2" 2 runs --monitor --results "$RES"
expect_stderr "runs --monitor without show says what it goes with" "--monitor goes with 'runs show ID'"
expect_exit "runs show --monitor --series exits 2" 2 runs show "$id" --monitor --series --results "$RES"
expect_exit "stress prepare takes no --no-monitor" 2 stress prepare --target "sqlite:$T_TMP/x.db" --no-monitor
run_dg "$T_TMP/old.txt" "$T_TMP/old.err" runs show "$id2" --monitor --results "$RES"
grep -q "no monitor samples" "$T_TMP/old.txt" && ok "runs show --monitor of an unmonitored run says so" ||
    not_ok "runs show --monitor of an unmonitored run says so" "$(head -3 "$T_TMP/old.txt")"

# --- stress steps carry their own samples ------------------------------------------------------
"$DG" stress prepare --target "sqlite:$T_TMP/stress.db" --rows 20000 >/dev/null 2>&1 || not_ok "stress prepare" "failed"
run_dg "$T_TMP/stress.json" "$T_TMP/stress.err" stress --target "sqlite:$T_TMP/stress.db" --threads 1,2 --duration 2s --results "$RES" --json
check_exit "monitored stress exits 0" 0
relay < <(python3 - "$T_TMP/stress.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for s in d["steps"]:
    m = s.get("monitor")
    good = m is not None and m["samples"] == 2 and m["cpu_user_pct"] is not None and m["cpu_user_pct"] > 0
    print(("ok" if good else "not ok") + f" - stress step {s['threads']} threads: 2 samples with CPU: {m}")
PY
)
grep -Eq '^ +2 threads monitor  CPU' "$T_TMP/stress.err" &&
    ok "stress table shows each step's monitor line" || not_ok "stress table shows each step's monitor line" "$(tail -4 "$T_TMP/stress.err")"

# --- PostgreSQL: the server's cache hits and its processes ------------------------------------
ENV_FILE=${DG_SERVERS_ENV:-$DG_ROOT/tests/out/servers.env}
# shellcheck disable=SC1090
[[ -z ${DG_PG_URL:-} && -f $ENV_FILE ]] && . "$ENV_FILE"
if [[ -z ${DG_PG_URL:-} ]]; then
    not_ok "monitor on PostgreSQL" "no PostgreSQL server (DG_PG_URL unset)"
else
    export PGPASSWORD=$DG_PG_PASSWORD
    "$DG" tpcc load --target "$DG_PG_URL" --warehouses 1 --drop >/dev/null 2>&1 || not_ok "pg load" "tpcc load failed"
    run_dg "$T_TMP/pg.json" "$T_TMP/pg.err" tpcc run --target "$DG_PG_URL" --vus 2 --duration 4s --warmup 1s --results "$RES" --json
    check_exit "pg monitored run exits 0" 0
    run_dg "$T_TMP/pgshow.json" "$T_TMP/pgshow.err" runs show "$(run_id "$T_TMP/pg.json")" --monitor --json --results "$RES"
    relay < <(mon_check "$T_TMP/pgshow.json" "pg" 5 -1 cpu_user_pct cache_hits_per_s server_rss_bytes)
    ratio=$(json_get "$T_TMP/pg.json" monitor.cache_hit_ratio)
    num_cmp "pg: cache hit ratio above 0" "$ratio" ">" 0
    num_cmp "pg: cache hit ratio at most 1" "$ratio" "<=" 1
    grep -qF "$DG_PG_PASSWORD" "$RES" && not_ok "pg: no password in the results" "found" || ok "pg: no password in the results"
fi

finish
