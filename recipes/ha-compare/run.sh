#!/usr/bin/env bash
# recipes/ha-compare/run.sh — the article's availability-group against failover-cluster tables,
# at this machine's scale, with PostgreSQL streaming replication and a MariaDB Galera cluster
# standing in for SQL Server's two designs. One command per table:
#
#   recipes/ha-compare/run.sh reads      read stress, 1M rows, threads 1 2 4 8 10 12: a single
#                                        server against a synchronous standby read from
#   recipes/ha-compare/run.sh writes     TXNS transactions per user, users 1 2 4 8 10 12: single,
#                                        asynchronous and synchronous standby, MariaDB single,
#                                        Galera (3 nodes, the users spread over them)
#   recipes/ha-compare/run.sh failover   one failover per configuration: RTO and RPO side by side
#
# Each prints `dbgauge compare` of its experiments (per step, % change from the first) or the
# failover table. The servers come from tests/servers.sh on 127.0.0.1 (started here, stopped at
# exit); the results stay in $RESULTS (default ./ha-compare.db). Sizes: ROWS=1000000
# ITER=10 (iterations per read thread) TXNS=3000 (per user) SECS=10 (half a failover run)
# W=4. Needs the packages of scripts/deps.sh and root (the servers' users).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
DG=${DG_BIN:-$ROOT/build/dbgauge}
SRV=$ROOT/tests/servers.sh
RESULTS=${RESULTS:-$PWD/ha-compare.db}
ROWS=${ROWS:-1000000}
ITER=${ITER:-10}
TXNS=${TXNS:-3000}
SECS=${SECS:-10}
W=${W:-4}
WHAT=${1:-}
[[ $WHAT == reads || $WHAT == writes || $WHAT == failover ]] || {
    echo "usage: $0 reads|writes|failover   (see the comment at the top)" >&2
    exit 2
}
[[ -x $DG ]] || { echo "$0: no $DG; build first (meson setup build && ninja -C build)" >&2; exit 1; }
TMP=$(mktemp -d /tmp/dg-ha-compare.XXXXXX)
export DG_SERVERS_ENV=$TMP/servers.env
STARTED=()
trap 'for s in "${STARTED[@]}"; do "$SRV" stop "$s" >/dev/null 2>&1; done; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

# start SERVER...: tests/servers.sh start, remembered for the stop at exit; the env file sourced
start() {
    local s
    for s in "$@"; do
        "$SRV" start "$s" >>"$TMP/servers.log" 2>&1 || { tail -n 20 "$TMP/servers.log" >&2; exit 1; }
        STARTED+=("$s")
    done
    # shellcheck disable=SC1090
    . "$DG_SERVERS_ENV"
    export PGPASSWORD=${DG_PG_PASSWORD:-${DG_PGR_PASSWORD:-}} DG_MYSQL_PASSWORD=${DG_MY_PASSWORD:-${DG_GAL_PASSWORD:-}}
}

# experiment NAME KEY=VALUE...: a job file of [global] keys, run; prints its experiment id
experiment() {
    local name=$1
    shift
    printf '%s\n' "; ha-compare $name" "[global]" "$@" >"$TMP/$name.ini"
    "$DG" experiment "$TMP/$name.ini" --results "$RESULTS" --label "ha-compare $name" --json \
        >"$TMP/$name.json" 2>"$TMP/$name.err" || { echo "$name: failed: $(tail -n 3 "$TMP/$name.err")" >&2; }
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["experiment_id"])' "$TMP/$name.json"
}

# caught_up: the standby has replayed everything the primary has written
caught_up() {
    [[ $(psql "$DG_PGR_PRIMARY_ADMIN_URL" -XAtc "SELECT bool_and(replay_lsn = pg_current_wal_lsn()) FROM pg_stat_replication") == t ]]
}

reads() {
    start pg pgrep
    "$SRV" sync pgrep on >/dev/null
    "$DG" stress prepare --target "$DG_PG_URL" --rows "$ROWS" >/dev/null 2>&1 &&
        "$DG" stress prepare --target "$DG_PGR_PRIMARY_URL" --rows "$ROWS" >/dev/null 2>&1 ||
        { echo "stress prepare failed" >&2; exit 1; }
    until caught_up; do sleep 0.5; done
    local steps=(workload=stress threads=1,2,4,8,10,12 "iterations=$ITER") # run time and MB/s, as SQLQueryStress
    local a b
    a=$(experiment reads-single "target=$DG_PG_URL" "${steps[@]}")
    b=$(experiment reads-standby "target=$DG_PGR_STANDBY_URL" "${steps[@]}")
    echo "== read stress: a single server (exp:$a) against the synchronous standby read from (exp:$b)"
    "$DG" compare "exp:$a" "exp:$b" --results "$RESULTS"
}

