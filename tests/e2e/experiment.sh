#!/usr/bin/env bash
# experiment.sh — job files end to end: a db_memory sweep on a real SQLite file stored as linked
# runs with the cache size each recorded and a step table whose changes agree with the stored
# figures; --dry-run stores nothing; bad job files exit 2 naming FILE:LINE; a failed step is
# stored and the experiment goes on; mem_cap is applied or said; every recipe stays valid; and
# on the harness's PostgreSQL a restart per step records the new shared_buffers.
. "$(dirname "$0")/../lib.sh"

RES=$T_TMP/results.db
DB=$T_TMP/tpcc.db
py() { python3 - "$@"; }
nruns() { sqlite3 "$RES" "select count(*) from run" 2>/dev/null || echo 0; }

check "a 1-warehouse SQLite database (sqlite_tpcc)" sqlite_tpcc "$DB"

cat >"$T_TMP/mem.ini" <<INI
; a 3-step memory sweep
[global]
workload=tpcc
target=sqlite:$DB
vus=1
duration=2s
db_memory=8M,2M,512k
INI

# --dry-run: the plan, nothing stored
run_dg "$T_TMP/dry.out" "$T_TMP/dry.err" experiment "$T_TMP/mem.ini" --dry-run --results "$RES"
check_exit "dry-run exits 0" 0
check "dry-run prints 3 steps" test "$(grep -c '^step [0-9]/3' "$T_TMP/dry.out")" = 3
check "dry-run shows each step's command" grep -q -- "--db-memory 512k" "$T_TMP/dry.out"
check "dry-run stores nothing" test ! -s "$RES"

# the sweep
run_dg "$T_TMP/ex.json" "$T_TMP/ex.err" experiment "$T_TMP/mem.ini" --results "$RES" --json --csv "$T_TMP/ex.csv" --label memsweep
check_exit "3-step db_memory sweep exits 0" 0
[[ $RC == 0 ]] || sed 's/^/# /' "$T_TMP/ex.err" | tail -20
EXP=$(json_get "$T_TMP/ex.json" experiment_id 2>/dev/null)
for k in 0 1 2; do
    id=$(json_get "$T_TMP/ex.json" "steps.$k.run_id" 2>/dev/null)
    "$DG" runs show "${id:-0}" --results "$RES" --json >"$T_TMP/run$k.json" 2>/dev/null
done
"$DG" experiment show "${EXP:-0}" --results "$RES" >"$T_TMP/show.txt" 2>&1
check "experiment show ID exits 0" test $? = 0
"$DG" runs --results "$RES" >"$T_TMP/runs.txt"
py "$T_TMP" "$EXP" >"$T_TMP/py.out" <<'PY'
import json, sys, csv
d = sys.argv[1]; exp = int(sys.argv[2] or 0)
ex = json.load(open(f"{d}/ex.json"))
runs = [json.load(open(f"{d}/run{k}.json")) for k in range(3)]
def say(c, what): print(("ok" if c else "not ok") + " - " + what)
say(ex["schema_version"] >= 1 and len(ex["steps"]) == 3, "JSON: schema_version and 3 steps")
say([s["db_memory"] for s in ex["steps"]] == ["8M", "2M", "512k"], "JSON: each step carries its swept value")
say(all(r["experiment_id"] == exp for r in runs) and [r["experiment_step"] for r in runs] == [1, 2, 3],
    "the 3 stored runs are linked to the experiment, in step order")
cache = [r["settings"].get("cache_size") for r in runs]
say(cache == ["-8192", "-2048", "-512"], f"each run records its own cache size: {cache}")
say(all(r["memory"]["db_memory_bytes"] == b for r, b in zip(runs, [8 << 20, 2 << 20, 512 << 10])),
    "each run records the db_memory it asked for")
