#!/usr/bin/env bash
# mysql_experiment.sh — `dbgauge experiment` on a real MariaDB server: a 2-step db_memory sweep
# of TPC-C in its own database, each step stored as a linked run with its figures and the
# innodb_buffer_pool_size it ran with (resized live, read back from the server), and the step
# table's changes equal to those recomputed from the stored runs. The caller (tests/run.sh)
# starts and stops the server; this only reads tests/out/servers.env and never skips silently.
. "$(dirname "$0")/../lib.sh"

need_server DG_MY_PORT "mysql experiment" "no MariaDB server"
RES=$T_TMP/results.db
MY=(mariadb -h127.0.0.1 -P"$DG_MY_PORT" -uroot -N -B)
DB=dg_e2e_experiment
# root: SET GLOBAL innodb_buffer_pool_size needs it (the test server's root has no password)
TGT="mysql://root@127.0.0.1:$DG_MY_PORT/$DB"
unset DG_MYSQL_PASSWORD MYSQL_PWD
pool_before=$("${MY[@]}" -e "SELECT @@innodb_buffer_pool_size" 2>/dev/null)
cleanup() {
    [[ -n $pool_before ]] && "${MY[@]}" -e "SET GLOBAL innodb_buffer_pool_size = $pool_before" >/dev/null 2>&1
    "${MY[@]}" -e "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1
    rm -rf "$T_TMP"
}
trap cleanup EXIT

if ! "${MY[@]}" -e "DROP DATABASE IF EXISTS $DB; CREATE DATABASE $DB" >"$T_TMP/my.err" 2>&1; then
    not_ok "mysql experiment" "cannot create database $DB: $(head -c 200 "$T_TMP/my.err")"
    finish
    exit 1
fi
expect_exit "load 1 warehouse into MariaDB" 0 tpcc load --target "$TGT" --warehouses 1 --jobs 2

cat >"$T_TMP/mem.ini" <<INI
; a 2-step InnoDB buffer pool sweep
[global]
workload=tpcc
target=$TGT
vus=2
duration=3s
db_memory=192M,384M
INI
run_dg "$T_TMP/dry.out" "$T_TMP/dry.err" experiment "$T_TMP/mem.ini" --dry-run --results "$RES"
check "dry-run prints 2 steps" test "$(grep -c '^step [0-9]/2' "$T_TMP/dry.out")" = 2

run_dg "$T_TMP/ex.json" "$T_TMP/ex.err" experiment "$T_TMP/mem.ini" --results "$RES" --json --label mysweep
check_exit "2-step db_memory sweep on MariaDB exits 0" 0
[[ $RC == 0 ]] || sed 's/^/# /' "$T_TMP/ex.err" | tail -20
pool_after=$("${MY[@]}" -e "SELECT @@innodb_buffer_pool_size" 2>&1)
check "the server's innodb_buffer_pool_size is the last step's 384M ($pool_after)" test "$pool_after" = $((384 << 20))
EXP=$(json_get "$T_TMP/ex.json" experiment_id 2>/dev/null)
for k in 0 1; do
    id=$(json_get "$T_TMP/ex.json" "steps.$k.run_id" 2>/dev/null)
    "$DG" runs show "${id:-0}" --results "$RES" --json >"$T_TMP/run$k.json" 2>/dev/null
done
"$DG" experiment show "${EXP:-0}" --results "$RES" >"$T_TMP/show.txt" 2>&1
check "experiment show ID exits 0" test $? = 0

python3 - "$T_TMP" "${EXP:-0}" >"$T_TMP/py.out" <<'PY'
import json, sys
d = sys.argv[1]; exp = int(sys.argv[2])
ex = json.load(open(f"{d}/ex.json"))
runs = [json.load(open(f"{d}/run{k}.json")) for k in range(2)]
def say(c, what): print(("ok" if c else "not ok") + " - " + what)
st = ex["steps"]
say(len(st) == 2 and [s["status"] for s in st] == ["complete", "complete"], "JSON: 2 complete steps")
say([s["db_memory"] for s in st] == ["192M", "384M"], "JSON: each step carries its swept value")
say(all(r["experiment_id"] == exp for r in runs) and [r["experiment_step"] for r in runs] == [1, 2],
    "the 2 stored runs are linked to the experiment, in step order")
say(all(r["engine"] == "mariadb" for r in runs), "the stored runs record the engine: mariadb")
want = [192 << 20, 384 << 20]
pool = [int(r["settings"].get("innodb_buffer_pool_size", 0)) for r in runs]
say(pool == want, f"each run records the buffer pool it ran with: {pool}")
say([r["memory"]["db_memory_bytes"] for r in runs] == want, "each run records the db_memory it asked for")
say(all(r["memory"]["not_applied"] == [] and any("applied at once" in a for a in r["memory"]["applied"]) for r in runs),
    "each run records the knob as applied at once (no restart)")
nopm = [r["nopm"] for r in runs]
say(all(n > 0 for n in nopm), f"every step measured something: NOPM {nopm}")
say(all(sum(t["errors"] for t in r["transactions"].values()) == 0 for r in runs), "no step had errors")
say([s["nopm"] for s in st] == nopm and [s["tpm"] for s in st] == [r["tpm"] for r in runs],
    "the step table's NOPM and TPM are the stored runs'")
prev = 100 * (nopm[1] / nopm[0] - 1)
say(st[0]["change_prev_pct"] is None and abs(st[1]["change_prev_pct"] - prev) < 1e-6,
    f"step 2's change equals the one recomputed from the stored runs: {prev:+.1f}%")
say(f"{prev:+.1f}%" in open(f"{d}/show.txt").read(), "experiment show prints the change")
say(all(r["label"] == "mysweep" for r in runs), "--label reaches every step's run")
PY
relay <"$T_TMP/py.out"
expect_exit "tpcc check after the sweep passes" 0 tpcc check --target "$TGT"
finish
