#!/usr/bin/env bash
# galera.sh — a 3-node MariaDB Galera cluster as a target (issue 15 item 4): a node that has
# not applied what it received is waited for before it is read (tpcc check and tpcc run, each
# exit 2 naming the node when it stays behind), --cluster spreads the users over the nodes of
# one database (run_target rows role "node", cluster 1; its warehouses counted once; labels
# "node N of cluster 1"), certification conflicts are retried and counted as such, not as
# deadlocks, and a node killed under load and started again (IST) is that node's outage
# while the others go on, the whole cluster's pause while it evicts the node a stall of the
# cluster; a node killed for good is "not back when the run ended", and the audits (after the
# run, and `tpcc audit` with one --target per cluster or none) read its writes on a live node.
# Bad --cluster input exits 2 naming the option.
# This script starts and stops its OWN cluster (its env file in its temp dir), stopped by PID
# at the end even on failure; tests/run.sh skips it only with --no-my.
. "$(dirname "$0")/../lib.sh"

SERVERS=$DG_ROOT/tests/servers.sh
export DG_SERVERS_ENV=$T_TMP/servers.env
trap '"$SERVERS" stop galera >/dev/null 2>&1; [[ -n ${DG_KEEP_TMP:-} ]] || rm -rf "$T_TMP"' EXIT
RES=$T_TMP/results.db

# --- bad input: exit 2 naming --cluster (no server needed) ---------------------------------
expect_exit "--cluster with a PostgreSQL URL: exit 2" 2 tpcc run --cluster "postgres://u@h1:5432,h2:5433/db" \
    --results "$RES"
expect_stderr "... naming --cluster and why" "--cluster postgres://u@h1:5432,h2:5433/db: engine pgsql has no multi-primary"
expect_exit "--cluster with one host: exit 2" 2 tpcc run --cluster "mysql://u:secret@127.0.0.1:1/db" --results "$RES"
expect_stderr "... naming --cluster, the password hidden" "--cluster mysql://u:\*\*\*@127.0.0.1:1/db: names one host"
expect_exit "--cluster with an empty host: exit 2" 2 tpcc run --cluster "mysql://u@h1,,h3/db" --results "$RES"
expect_stderr "... naming --cluster and the host list" "--cluster: .*an empty host in the host list 'h1,,h3'"
expect_exit "--sync-wait that is no duration: exit 2" 2 tpcc check --sync-wait soon
expect_stderr "... naming --sync-wait" "--sync-wait"
expect_exit "stress takes no --cluster: exit 2" 2 stress --cluster "mysql://u@h1,h2/db" --query "SELECT 1"
expect_stderr "... saying so" "option '--cluster' does not apply to 'stress'"

# --- the cluster --------------------------------------------------------------------------
t0=$SECONDS
if ! "$SERVERS" start galera >"$T_TMP/start.log" 2>&1; then
    # the whole log kept (the pool's artifacts), its errors said here: a tail of 8 lines was
    # all mariadb-install-db's closing advice once, and the cause lost
    cp "$T_TMP/start.log" "$T_OUT/galera-start.log"
    not_ok "start a 3-node Galera cluster" "$(grep -iE 'error|fail|abort|denied|space' "$T_TMP/start.log" | head -n 8 | tr '\n' ' ') (the log: $T_OUT/galera-start.log)"
    finish
    exit
fi
ok "start a 3-node Galera cluster"
echo "# galera: started in $((SECONDS - t0)) s"
# shellcheck disable=SC1090
. "$DG_SERVERS_ENV"
export DG_MYSQL_PASSWORD=$DG_GAL_PASSWORD
CL="mysql://dbgauge@127.0.0.1:$DG_GAL_PORT1,127.0.0.1:$DG_GAL_PORT2,127.0.0.1:$DG_GAL_PORT3/dbgauge"
# root N ARGS...: the mariadb client as root on node N (no password over TCP)
root() { local p="DG_GAL_PORT$1"; shift; env -u MYSQL_PWD mariadb -h127.0.0.1 -P"${!p}" -uroot -N "$@"; }
state3() { root 3 -e "SHOW GLOBAL STATUS LIKE 'wsrep_local_state_comment'" 2>/dev/null | cut -f 2; }
desynced3() { [[ $(state3) == Donor/Desynced ]]; }
holder3() { root 3 -e "SELECT id FROM information_schema.processlist WHERE info LIKE 'SELECT SLEEP(120)%'" 2>/dev/null; }