nopm = [r["nopm"] for r in runs]
say(all(n > 0 for n in nopm), f"every step measured something: NOPM {nopm}")
okp = True
for k in range(1, 3):
    prev = 100 * (nopm[k] / nopm[k - 1] - 1); first = 100 * (nopm[k] / nopm[0] - 1)
    s = ex["steps"][k]
    okp &= abs(s["change_prev_pct"] - prev) < 1e-6 and abs(s["change_first_pct"] - first) < 1e-6
    show = open(f"{d}/show.txt").read()
    say(f"{prev:+.1f}%" in show and f"{first:+.1f}%" in show, f"step {k+1}: the table shows {prev:+.1f}% and {first:+.1f}% (recomputed from runs show)")
say(okp and ex["steps"][0]["change_prev_pct"] is None, "JSON changes equal those recomputed from the stored NOPM")
rows = list(csv.DictReader(open(f"{d}/ex.csv")))
say(len(rows) == 3 and [float(r["nopm"]) for r in rows] == nopm and rows[2]["db_memory"] == "512k",
    "CSV: one row per step with the stored NOPM")
say(all(r["label"] == "memsweep" for r in runs), "--label reaches every step's run")
# The monitor's columns: each step's storage traffic and cache hit ratio are its run's means.
def same(a, b): return (a is None and b is None) or (a is not None and b is not None and abs(a - b) < 1e-9)
mon_ok = all(same(s["disk_write_mb_s"], r["monitor"]["disk_write_mb_s"]) and
             same(s["disk_read_mb_s"], r["monitor"]["disk_read_mb_s"]) and
             same(s["cache_hit_ratio"], r["monitor"]["cache_hit_ratio"]) for s, r in zip(ex["steps"], runs))
say(mon_ok, "step table: disk MB/s and cache hit ratio equal each run's monitor means")
say(all(s["cache_hit_ratio"] is not None and 0 < s["cache_hit_ratio"] <= 1 for s in ex["steps"]),
    "every step has a cache hit ratio from SQLite's own counters")
say(all(rows[k]["cache_hit_ratio"] != "" and abs(float(rows[k]["cache_hit_ratio"]) - ex["steps"][k]["cache_hit_ratio"]) < 1e-5
        for k in range(3)), "CSV: the cache hit ratio column")
say("hit %" in open(f"{d}/show.txt").read(), "the text table has the monitor's columns")
say(f"{exp}.3" in open(f"{d}/runs.txt").read(), "dbgauge runs shows the experiment and step")
PY
relay <"$T_TMP/py.out"

# bad job files: exit 2, FILE:LINE and the key, nothing stored
before=$(nruns)
bad() { # bad NAME LINE KEY TEXT
    printf '%b' "$4" >"$T_TMP/bad.ini"
    expect_exit "bad job file ($1) exits 2" 2 experiment "$T_TMP/bad.ini" --results "$RES"
    if grep -q "bad.ini:$2:.*$3" "$T_TMP/last.err"; then ok "bad job file ($1) names bad.ini:$2 and '$3'"; else
        not_ok "bad job file ($1) names bad.ini:$2 and '$3'" "$(cat "$T_TMP/last.err")"; fi
}
bad "unknown key" 3 "vuz" "[global]\ntarget=sqlite:$DB\nvuz=4\n"
bad "bad value" 2 "vus" "[global]\nvus=0\n"
bad "bad value in a list" 2 "duration" "[global]\nduration=2s,zz\n"
bad "bad section name" 3 "x y" "[global]\nvus=1\n[x y]\n"
bad "list in a step section" 4 "vus" "[global]\n[one]\n\nvus=1,2\n"
bad "key before any section" 1 "vus" "vus=1\n[global]\n"
bad "unknown workload" 2 "workload" "[global]\nworkload=tpch\n"
bad "option of another workload" 3 "threads" "[global]\nworkload=tpcc\nthreads=2\n"
bad "options that do not go together (named at the step)" 3 "step \\[s\\]: --txns-per-vu" "[global]\ntxns_per_vu=5\n[s]\nduration=2s\n"
bad "results in a job file" 2 "results" "[global]\nresults=x.db\n"
check "bad job files store nothing" test "$(nruns)" = "$before"

