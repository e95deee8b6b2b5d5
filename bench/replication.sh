#!/usr/bin/env bash
# bench/replication.sh — what replication costs on the same TPC-C (issue 15), in one script:
# NOPM at 1 and 4 users, W=4, on
#   PostgreSQL: a single server; a primary with a streaming standby, asynchronous; synchronous
#               with synchronous_commit remote_write, on and remote_apply (set per run in the
#               URL: options=-csynchronous_commit=...);
#   MariaDB:    a single server; a 3-node Galera cluster, the users on node 1 and spread over
#               the three nodes (--cluster);
# each as a percentage of its single server. Beside each, dbgauge's own client CPU per
# transaction: replication must not make the driver work harder. Last, the monitor's own
# cost on the synchronous standby: client CPU with the monitor (which samples replication
# once a second) against --no-monitor.
# A benchmark: it prints figures and asserts nothing. Never run it beside tests.
# Usage: bench/replication.sh   (BENCH_SECS=20 BENCH_W=4 BENCH_ROUNDS=1 to change the sizes)
set -uo pipefail
. "$(dirname "$0")/lib.sh"
SECS=${BENCH_SECS:-20}
ROUNDS=${BENCH_ROUNDS:-1}
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

bench_server pg pgrep mariadb galera
export PGPASSWORD=$DG_PG_PASSWORD DG_MYSQL_PASSWORD=$DG_MY_PASSWORD
[[ $DG_PGR_PASSWORD == "$DG_PG_PASSWORD" && $DG_GAL_PASSWORD == "$DG_MY_PASSWORD" ]] ||
    { echo "bench: the replicated servers' passwords differ from the single ones'" >&2; exit 1; }
echo "dbgauge bench: replication, $(nproc) cores, W=$W, ${SECS}s runs x $ROUNDS, $("$DG" --version 2>/dev/null) at $(git -C "$ROOT" rev-parse --short HEAD)"
SRV=$ROOT/tests/servers.sh
GAL_CLUSTER="mysql://dbgauge@127.0.0.1:$DG_GAL_PORT1,127.0.0.1:$DG_GAL_PORT2,127.0.0.1:$DG_GAL_PORT3/dbgauge"

load() { "$DG" tpcc load --target "$1" --warehouses "$W" --drop >/dev/null 2>"$TMP/load.err" ||
    { echo "bench: load on $1 failed: $(tail -n 2 "$TMP/load.err")" >&2; exit 1; }; }
load "$DG_PG_URL"
load "$DG_PGR_PRIMARY_URL"
load "$DG_MY_URL"
load "$DG_GAL_URL1"

declare -A NOPM CPU
# measure NAME USERS ARGS...: ROUNDS runs; the medians of NOPM and client CPU ms/txn kept
measure() {
    local name=$1 n=$2 r nopm tpm tps cpu rest
    shift 2
    : >"$TMP/nopm" && : >"$TMP/cpu"
    for ((r = 0; r < ROUNDS; r++)); do
        if ! "$DG" tpcc run --vus "$n" --duration "${SECS}s" --warmup 3s --results "$RES" --json \
            --label "bench replication $name $n" "$@" >"$TMP/run.json" 2>"$TMP/run.err"; then
            echo "  $name $n: run failed: $(tail -n 2 "$TMP/run.err")"
            return
        fi
        read -r nopm tpm tps cpu rest < <(figures "$TMP/run.json")
        echo "$nopm" >>"$TMP/nopm"
        echo "$cpu" >>"$TMP/cpu"
    done
    NOPM[$name.$n]=$(median <"$TMP/nopm")
    CPU[$name.$n]=$(median <"$TMP/cpu")
}

# row NAME BASE: the table row of NAME, its cost against BASE at each number of users
row() {
    local name=$1 base=$2 n
    printf '%-28s' "$name"
    for n in 1 4; do
        local v=${NOPM[$name.$n]:-} b=${NOPM[$base.$n]:-} c=${CPU[$name.$n]:-}
        if [[ -z $v ]]; then printf ' %10s %8s %8s' - - -; continue; fi
        printf ' %10.0f %7.1f%% %8.4f' "$v" "$(awk -v v="$v" -v b="$b" 'BEGIN { print (b > 0 ? 100 * (v - b) / b : 0) }')" "$c"
    done
    echo
}

pg_sync_url() { echo "$DG_PGR_PRIMARY_URL?options=-csynchronous_commit%3D$1"; }
for n in 1 4; do
    measure "pg single" "$n" --target "$DG_PG_URL"
    "$SRV" sync pgrep off >/dev/null 2>&1
    measure "pg async standby" "$n" --target "$DG_PGR_PRIMARY_URL"
    "$SRV" sync pgrep on >/dev/null 2>&1
    for level in remote_write on remote_apply; do
        measure "pg sync $level" "$n" --target "$(pg_sync_url "$level")"
    done
    measure "mariadb single" "$n" --target "$DG_MY_URL"
    measure "galera, users on node 1" "$n" --target "$DG_GAL_URL1"
    [[ $n -ge 3 ]] && measure "galera, users on 3 nodes" "$n" --cluster "$GAL_CLUSTER"
done

echo
printf '%-28s %10s %8s %8s %10s %8s %8s\n' "" "NOPM 1u" "cost" "cpu ms" "NOPM 4u" "cost" "cpu ms"
row "pg single" "pg single"
row "pg async standby" "pg single"
for level in remote_write on remote_apply; do row "pg sync $level" "pg single"; done
row "mariadb single" "mariadb single"
row "galera, users on node 1" "mariadb single"
row "galera, users on 3 nodes" "mariadb single"
echo "(cost: NOPM against the single server of the same engine; cpu ms: dbgauge's client CPU per transaction)"

# ---- the monitor's own cost: it samples the host and, once a second, each target's replication
echo
echo "== the monitor on the synchronous standby (4 users): client CPU with and without it"
"$SRV" sync pgrep on >/dev/null 2>&1
: >"$TMP/on" && : >"$TMP/off"
for ((r = 0; r < 3; r++)); do
    for mode in on off; do
        extra=()
        [[ $mode == off ]] && extra=(--no-monitor)
        "$DG" tpcc run --target "$DG_PGR_PRIMARY_URL" --vus 4 --duration "${SECS}s" --results "$RES" --json \
            "${extra[@]}" >"$TMP/m.json" 2>/dev/null || continue
        read -r nopm tpm tps cpu rest < <(figures "$TMP/m.json")
        echo "$cpu" >>"$TMP/$mode"
    done
done
awk -v on="$(median <"$TMP/on")" -v off="$(median <"$TMP/off")" 'BEGIN {
    printf "  client CPU per transaction: %.4f ms with the monitor, %.4f ms without: ratio %.3f (%+.1f%%)\n",
        on, off, on / off, 100 * (on - off) / off }'
"$DG" tpcc check --target "$DG_GAL_URL3" >"$TMP/check.out" 2>&1 && echo "tpcc check on Galera node 3 after the runs: passed" ||
    echo "tpcc check on Galera node 3 after the runs: FAILED ($(tail -n 1 "$TMP/check.out"))"