# --- wait for synced: node 3 holds its applier back (FLUSH TABLES WITH READ LOCK desyncs it) --
root 3 -e "FLUSH TABLES WITH READ LOCK; SELECT SLEEP(120)" >/dev/null 2>&1 &
hold=$!
check "node 3 desynced by a read lock (its applier stops)" wait_for 20 desynced3
expect_exit "load 1 warehouse through node 1" 0 tpcc load --target "$DG_GAL_URL1" --warehouses 1
run_dg "$T_TMP/nowait.out" "$T_TMP/nowait.err" tpcc check --target "$DG_GAL_URL3" --sync-wait 0
check "tpcc check --sync-wait 0 on node 3 reads it as it is: the load is not there (exit $RC)" test "$RC" != 0
expect_exit "tpcc check --sync-wait 1 on node 3 still behind: exit 2" 2 tpcc check --target "$DG_GAL_URL3" --sync-wait 1
expect_stderr "... naming the node and what it still has to apply" \
    "127\.0\.0\.1:$DG_GAL_PORT3 has not applied what it received after 1s \(Donor/Desynced, recv queue [0-9]+\)"
expect_exit "tpcc run --sync-wait 1 on node 3 still behind: exit 2" 2 tpcc run --target "$DG_GAL_URL3" --sync-wait 1 \
    --duration 2s --results "$RES"