# a failed step is stored as failed; the others run
cat >"$T_TMP/fail.ini" <<INI
[global]
target=sqlite:$DB
txns_per_vu=20
[good]
[missing]
target=sqlite:$T_TMP/no-such.db
[after]
vus=2
INI
run_dg "$T_TMP/f.json" "$T_TMP/f.err" experiment "$T_TMP/fail.ini" --results "$RES" --json
check_exit "an experiment with a failed step exits 1" 1
py "$T_TMP/f.json" >"$T_TMP/py.out" <<'PY'
import json, sys
st = json.load(open(sys.argv[1]))["steps"]
def say(c, what): print(("ok" if c else "not ok") + " - " + what)
say([s["status"] for s in st] == ["complete", "failed", "complete"], f"failed step stored as failed, the next one ran: {[s['status'] for s in st]}")
say(len(st) == 3 and "no-such.db" in st[1]["summary"].get("error", ""), "the failed step's error is stored")
say([s["section"] for s in st] == ["good", "missing", "after"], "steps named by their sections")
PY
relay <"$T_TMP/py.out"

# mem_cap: applied (a cgroup) or said to be not applied, and recorded either way
printf '[global]\ntarget=sqlite:%s\ntxns_per_vu=20\nmem_cap=1G\n' "$DB" >"$T_TMP/cap.ini"
run_dg "$T_TMP/c.json" "$T_TMP/c.err" experiment "$T_TMP/cap.ini" --results "$RES" --json
check_exit "mem_cap step exits 0" 0
py "$T_TMP/c.json" >"$T_TMP/py.out" <<'PY'
import json, sys, os, re
m = json.load(open(sys.argv[1]))["steps"][0]["summary"].get("memory", {})
said = [x for x in m.get("applied", []) + m.get("not_applied", []) if x.startswith("mem_cap")]
print(("ok" if said else "not ok") + f" - mem_cap is recorded as applied or not: {said}")
g = re.search(r" in (/sys/fs/cgroup/\S+)", " ".join(m.get("applied", [])))
print(("ok" if not g or not os.path.exists(g.group(1)) else "not ok") + " - the cgroup is removed after the step")
PY
relay <"$T_TMP/py.out"

# the command's own usage errors
expect_exit "experiment without a job file exits 2" 2 experiment --results "$RES"
expect_exit "experiment show of an unknown id exits 2" 2 experiment show 999 --results "$RES"
expect_stderr "experiment show of an unknown id says so" "no experiment 999"
expect_exit "a missing job file exits 2" 2 experiment "$T_TMP/none.ini" --results "$RES"
expect_stderr "a missing job file is named" "none.ini"

# the same knob on the command line of tpcc run
run_dg "$T_TMP/cli.json" "$T_TMP/cli.err" tpcc run --target "sqlite:$DB" --txns-per-vu 20 --db-memory 1M --results "$RES" --json
check_exit "tpcc run --db-memory 1M exits 0" 0
check "tpcc run --db-memory 1M records cache_size -1024" test "$(json_get "$T_TMP/cli.json" settings.cache_size 2>/dev/null)" = -1024
expect_exit "--db-memory with a bad size exits 2" 2 tpcc run --target "sqlite:$DB" --db-memory lots --results "$RES"
expect_stderr "--db-memory with a bad size names the option" "--db-memory: 'lots'"
expect_exit "--pg-ctl without --pg-datadir exits 2" 2 stress --target "sqlite:$DB" --pg-ctl /bin/true --results "$RES"
expect_exit "--restart-cmd with --pg-datadir exits 2" 2 tpcc run --target "sqlite:$DB" --restart-cmd true --pg-datadir /tmp --results "$RES"

