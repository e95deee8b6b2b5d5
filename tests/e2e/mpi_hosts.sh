#!/usr/bin/env bash
# mpi_hosts.sh — dbgauge under mpirun: 3 ranks, 6 virtual users, --txns-per-vu 100 on
# PostgreSQL, first on this machine (ranks over 127.0.0.1), then on two "hosts" made of network
# namespaces (tests/hosts-ns.sh; ranks launched inside them by tests/hosts-ns-agent.sh, the
# database on the root side of their veth links). Each run: exit 0, stdout one JSON document,
# exactly 600 transactions, New-Order's committed count and NOPM equal to the change of
# SUM(d_next_o_id). On the namespace hosts also: the ranks ran inside both namespaces and
# connected from both, and afterwards no namespace, link or process is left. And `tpcc load`
# over 3 ranks stopped on rank 0: it names every rank's complete warehouses; --resume ends it.
# Starts and stops its OWN PostgreSQL server (env file in its temp dir) and its own namespace
# hosts (held under tests/hosts-ns.sh's lock for the whole test). Where namespaces cannot be
# made it prints `skip - ` with the reason and the one-machine ranks still run; anything else
# that fails is a `not ok`.
. "$(dirname "$0")/../lib.sh"

SERVERS=$DG_ROOT/tests/servers.sh
HOSTS=$DG_ROOT/tests/hosts-ns.sh
AGENT=$DG_ROOT/tests/hosts-ns-agent.sh
LOCK=${DG_HOSTS_LOCK:-/run/lock/dg-hosts.lock}
export DG_SERVERS_ENV=$T_TMP/servers.env
export DG_HOSTS_ENV=$T_TMP/hosts.env
RES=$T_TMP/results.db
PSQL=(psql -X -q -At -v ON_ERROR_STOP=1)
hosts_up=0
mpi_pid=""

cleanup() {
    [[ -n $mpi_pid ]] && kill -TERM "$mpi_pid" 2>/dev/null && wait "$mpi_pid" 2>/dev/null
    ((hosts_up)) && "$HOSTS" down >/dev/null 2>&1
    "$SERVERS" stop pg >/dev/null 2>&1 9>&-
    [[ -n ${DG_KEEP_TMP:-} ]] || rm -rf "$T_TMP"
}
trap cleanup EXIT

command -v mpirun >/dev/null || { not_ok "mpirun installed" "no mpirun (openmpi-bin)"; finish; exit 1; }
grep -q 'DG_HAVE_MPI 1' "$(dirname "$DG")/dg_config.h" 2>/dev/null ||
    { not_ok "dbgauge built with Open MPI" "DG_HAVE_MPI is not 1 in $(dirname "$DG")/dg_config.h"; finish; exit 1; }

# --- the namespace hosts, first (the server listens on their root side addresses) ------------
# The lock stays held (fd 9) until the test ends: another user of dg-host1..2 waits for us.
if { exec 9>>"$LOCK"; } 2>/dev/null; then
    flock -w 900 9 || { not_ok "the namespace hosts' lock" "waited 900 s for $LOCK"; finish; exit 1; }
fi
"$HOSTS" up 2 >"$T_TMP/hosts.log" 2>&1
rc=$?
case $rc in
0)
    hosts_up=1
    ok "two namespace hosts up, each answering a ping ($(grep -o 'up: .*' "$T_TMP/hosts.log" | cut -d';' -f1))"
    # shellcheck disable=SC1090
    . "$DG_HOSTS_ENV"
    ;;
3) echo "skip - namespace hosts: $(sed -n 's/^hosts-ns.sh: namespace hosts //p' "$T_TMP/hosts.log" | tail -n 1) (the one-machine ranks still run)" ;;
*) not_ok "two namespace hosts up" "tests/hosts-ns.sh up 2 exited $rc: $(tail -n 5 "$T_TMP/hosts.log" | tr '\n' ' ')" ;;
esac

# --- our own PostgreSQL server, also on the hosts' root side addresses ------------------------
if ! DG_PG_LISTEN_EXTRA=${DG_HOSTS_ROOT_ADDRS:-} "$SERVERS" start pg >"$T_TMP/start.log" 2>&1 9>&-; then
    not_ok "start PostgreSQL" "$(tail -n 8 "$T_TMP/start.log" | tr '\n' ' ')"
    finish
    exit 1
fi
# shellcheck disable=SC1090
. "$DG_SERVERS_ENV"
ok "start PostgreSQL (listening on $DG_PG_LISTEN)"
export PGPASSWORD=$DG_PG_PASSWORD # libpq reads it; mpirun -x hands it to the ranks: never in argv
# every connection is logged: where the ranks connected from
check "log_connections on" "${PSQL[@]}" "$DG_PG_ADMIN_URL" -o /dev/null -c "ALTER SYSTEM SET log_connections = on" \
    -c "SELECT pg_reload_conf()"