"$DG" tpcc check --target "$DG_GAL_URL3" >"$T_TMP/check3.out" 2>"$T_TMP/check3.err" &
check_pid=$!
# release_hold: ends the read lock's session on node 3 (its applier goes on)
release_hold() {
    local id
    id=$(holder3)
    check "the read lock's session is found (id '$id')" test -n "$id"
    root 3 -e "KILL ${id:-0}" >/dev/null 2>&1
    wait "$hold" 2>/dev/null
}
sleep 2
release_hold
wait "$check_pid"
check "tpcc check on node 3 right after the load passes once node 3 caught up" test $? = 0
check "... it said once that it waited for node 3" test "$(grep -c "waiting for 127.0.0.1:$DG_GAL_PORT3 to apply what it received (Donor/Desynced, recv queue" "$T_TMP/check3.err")" = 1
check "... and every condition held" grep -q "passed: 0 of 21 conditions failed" "$T_TMP/check3.out"
check "node 3 is Synced again" wait_for 20 test "$(state3)" = Synced
# The same for a run: node 3 desynced again (behind while not Synced), released 2 s later.
root 3 -e "FLUSH TABLES WITH READ LOCK; SELECT SLEEP(120)" >/dev/null 2>&1 &
hold=$!
check "node 3 desynced again" wait_for 20 desynced3
"$DG" tpcc run --target "$DG_GAL_URL3" --duration 2s --results "$RES" >"$T_TMP/run3.out" 2>"$T_TMP/run3.err" &
run_pid=$!
sleep 2
check "tpcc run on a desynced node 3 has not started yet" test "$(grep -c "TPC-C on" "$T_TMP/run3.err")" = 0
release_hold
wait "$run_pid"
check "tpcc run on node 3 ran once node 3 was synced (exit 0)" test $? = 0
check "... saying it waited" grep -q "waiting for 127.0.0.1:$DG_GAL_PORT3 to apply what it received (Donor/Desynced" \
    "$T_TMP/run3.err"
check "node 3 is Synced again" wait_for 20 test "$(state3)" = Synced

# --- --cluster: 6 users over 3 nodes of one 1-warehouse database ----------------------------
run_dg "$T_TMP/cl.json" "$T_TMP/cl.err" tpcc run --cluster "$CL" --vus 6 --duration 15s --results "$RES" --json \
    --label cluster
check_exit "tpcc run --cluster: exit 0" 0
id=$(json_get "$T_TMP/cl.json" run_id 2>/dev/null)
check "the run's warehouses are the database's, 1 (not 3 for 3 nodes)" test "$(json_get "$T_TMP/cl.json" warehouses)" = 1
check "the start line names each node and its 2 users" test \
    "$(grep -cE "\(node [123] of cluster 1, mariadb .*\): 1 warehouse, 2 virtual users" "$T_TMP/cl.err")" = 3
rows=$(python3 -c 'import sqlite3,sys
c=sqlite3.connect(sys.argv[1])
print(" ".join("%s:%s:%s" % r for r in c.execute("SELECT idx, role, cluster FROM run_target WHERE run_id=? ORDER BY idx", (int(sys.argv[2]),))))' \
    "$RES" "${id:-0}" 2>&1)
check "run_target rows: role node, cluster 1, one per node ($rows)" test "$rows" = "0:node:1 1:node:1 2:node:1"
for n in 1 2 3; do
    check "targets[$n] is labelled node $n of cluster 1" test \
        "$(json_get "$T_TMP/cl.json" "targets.$((n - 1)).label")" = "node $n of cluster 1"
done
check "the text report names the nodes" grep -q "node 3 of cluster 1" "$T_TMP/cl.err"
cert=$(sum_field "$T_TMP/cl.json" retry_causes.certification 2>/dev/null)
dead=$(sum_field "$T_TMP/cl.json" retry_causes.deadlock 2>/dev/null)
echo "# certification conflicts retried: ${cert:-?}, deadlocks: ${dead:-?}"
num_cmp "certification conflicts (W=1, 6 users on 3 nodes) are retried and counted as such" "${cert:-0}" ">" 0
num_cmp "... more of them than deadlocks (a BF abort is not taken for a deadlock)" "${cert:-0}" ">" "${dead:-0}"
run_dg "$T_TMP/show.json" "$T_TMP/show.err" runs show "${id:-0}" --json --results "$RES"
check "runs show --json has them under certification" test \
    "$(sum_field "$T_TMP/show.json" retry_causes.certification 2>/dev/null)" = "${cert:-x}"
run_dg "$T_TMP/show.txt" "$T_TMP/show.err" runs show "${id:-0}" --results "$RES"
check "runs show says 'certification' among the retry causes" grep -q "retries by cause:.*certification [0-9]" "$T_TMP/show.txt"
expect_exit "an HTML report of it" 0 report "${id:-0}" --results "$RES" -o "$T_TMP/cl.html"
check "... shows the cause certification" grep -q "certification" "$T_TMP/cl.html"
check "... and the nodes as nodes of cluster 1" grep -q "node 2 of cluster 1" "$T_TMP/cl.html"
expect_exit "tpcc check on node 2 after the cluster run passes" 0 tpcc check --target "$DG_GAL_URL2"
expect_exit "tpcc audit of the cluster run: every acknowledged write is there" 0 tpcc audit "${id:-0}" --results "$RES"
expect_exit "one user over the 3 nodes: a cluster's node may go without" 0 tpcc run --cluster "$CL" --vus 1 \
    --duration 2s --warmup 0 --results "$RES" --json
check "... node 1 has the user and commits, nodes 2 and 3 none" python3 -c 'import json,sys
t = json.load(open(sys.argv[1]))["targets"]
sys.exit(not ([x["vus"] for x in t] == [1, 0, 0] and t[0]["committed"] > 0 and t[1]["committed"] == 0))' "$T_TMP/last.out"

# --- node 2 killed under load and started again (IST) -----------------------------------
run_dg "$T_TMP/crash.json" "$T_TMP/crash.err" tpcc run --cluster "$CL" --vus 6 --duration 40s --results "$RES" \
    --json --label crash --fault "5s:$SERVERS crash galera 2" --fault "10s:$SERVERS revive galera 2"
check_exit "the run through node 2's crash completes (exit 0)" 0
check "... stored complete" test "$(json_get "$T_TMP/crash.json" status 2>/dev/null)" = complete
check "... both faults ran (exit 0)" test "$(json_get "$T_TMP/crash.json" faults.0.exit_status 2>/dev/null)$(json_get "$T_TMP/crash.json" faults.1.exit_status 2>/dev/null)" = 00
# the nodes' outages (a cluster's stall is apart: target null, "stall": true)
outs=$(python3 -c 'import json,sys
print(" ".join("%s:%s:%s" % (o["target"], o.get("cluster"), o.get("node")) for o in json.load(open(sys.argv[1]))["outages"] if not o["stall"]))' \
    "$T_TMP/crash.json" 2>&1)
check "one node's outage, node 2's ($outs)" test "$outs" = "2:1:2"
check "the text says it is node 2 of cluster 1's" grep -q "outage   node 2 of cluster 1: at" "$T_TMP/crash.err"
N2=$(python3 -c 'import json,sys
print([i for i, o in enumerate(json.load(open(sys.argv[1]))["outages"]) if o["target"] == 2][0])' "$T_TMP/crash.json" 2>/dev/null || echo 0)
num_cmp "node 2 committed again in the run" "$(json_get "$T_TMP/crash.json" "outages.$N2.first_commit_s" 2>/dev/null || echo -1)" ">" 0
run_dg "$T_TMP/series.json" "$T_TMP/series.err" runs show "$(json_get "$T_TMP/crash.json" run_id)" --series --json \
    --results "$RES"
# per second: the run's commits; node 2's outage window from the outage's start and length
read -r away pause after < <(python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); o=[o for o in json.load(open(sys.argv[2]))["outages"] if o["target"] == 2][0]
c={p["second"]: sum(v["committed"] for v in p["transactions"].values()) for p in d["series"]}
end = max(c) + 1  # for a time that did not come (not back, no commit after): the end of the run
s0 = int(o["start_s"]) + 1
s1 = int(o["start_s"] + o["duration_s"]) if o["duration_s"] is not None else end
back = int(o["start_s"] + o["first_commit_s"]) + 1 if o["first_commit_s"] is not None else end
away = sum(1 for s in range(s0, s1) if c.get(s, 0) > 0)
run = best = 0
for s in sorted(c):
    run = run + 1 if c[s] == 0 else 0
    best = max(best, run)
after = sum(1 for s in range(back, max(c)) if c.get(s, 0) == 0)
print(away, best, after)' "$T_TMP/series.json" "$T_TMP/crash.json" 2>"$T_TMP/series.py.err" || echo "0 99 99")
# when the series could not be read, what went wrong (and what runs show said) goes to the log
[[ -s $T_TMP/series.py.err ]] && sed 's/^/# series: /' "$T_TMP/series.py.err" "$T_TMP/series.err" | tail -n 12
echo "# node 2 away: $away seconds with commits on nodes 1 and 3; longest cluster pause $pause s"
num_cmp "nodes 1 and 3 commit while node 2 is away (seconds with commits)" "$away" ">=" 3
num_cmp "the cluster pauses at most 8 s (evicting the dead node: evs.suspect_timeout 5 s)" "$pause" "<=" 8
num_cmp "once node 2 is back every second has commits" "$after" "==" 0
# The whole cluster held its writes while it evicted node 2 (no node committed, none failing):
# that stall is an outage of the cluster. Every whole second without a commit on any node lies
# inside a reported stall, and the text says so.
stalls=$(python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); run=json.load(open(sys.argv[2]))
c={p["second"]: sum(v["committed"] for v in p["transactions"].values()) for p in d["series"]}
st=[o for o in run["outages"] if o["stall"]]
def inside(s): return any(o["start_s"] <= s and s + 1 <= o["start_s"] + (o["duration_s"] or 1e9) + 1e-6 for o in st)
zero=[s for s in range(min(c), max(c)) if c.get(s, 0) == 0]
print(len(st), len(zero), sum(1 for s in zero if not inside(s)),
      " ".join("%s@%.1f+%s" % (o["cluster"], o["start_s"], o["duration_s"]) for o in st))' \
    "$T_TMP/series.json" "$T_TMP/crash.json" 2>&1)
echo "# cluster stalls: ${stalls:-?} (stalls, seconds without a commit, of them outside a stall, each cluster@start+length)"
read -r nstall nzero outside _ <<<"$stalls"
check "every second the cluster committed nothing is inside a stall of cluster 1 ($stalls)" test "${outside:-x}" = 0
num_cmp "... the eviction's stall is reported (seconds without a commit: ${nzero:-?})" "${nstall:-0}" ">=" "$([[ ${nzero:-0} -gt 0 ]] && echo 1 || echo 0)"
if [[ ${nstall:-0} -gt 0 ]]; then
    check "... the text says the cluster stalled" grep -q "^  outage   cluster 1 stalled: at .* no node committed for [0-9.]* s (nodes up, none failing)" "$T_TMP/crash.err"
fi
check "node 2 is Synced again" test "$(root 2 -e "SHOW GLOBAL STATUS LIKE 'wsrep_local_state_comment'" | cut -f 2)" = Synced
expect_exit "tpcc check on node 2 after its crash passes" 0 tpcc check --target "$DG_GAL_URL2"
expect_exit "tpcc audit of the crash run: nothing acknowledged was lost" 0 tpcc audit \
    "$(json_get "$T_TMP/crash.json" run_id)" --results "$RES"

# --- node 3 killed for good: not back, the cluster's stall, the audit through a live node -----
run_dg "$T_TMP/gone.json" "$T_TMP/gone.err" tpcc run --cluster "$CL" --vus 6 --duration 16s --results "$RES" \
    --json --label gone --audit always --fault "4s:$SERVERS crash galera 3"
check_exit "the run with node 3 killed for good completes (exit 0): the cluster is one database" 0
check "... node 3's outage is not back when the run ended" grep -q "^  outage   node 3 of cluster 1: at .* not back when the run ended" "$T_TMP/gone.err"
gone=$(python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); o=d["outages"]
n3=[x for x in o if x["target"] == 3]; st=[x for x in o if x["stall"]]
print(len(n3), n3[0]["duration_s"] if n3 else "x", len(st), st[0]["duration_s"] if st else "x", st[0]["cluster"] if st else "x",
      d["audit"]["made"], d["audit"]["pass"])' "$T_TMP/gone.json" 2>&1)
echo "# node 3 gone: ${gone:-?} (node 3 outages, its length, stalls, the first one's length and cluster, audit made, pass)"
read -r n3 n3len nst stlen stcl made pass <<<"$gone"
check "... JSON: node 3's outage has no length (null)" test "${n3:-0}/${n3len:-x}" = 1/None
check "... the cluster's stall while it evicted node 3 is reported, of cluster 1 ($nst)" test "${nst:-0}" -ge 1 -a "${stcl:-x}" = 1
num_cmp "... a stall of a second or more" "${stlen:-0}" ">=" 1
check "... the text says the cluster stalled" grep -q "^  outage   cluster 1 stalled: at .* no node committed for [0-9.]* s (nodes up, none failing)" "$T_TMP/gone.err"
check "... the audit after it was made through a live node, and passed" test "${made:-x}/${pass:-x}" = True/True
check "... saying which node read node 3's writes" grep -q "audit: .*:$DG_GAL_PORT3/dbgauge does not answer (.*); its writes are read on .*, a node of the same cluster" "$T_TMP/gone.err"
gid=$(json_get "$T_TMP/gone.json" run_id 2>/dev/null)
expect_exit "tpcc audit of that run with node 3 still down: read through a live node, passes" 0 tpcc audit "${gid:-0}" --results "$RES"
check "... naming the node that answered for node 3" grep -q "^  target .*:$DG_GAL_PORT3/dbgauge (does not answer: .*; read on .*, a node of the same cluster)" "$T_TMP/last.out"
expect_exit "tpcc audit of it with one --target for the cluster (a live node): passes" 0 tpcc audit "${gid:-0}" \
    --target "$DG_GAL_URL1" --results "$RES"
expect_exit "tpcc audit of it with two --target for a run of 3 nodes in one cluster: exit 2" 2 tpcc audit "${gid:-0}" \
    --target "$DG_GAL_URL1" --target "$DG_GAL_URL2" --results "$RES"
expect_stderr "... saying one per cluster will do" "give as many --target, in its order, one per cluster \(any live node of it\), or none"
if "$SERVERS" revive galera 3 >"$T_TMP/revive3.log" 2>&1 && wait_for 60 bash -c "[[ \$(env -u MYSQL_PWD mariadb -h127.0.0.1 -P$DG_GAL_PORT3 -uroot -N -e \"SHOW GLOBAL STATUS LIKE 'wsrep_local_state_comment'\" 2>/dev/null | cut -f 2) == Synced ]]"; then
    ok "node 3 started again and Synced"
else
    not_ok "node 3 started again and Synced" "$(tail -n 4 "$T_TMP/revive3.log" | tr '\n' ' ')"
fi

if "$SERVERS" stop galera >"$T_TMP/stop.log" 2>&1; then ok "stop the cluster"; else
    not_ok "stop the cluster" "$(tail -n 4 "$T_TMP/stop.log" | tr '\n' ' ')"
fi
check "its directory is removed" test ! -e "$DG_GAL_DIR"
finish
