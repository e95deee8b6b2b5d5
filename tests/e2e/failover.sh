#!/usr/bin/env bash
# failover.sh — replicas and failovers end to end (issue 15), on a PostgreSQL primary with a
# streaming standby this script starts itself (tests/servers.sh start pgrep, its own env file):
#   - --read-target: TPC-C's read-only transactions run on the standby (its own
#     pg_stat_database counts them), the per-target figures show both, the primary none of them;
#   - a failover under load with a synchronous standby (primary killed, standby promoted by
#     --fault): one outage, the audit after the run finds nothing lost, the failover figures in
#     text and JSON (rto_s, recovery_s, lost 0, lost_seconds 0);
#   - the same with an asynchronous standby whose walreceiver was stopped before the primary
#     died: the audit finds acknowledged New-Orders lost, and `tpcc audit` names them;
#   - on SQLite (no server): --audit always audits a run without an outage; bad input exits 2.
# --no-pg (DG_NO_PG) leaves out the PostgreSQL part; everything is stopped by PID.
. "$(dirname "$0")/../lib.sh"

SERVERS=$DG_ROOT/tests/servers.sh
export DG_SERVERS_ENV=$T_TMP/servers.env
trap '"$SERVERS" stop pgrep >/dev/null 2>&1; [[ -n ${DG_KEEP_TMP:-} ]] || rm -rf "$T_TMP"' EXIT
R=$T_TMP/r.db

# ---- without a server: --audit and the option checks -----------------------------------
sqlite_part() {
    local db=$T_TMP/t.db
    sqlite_tpcc "$db"
    expect_exit "sqlite: a run with --audit always" 0 tpcc run --target "sqlite:$db" --duration 2s --warmup 0 \
        --audit always --results "$R" --json
    local id
    id=$(json_get "$T_TMP/last.out" run_id)
    check "sqlite: the audit after it passes, every New-Order found" python3 - "$T_TMP/last.out" <<'EOF'
import json, sys
a = json.load(open(sys.argv[1]))["audit"]
sys.exit(not (a["pass"] and a["lost"] == 0 and a["acknowledged"] > 0 and a["found"] == a["acknowledged"]))
EOF
    run_dg "$T_TMP/show.out" "$T_TMP/show.err" runs show "$id" --results "$R"
    check "sqlite: runs show says the audit passed" grep -q "audit .* 0 lost.*: pass" "$T_TMP/show.out"
    check "sqlite: no failover line without an outage" bash -c "! grep -q failover '$T_TMP/show.out'"
    expect_exit "sqlite: --audit never on the same run: no audit" 0 tpcc run --target "sqlite:$db" --duration 1s \
        --warmup 0 --audit never --results "$R" --json
    check "sqlite: ... and none in its JSON" python3 -c "import json,sys; sys.exit('audit' in json.load(open('$T_TMP/last.out')))"
    expect_exit "--audit sometimes: exit 2" 2 tpcc run --target "sqlite:$db" --audit sometimes
    expect_stderr "... naming --audit" "--audit"
    expect_exit "--read-target with two targets: exit 2" 2 tpcc run --target "sqlite:$db" --target "sqlite:$db" \
        --read-target "sqlite:$db"
    expect_stderr "... naming --read-target" "--read-target"
    expect_exit "--read-target with an unknown scheme: exit 2" 2 tpcc run --target "sqlite:$db" --read-target "nosuch://x"
    expect_stderr "... naming --read-target" "--read-target"
    expect_exit "stress takes no --read-target: exit 2" 2 stress run --target "sqlite:$db" --read-target "sqlite:$db" \
        --query "SELECT 1"
}

# ---- PostgreSQL primary + standby ----------------------------------------------------------
# srv NAME ARGS...: tests/servers.sh ARGS, one check on its exit
srv() {
    local name=$1
    shift
    if "$SERVERS" "$@" >"$T_TMP/srv.log" 2>&1; then ok "$name"; else
        not_ok "$name" "tests/servers.sh $* failed: $(tail -n 5 "$T_TMP/srv.log" | tr '\n' ' ')"
        return 1
    fi
}