writes() {
    start pg pgrep mariadb galera
    local url
    for url in "$DG_PG_URL" "$DG_PGR_PRIMARY_URL" "$DG_MY_URL" "$DG_GAL_URL1"; do
        "$DG" tpcc load --target "$url" --warehouses "$W" --drop >/dev/null 2>&1 || { echo "load on $url failed" >&2; exit 1; }
    done
    local steps=(workload=tpcc vus=1,2,4,8,10,12 "txns_per_vu=$TXNS")
    local single async sync mysingle galera
    single=$(experiment writes-single "target=$DG_PG_URL" "${steps[@]}")
    "$SRV" sync pgrep off >/dev/null
    async=$(experiment writes-async "target=$DG_PGR_PRIMARY_URL" "${steps[@]}")
    "$SRV" sync pgrep on >/dev/null
    sync=$(experiment writes-sync "target=$DG_PGR_PRIMARY_URL" "${steps[@]}")
    mysingle=$(experiment writes-mariadb "target=$DG_MY_URL" "${steps[@]}")
    galera=$(experiment writes-galera \
        "cluster=mysql://dbgauge@127.0.0.1:$DG_GAL_PORT1,127.0.0.1:$DG_GAL_PORT2,127.0.0.1:$DG_GAL_PORT3/dbgauge" "${steps[@]}")
    echo "== $TXNS transactions per user: PostgreSQL single (exp:$single), asynchronous standby (exp:$async), synchronous (exp:$sync)"
    "$DG" compare "exp:$single" "exp:$async" "exp:$sync" --results "$RESULTS"
    echo "== the same on MariaDB: single (exp:$mysingle) against Galera, 3 nodes (exp:$galera)"
    "$DG" compare "exp:$mysingle" "exp:$galera" --results "$RESULTS"
}

# failover_run NAME SECONDS ARGS...: one TPC-C run with its failover; its JSON kept as NAME.json
failover_run() {
    local name=$1 secs=$2
    shift 2
    # exit 1 with the audit's loss is the asynchronous failover's finding, not a failure here
    "$DG" tpcc run --vus 4 --duration "${secs}s" --warmup 2s --results "$RESULTS" --json \
        --label "ha-compare failover $name" "$@" >"$TMP/$name.json" 2>"$TMP/$name.err" ||
        grep -q "the audit found acknowledged writes lost" "$TMP/$name.err" ||
        echo "$name: run failed: $(tail -n 3 "$TMP/$name.err")" >&2
}

failover() {
    start pg pgrep galera
    local at=$((SECS / 2))s
    "$DG" tpcc load --target "$DG_PG_URL" --warehouses "$W" --drop >/dev/null 2>&1
    "$DG" tpcc load --target "$DG_PGR_PRIMARY_URL" --warehouses "$W" --drop >/dev/null 2>&1
    "$DG" tpcc load --target "$DG_GAL_URL1" --warehouses "$W" --drop >/dev/null 2>&1
    # FCI-like: one server, its failover a hard stop and a restart on the same storage
    failover_run fci $((2 * SECS)) --target "$DG_PG_URL" --fault "$at:$SRV restart pg"
    # synchronous standby, promoted when the primary dies
    "$SRV" sync pgrep on >/dev/null
    failover_run sync $((2 * SECS)) --target "$DG_PGR_URL" --fault "$at:$SRV crash pgrep primary && $SRV promote pgrep standby1"
    # asynchronous standby that had fallen behind (its walreceiver stopped 3 s before)
    "$SRV" stop pgrep >/dev/null 2>&1
    DG_PGR_STANDBYS=1 "$SRV" start pgrep >>"$TMP/servers.log" 2>&1
    . "$DG_SERVERS_ENV"
    "$DG" tpcc load --target "$DG_PGR_PRIMARY_URL" --warehouses "$W" --drop >/dev/null 2>&1
    failover_run async $((2 * SECS)) --target "$DG_PGR_URL" --fault "$((SECS / 2 - 3))s:$SRV walrcv-stop pgrep standby1" \
        --fault "$at:$SRV crash pgrep primary && $SRV walrcv-kill pgrep standby1 && $SRV promote pgrep standby1"
    # Galera: node 2 killed and started again (IST) while the users run on all three; its
    # restart (position recovery, then IST) takes some 20 s here: a longer window
    failover_run galera $((6 * SECS)) --cluster "mysql://dbgauge@127.0.0.1:$DG_GAL_PORT1,127.0.0.1:$DG_GAL_PORT2,127.0.0.1:$DG_GAL_PORT3/dbgauge" \
        --fault "$at:$SRV crash galera 2 && sleep 2 && $SRV revive galera 2"
    echo "== one failover each (4 users, W=$W): RTO (s without a commit), recovery (to 90% of the rate), RPO (acknowledged New-Orders lost, s of them)"
    python3 - "$TMP" <<'EOF'
import json, os, sys
print("%-34s %6s %8s %8s %8s %6s" % ("configuration", "run", "RTO s", "recov s", "lost", "lost s"))
names = {"fci": "one server restarted (FCI-like)", "sync": "synchronous standby promoted",
         "async": "asynchronous standby promoted", "galera": "Galera, node 2 killed + IST"}
for k in ("fci", "sync", "async", "galera"):
    p = os.path.join(sys.argv[1], k + ".json")
    try:
        d = json.load(open(p))
    except Exception:
        print("%-34s %6s" % (names[k], "failed"))
        continue
    f = d.get("failover") or {}
    fmt = lambda v, spec: "-" if v is None else spec % v
    print("%-34s %6d %8s %8s %8s %6s" % (names[k], d["run_id"], fmt(f.get("rto_s"), "%.2f"), fmt(f.get("recovery_s"), "%.1f"),
          fmt(f.get("lost"), "%d"), fmt(f.get("lost_seconds"), "%.2f")))
EOF
}

"$WHAT"