PGLOG=$DG_PG_DIR/postgres.log

run_dg "$T_TMP/load.json" "$T_TMP/load.err" tpcc load --target "$DG_PG_URL" --warehouses 2 --jobs 2 --json 9>&-
if [[ $RC == 0 ]]; then ok "tpcc load --warehouses 2 exits 0"; else
    not_ok "tpcc load --warehouses 2 exits 0" "exit $RC; stderr: $(tail -c 400 "$T_TMP/load.err")"
fi

# over the unix socket: the server log's TCP connections are all dbgauge's
next_o_id_sum() {
    "${PSQL[@]}" "postgresql:///dbgauge?host=$DG_PG_DATADIR&port=$DG_PG_PORT&user=dbgauge" \
        -c "SELECT sum(d_next_o_id) FROM district" 2>&1
}

# dbgauge_pids_in NS: the dbgauge processes inside namespace NS now
dbgauge_pids_in() {
    local p
    for p in $(ip netns pids "$1" 2>/dev/null); do
        [[ $(cat "/proc/$p/comm" 2>/dev/null) == dbgauge ]] && echo "$p"
    done
    return 0
}

# from_both "ADDR xN ..." A1 A2: connections came from A1 and A2, none from 127.0.0.1
from_both() { [[ " $1" == *" $2 x"* && " $1" == *" $3 x"* && " $1" != *" 127.0.0.1 x"* ]]; }
none_exists() { local f; for f; do [[ ! -e $f ]] || return 1; done; }

# mpi_run NAME URL MPIRUN-ARGS...: `mpirun -n 3 ARGS dbgauge tpcc run` (6 VUs x 100 on URL) in
# the background, watching the namespaces while it runs; then the checks every run must pass.
mpi_run() {
    local name=$1 url=$2
    shift 2
    local before after
    before=$(next_o_id_sum)
    timeout 300 mpirun -n 3 -x PGPASSWORD "$@" "$DG" tpcc run --target "$url" --vus 6 --txns-per-vu 100 \
        --results "$RES" --label "mpi $name" --no-monitor --json >"$T_TMP/$name.json" 2>"$T_TMP/$name.err" </dev/null 9>&- &
    mpi_pid=$!
    : >"$T_TMP/$name.pids"
    while kill -0 "$mpi_pid" 2>/dev/null; do
        if ((hosts_up)); then
            local k
            for ((k = 1; k <= ${DG_HOSTS_N:-0}; k++)); do
                dbgauge_pids_in "dg-host$k" | sed "s/^/dg-host$k /" >>"$T_TMP/$name.pids"
            done
        fi
        sleep 0.1
    done
    wait "$mpi_pid"
    local rc=$?
    mpi_pid=""
    after=$(next_o_id_sum)
    if [[ $rc == 0 ]]; then ok "$name: mpirun -n 3 ... tpcc run --vus 6 --txns-per-vu 100 exits 0"; else
        not_ok "$name: mpirun -n 3 ... tpcc run exits 0" "exit $rc; $(tail -n 8 "$T_TMP/$name.err" | tr '\n' ' ')"
    fi
    if grep -qF -- "$DG_PG_PASSWORD" "$T_TMP/$name.json" "$T_TMP/$name.err"; then
        not_ok "$name: the password is nowhere in the output" "found"
    else ok "$name: the password is nowhere in the output"; fi
    python3 - "$T_TMP/$name.json" "$name" "$before" "$after" >"$T_TMP/py.out" 2>&1 <<'PY'
import json, sys
path, name, before, after = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
ok = lambda c, m: print(("ok" if c else "not ok") + f" - {name}: {m}")
text = open(path).read()
try:
    d = json.loads(text)
except ValueError as e:
    ok(False, f"stdout is one JSON document ({e}; {len(text)} bytes)")
    sys.exit(0)
ok(isinstance(d, dict) and text.lstrip().startswith("{") and text.rstrip().endswith("}"),
   "stdout is exactly one JSON document")
t = d["transactions"]
count = sum(v["count"] for v in t.values())
ended = sum(v["committed"] + v["rollbacks"] + v["errors"] for v in t.values())
ok(count == 600 and ended == 600,
   f"exactly 600 transactions: sum of count {count}, of committed + rollbacks + errors {ended}")
ok(sum(v["errors"] for v in t.values()) == 0, "no errors")
ok(d["vus"] == 6 and d["status"] == "complete", f"6 virtual users, complete ({d['vus']}, {d['status']})")
delta = int(after) - int(before) if before.isdigit() and after.isdigit() else None
no = t["new_order"]["committed"]
ok(delta is not None and no == delta,
   f"New-Order committed {no} = the change of SUM(d_next_o_id) ({before} -> {after}: {delta})")
nopm, secs = d["nopm"], d["measured_seconds"]
ok(delta is not None and secs > 0 and abs(nopm - delta * 60 / secs) <= 1e-9 * nopm,
   f"NOPM {nopm:.3f} = that change per minute of the window ({delta} x 60 / {secs} s)")
print("HOST " + d["host"]["name"])
r = d.get("ranks", [])
ok([x["rank"] for x in r] == [0, 1, 2] and sum(x["committed"] for x in r) == sum(v["committed"] for v in t.values()),
   f"a JSON row per rank, their committed summing to the run's ({len(r)} rows)")
print("RANKS " + " ".join(f"{x.get('rank')}:{x.get('host')}" for x in r))
PY
    relay < <(grep -E '^(ok|not ok) - ' "$T_TMP/py.out")
    grep -q '^HOST ' "$T_TMP/py.out" || not_ok "$name: the JSON checks ran" "$(tail -n 3 "$T_TMP/py.out" | tr '\n' ' ')"
    RUN_HOST=$(sed -n 's/^HOST //p' "$T_TMP/py.out")
    RUN_RANKS=$(sed -n 's/^RANKS //p' "$T_TMP/py.out")
}