# every recipe stays valid
for r in "$DG_ROOT"/recipes/*/job.ini; do
    expect_exit "recipe $(basename "$(dirname "$r")") passes --dry-run" 0 experiment "$r" --dry-run --results "$T_TMP/none.db"
done

# PostgreSQL: shared_buffers with a restart per step
if [[ -z ${DG_PG_DATADIR:-} || -z ${DG_PG_PORT:-} ]]; then
    not_ok "PostgreSQL memory sweep" "no PostgreSQL server from tests/servers.sh (DG_PG_DATADIR unset)"
elif [[ $(id -u) != 0 ]] && [[ $(stat -c %U "$DG_PG_DATADIR") != $(id -un) ]]; then
    not_ok "PostgreSQL memory sweep" "needs root or the data directory's owner to restart the server"
else
    ADMIN="postgresql:///postgres?host=$DG_PG_DATADIR&port=$DG_PG_PORT&user=postgres"
    cat >"$T_TMP/pg.ini" <<INI
[global]
workload=stress
target=$ADMIN
query=select 1
iterations=50
pg_datadir=$DG_PG_DATADIR
db_memory=24M,40M
INI
    run_dg "$T_TMP/pg.json" "$T_TMP/pg.err" experiment "$T_TMP/pg.ini" --results "$RES" --json
    check_exit "pg: 2-step shared_buffers sweep with pg_ctl restart exits 0" 0
    [[ $RC == 0 ]] || sed 's/^/# /' "$T_TMP/pg.err" | tail -20
    # the restart command the user gives: run through /bin/sh, its text never stored nor printed
    PGCTL=/usr/lib/postgresql/15/bin/pg_ctl
    RUNAS=""; [[ $(id -u) == 0 ]] && RUNAS="runuser -u postgres --"
    cat >"$T_TMP/pgcmd.ini" <<INI
[global]
workload=stress
target=$ADMIN
query=select 1
iterations=50
restart_cmd=DG_SECRET_TOKEN=s3cr3t-77 $RUNAS $PGCTL restart -w -m fast -D $DG_PG_DATADIR -l $DG_PG_DATADIR/restart.log >/dev/null
db_memory=32M
INI
    run_dg "$T_TMP/pgc.json" "$T_TMP/pgc.err" experiment "$T_TMP/pgcmd.ini" --results "$RES" --json
    check_exit "pg: restart_cmd step exits 0" 0
    [[ $RC == 0 ]] || sed 's/^/# /' "$T_TMP/pgc.err" | tail -20
    if grep -aq "s3cr3t-77" "$RES" "$T_TMP/pgc.err" "$T_TMP/pgc.json"; then
        not_ok "pg: the restart command is neither stored nor printed" "found its secret"
    else ok "pg: the restart command is neither stored nor printed"; fi
    # without a way to restart: set for later, and said to be not applied (same size: nothing pending)
    run_dg "$T_TMP/pgn.json" "$T_TMP/pgn.err" stress --target "$ADMIN" --query "select 1" --db-memory 32M --results "$RES" --json
    check_exit "pg: --db-memory without a restart still runs" 0
    check "pg: --db-memory without a restart says it was not applied" grep -q "db_memory not applied: .*restart_cmd= or pg_datadir=" "$T_TMP/pgn.err"
    id=$(json_get "$T_TMP/pgn.json" steps.0.run_id 2>/dev/null)
    "$DG" runs show "${id:-0}" --results "$RES" --json >"$T_TMP/pgn-run.json" 2>/dev/null
    check "pg: ... and stores that with the run" grep -q "not applied" "$T_TMP/pgn-run.json"
    py "$T_TMP/pg.json" "$T_TMP/pgc.json" >"$T_TMP/py.out" <<'PY'
import json, sys
def say(c, what): print(("ok" if c else "not ok") + " - " + what)
st = json.load(open(sys.argv[1]))["steps"]
sb = [s["summary"]["settings"].get("shared_buffers") for s in st]
say(sb == ["24MB", "40MB"], f"pg: each step records the new shared_buffers: {sb}")
say(all("server restarted" in " ".join(s["summary"]["memory"]["applied"]) for s in st), "pg: each step says the server was restarted")
c = json.load(open(sys.argv[2]))["steps"][0]["summary"]["settings"].get("shared_buffers")
say(c == "32MB", f"pg: restart_cmd step records shared_buffers 32MB: {c}")
PY
    relay <"$T_TMP/py.out"
fi
finish