# fresh_pair SYNC: a new primary and standby (sync on|off), 2 warehouses loaded
fresh_pair() {
    "$SERVERS" stop pgrep >/dev/null 2>&1
    DG_PGR_STANDBYS=1 srv "pgrep ($1): primary and standby start" start pgrep || return 1
    # shellcheck disable=SC1090
    . "$DG_SERVERS_ENV"
    export PGPASSWORD=$DG_PGR_PASSWORD
    srv "pgrep ($1): synchronous $1" sync pgrep "$1" || return 1
    expect_exit "pgrep ($1): 2 warehouses load through the primary" 0 tpcc load --target "$DG_PGR_PRIMARY_URL" \
        --warehouses 2 --drop
}

# standby_commits: xact_commit of the dbgauge database as the standby counts it
standby_commits() {
    psql "$DG_PGR_STANDBY1_ADMIN_URL" -XAtc "SELECT xact_commit FROM pg_stat_database WHERE datname = 'dbgauge'"
}

read_target_part() {
    local before after
    before=$(standby_commits)
    expect_exit "read target: a run with its reads on the standby" 0 tpcc run --target "$DG_PGR_URL" \
        --read-target "$DG_PGR_STANDBY_URL" --vus 3 --duration 4s --warmup 0 --results "$R" --json
    cp "$T_TMP/last.out" "$T_TMP/read.json"
    after=$(standby_commits)
    local reads
    reads=$(python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["transactions"]
print(t["order_status"]["committed"] + t["stock_level"]["committed"])' "$T_TMP/read.json")
    num_cmp "read target: the standby's own pg_stat_database counts at least the $reads read-only transactions" \
        "$((after - before))" ">=" "$reads"
    num_cmp "read target: there were some" "$reads" ">" 0
    python3 - "$T_TMP/read.json" <<'EOF' | relay
import json, sys
d = json.load(open(sys.argv[1]))
t = d.get("targets", [])
print(("ok" if len(t) == 2 else "not ok") + " - read target: two per-target shares")
if len(t) == 2:
    p, r = t[0]["transactions"], t[1]["transactions"]
    print(("ok" if t[1]["role"] == "read" and t[0]["role"] is None else "not ok") + " - read target: the second is the read one")
    print(("ok" if r["order_status"]["committed"] > 0 and r["stock_level"]["committed"] > 0 and r["new_order"]["committed"] == 0
           else "not ok") + " - read target: its share has Order-Status and Stock-Level, no New-Order")
    print(("ok" if p["order_status"]["committed"] == 0 and p["new_order"]["committed"] > 0 else "not ok")
          + " - read target: the primary's share has the writes and none of the reads")
EOF
}

# failover NAME WANT-RC EXTRA-FAULT...: a run through the failover URL whose primary is killed
# at 4 s and standby promoted; its JSON in $T_TMP/NAME.json. WANT-RC: 0, or 1 where its audit
# is to find acknowledged writes lost (a failed audit fails the run)
failover_run() {
    local name=$1 want=$2
    shift 2
    expect_exit "$name: the run goes on through the failover (exit $want)" "$want" tpcc run --target "$DG_PGR_URL" --vus 4 \
        --duration 9s --warmup 1s --results "$R" --json "$@"
    cp "$T_TMP/last.out" "$T_TMP/$name.json"
    cp "$T_TMP/last.err" "$T_TMP/$name.err"
}

sync_failover_part() {
    failover_run sync 0 --fault "4s:$SERVERS crash pgrep primary && $SERVERS promote pgrep standby1"
    python3 - "$T_TMP/sync.json" <<'EOF' | relay
import json, sys
d = json.load(open(sys.argv[1]))
o, f, a = d.get("outages", []), d.get("failover"), d.get("audit")
print(("ok" if len(o) == 1 else "not ok") + " - sync: one outage (%d)" % len(o))
print(("ok" if f and f["rto_s"] is not None and 0 < f["rto_s"] < 9 and f["lost"] == 0 and f["lost_seconds"] == 0
       else "not ok") + " - sync: failover figures: an RTO, 0 lost, 0 s lost (%s)" % f)
print(("ok" if a and a["pass"] and a["acknowledged"] > 0 and a["lost"] == 0 else "not ok")
      + " - sync: the audit on the promoted standby finds every acknowledged New-Order (%s)" % a)
print(("ok" if o and o[0]["last_commit_s"] is not None and f and abs(f["rto_s"] - o[0]["rto_s"]) < 1e-9 else "not ok")
      + " - sync: the outage has its last commit before it and its RTO")
EOF
    local id
    id=$(json_get "$T_TMP/sync.json" run_id)
    run_dg "$T_TMP/show.out" "$T_TMP/show.err" runs show "$id" --results "$R"
    check "sync: runs show has the failover line with RPO 0" grep -q "failover RTO .* RPO 0" "$T_TMP/show.out"
    run_dg "$T_TMP/h.out" "$T_TMP/h.err" report "$id" --results "$R" -o "$T_TMP/sync.html"
    check "sync: the HTML report has the failover table" grep -q 'class="data failover"' "$T_TMP/sync.html"
}

async_failover_part() {
    # The walreceiver stopped at 2 s takes no more WAL, and killed once the primary is gone it
    # drops what the socket buffers held: the primary's acknowledged commits after 2 s are not
    # on the standby it fails over to.
    failover_run async 1 --fault "2s:$SERVERS walrcv-stop pgrep standby1" \
        --fault "5s:$SERVERS crash pgrep primary && $SERVERS walrcv-kill pgrep standby1 && $SERVERS promote pgrep standby1"
    python3 - "$T_TMP/async.json" <<'EOF' | relay
import json, sys
d = json.load(open(sys.argv[1]))
f, a = d.get("failover"), d.get("audit")
print(("ok" if a and not a["pass"] and a["lost"] > 0 and a["found"] + a["lost"] == a["acknowledged"] else "not ok")
      + " - async: the audit finds acknowledged New-Orders lost (%s)" % a)
print(("ok" if f and f["lost"] == a["lost"] and f["lost_seconds"] > 0 else "not ok")
      + " - async: the failover's RPO in writes and seconds (%s)" % f)
# The walreceiver stops during the first fault's command (asked for 2 s in; a loaded machine
# runs it later: its start and end are measured): the first lost write was acknowledged at most
# half a second before the command began (WAL not sent yet) and within a second after it ended.
ft = (d.get("faults") or [{}])[0]
lo, hi = ft.get("start_s", 99) * 1000 - 500, ft.get("end_s", -99) * 1000 + 1000
first = (a or {}).get("lost_first_ms")
print(("ok" if first is not None and lo <= first <= hi else "not ok")
      + " - async: the lost were acknowledged after the walreceiver stopped (%s ms; its fault ran %s to %s ms)"
      % (first, ft.get("start_s", 0) * 1000, ft.get("end_s", 0) * 1000))
EOF
    local id
    id=$(json_get "$T_TMP/async.json" run_id)
    expect_exit "async: tpcc audit on the promoted standby fails (exit 1)" 1 tpcc audit "$id" --target "$DG_PGR_URL" \
        --results "$R"
    check "async: ... and names the lost orders" grep -Eq "warehouse [0-9]+ district [0-9]+ order [0-9]+: no such order" \
        "$T_TMP/last.out"
}

sqlite_part
if [[ -n ${DG_NO_PG:-} ]]; then
    echo "# pgrep: not run (--no-pg)"
else
    fresh_pair on && read_target_part && sync_failover_part
    fresh_pair off && async_failover_part
fi
finish