# --- 3 ranks on this machine -------------------------------------------------------------------
mpi_env
mpi_run local "$DG_PG_URL" --oversubscribe
check "local: the run's host is this machine ($RUN_HOST)" test "$RUN_HOST" = "$(hostname)"
check "local: every rank on this machine ($RUN_RANKS)" test "$RUN_RANKS" = "0:$(hostname) 1:$(hostname) 2:$(hostname)"

# --- tpcc load over 3 ranks, rank 0 stopped: what is complete is every rank's ----------------
# Rank 0 loads ITEM and warehouse 1, ranks 1 and 2 warehouses 2 and 3. Ctrl-C on rank 0 after
# the first marks stops it; the others finish theirs and all meet. Rank 0 then says how many
# warehouses are complete: the database's marks (every rank's), not only its own. --resume
# from one process ends the load.
LOAD_DB=dgload3
LOAD_URL=${DG_PG_URL%/*}/$LOAD_DB
"${PSQL[@]}" "$DG_PG_ADMIN_URL" -c "DROP DATABASE IF EXISTS $LOAD_DB" -c "CREATE DATABASE $LOAD_DB OWNER dbgauge" >/dev/null
LOAD_ADMIN_URL=${DG_PG_ADMIN_URL/\/\/\/postgres\?/\/\/\/$LOAD_DB?}
load_sql() { "${PSQL[@]}" "$LOAD_ADMIN_URL" -c "$1" 2>/dev/null; }
marks() { load_sql "SELECT count(*) FROM dbgauge_tpcc_load WHERE unit >= 0"; }
marks_at_least() { [[ $(marks) -ge $1 ]]; }
timeout 300 mpirun -n 3 --oversubscribe -x PGPASSWORD "$DG" tpcc load --target "$LOAD_URL" --warehouses 3 --jobs 1 \
    >"$T_TMP/load3.out" 2>"$T_TMP/load3.err" </dev/null 9>&- &
mpi_pid=$!
wait_for 120 marks_at_least 4
marks_at_stop=$(marks)
# rank 0 of the running `tpcc load` (mpirun starts dbgauge itself)
if pid=$(mpi_rank_pid "^$DG tpcc load --target $LOAD_URL" 0); then kill -INT "$pid"; else not_ok "load over 3 ranks: rank 0 found" "$(pgrep -af dbgauge | head -c 300)"; fi
wait "$mpi_pid"
rc=$?
mpi_pid=""
check "load over 3 ranks, rank 0 stopped ($marks_at_stop marks then): mpirun exits non-zero ($rc)" test "$rc" != 0
# a warehouse is complete when its 15 parts (units 16 w + 0..14) are marked
complete=$(load_sql "SELECT count(*) FROM (SELECT unit / 16 FROM dbgauge_tpcc_load WHERE unit >= 16 GROUP BY unit / 16 HAVING count(*) = 15) w")
said=$(sed -n 's/^tpcc load: stopped with \([0-9]*\) of 3 warehouses complete.*/\1/p' "$T_TMP/load3.err")
check "load over 3 ranks: the other ranks' warehouses were finished (complete: ${complete:-?})" test "${complete:-0}" -ge 2
check "load over 3 ranks: rank 0 says the database's count of complete warehouses, every rank's (${said:-nothing} said, ${complete:-?} in the database)" \
    test "${said:-x}" = "${complete:-y}"
check "load over 3 ranks: said once (rank 0 speaks for the ranks)" test "$(grep -c '^tpcc load: stopped with' "$T_TMP/load3.err")" = 1
run_dg "$T_TMP/resume3.out" "$T_TMP/resume3.err" tpcc load --target "$LOAD_URL" --resume 9>&-
check_exit "load over 3 ranks: --resume from one process ends it (exit $RC)" 0
check "load over 3 ranks: 3 warehouses, 300,000 stock rows after --resume" \
    test "$(load_sql "SELECT (SELECT count(*) FROM warehouse) || ',' || (SELECT count(*) FROM stock)")" = "3,300000"
expect_exit "load over 3 ranks: tpcc check passes after --resume" 0 tpcc check --target "$LOAD_URL" 9>&-
"${PSQL[@]}" "$DG_PG_ADMIN_URL" -c "DROP DATABASE $LOAD_DB" >/dev/null

# --- 3 ranks on the two namespace hosts --------------------------------------------------------
if ((hosts_up)); then
    # The ranks in both namespaces use the first host's root side address: dg-host2 reaches it
    # through its own root side (its route to 198.18.0.0/30), PostgreSQL listens on both.
    url="postgres://dbgauge@$DG_HOST1_ROOT_ADDR:$DG_PG_PORT/dbgauge"
    mark=$(wc -l <"$PGLOG")
    OMPI_MCA_oob_tcp_if_include=198.18.0.0/15 OMPI_MCA_btl_tcp_if_include=198.18.0.0/15 \
        OMPI_MCA_plm_rsh_agent=$AGENT OMPI_MCA_plm_rsh_no_tree_spawn=1 \
        OMPI_MCA_orte_default_hostfile=$DG_HOSTS_HOSTFILE mpi_run hosts "$url" --map-by node
    # --map-by node: ranks 0 and 2 on dg-host1, rank 1 on dg-host2
    n1=$(awk '$1 == "dg-host1" {print $2}' "$T_TMP/hosts.pids" | sort -u | wc -l)
    n2=$(awk '$1 == "dg-host2" {print $2}' "$T_TMP/hosts.pids" | sort -u | wc -l)
    check "hosts: 2 dbgauge ranks ran inside dg-host1, 1 inside dg-host2 (seen: $n1, $n2)" test "$n1/$n2" = 2/1
    from=$(tail -n +"$((mark + 1))" "$PGLOG" | sed -n 's/.*connection received: host=\([0-9][0-9.]*\).*/\1/p' | sort | uniq -c | awk '{printf "%s x%s ", $2, $1}')
    check "hosts: the database saw connections from both hosts and none from 127.0.0.1 ($from)" \
        from_both "$from" "$DG_HOST1_ADDR" "$DG_HOST2_ADDR"
    check "hosts: the run's host is rank 0's, dg-host1 ($RUN_HOST)" test "$RUN_HOST" = dg-host1
    check "hosts: the JSON names each rank's host ($RUN_RANKS)" test "$RUN_RANKS" = "0:dg-host1 1:dg-host2 2:dg-host1"
    check "hosts: the stored run has its 3 run_rank rows, hosts named" test "$(sqlite3 "$RES" \
        "SELECT GROUP_CONCAT(rank || ':' || host, ' ') FROM (SELECT rank, host FROM run_rank
         WHERE run_id = (SELECT MAX(id) FROM run) ORDER BY rank)")" = "0:dg-host1 1:dg-host2 2:dg-host1"
    left=""
    for ns in dg-host1 dg-host2; do left+=$(ip netns pids "$ns" 2>/dev/null | tr '\n' ' '); done
    check "hosts: nothing runs inside the namespaces after mpirun (${left:-none})" test -z "$left"
    "$HOSTS" down >"$T_TMP/down.log" 2>&1
    check "hosts: tests/hosts-ns.sh down exits 0" test $? = 0
    hosts_up=0
    check "hosts: no dg-host namespace left" bash -c '! ip netns list | grep -q "^dg-host"'
    check "hosts: no dg-veth link left" bash -c '! ip -o link show | grep -q ": dg-veth"'
    check "hosts: no 198.18.0.0/15 address left on this machine" bash -c '! ip -4 -o addr show | grep -q " 198\.1[89]\."'
    alive=""
    while read -r p; do kill -0 "$p" 2>/dev/null && alive+="$p "; done < <(awk '{print $2}' "$T_TMP/hosts.pids" | sort -u)
    check "hosts: none of the ranks' processes is left (${alive:-none})" test -z "$alive"
    check "hosts: the env file and hostfile are gone" none_exists "$DG_HOSTS_ENV" "$DG_HOSTS_HOSTFILE"
fi

finish
