#!/usr/bin/env bash
# pgsql.sh — dbgauge TPC-C on a throwaway PostgreSQL server beside pgbench's TPC-B on the same
# server: load times, NOPM/TPM/TPS at 1, 2 and 4 users in both modes, client CPU per
# transaction, and the dbgauge/pgbench ratios. Prints figures; asserts nothing.
#   bench/pgsql.sh                      (BENCH_SECONDS=30 BENCH_VUS="1 2 4" BENCH_W=4)
# Stops the server it started on any exit; never touches another server.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DG=${DG_BIN:-$ROOT/build/dbgauge}
SECS=${BENCH_SECONDS:-30}
VUS=${BENCH_VUS:-1 2 4}
W=${BENCH_W:-4}
PG_BIN=${DG_PG_BIN:-/usr/lib/postgresql/15/bin}
PGBENCH=$PG_BIN/pgbench
[[ -x $PGBENCH ]] || PGBENCH=$(command -v pgbench || true)

[[ -x $DG ]] || { echo "bench: no $DG; build first (meson setup build && ninja -C build)" >&2; exit 1; }
TMP=$(mktemp -d /tmp/dg-bench.XXXXXX)
export DG_SERVERS_ENV=$TMP/servers.env
cleanup() {
    "$ROOT/tests/servers.sh" stop pg >/dev/null 2>&1
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$ROOT/tests/servers.sh" start pg 2>"$TMP/servers.log" || { cat "$TMP/servers.log" >&2; exit 1; }
# shellcheck disable=SC1090
. "$DG_SERVERS_ENV"
export PGPASSWORD=$DG_PG_PASSWORD
HOSTPORT=${DG_PG_URL#postgres://dbgauge@}
HOSTPORT=${HOSTPORT%%/*}
PORT=${HOSTPORT##*:}
RES=$TMP/results.db

echo "# host: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); $("$PG_BIN/postgres" -V)"
echo "# server: $(psql -X -At "$DG_PG_URL" -c "SELECT string_agg(name || '=' || setting, ' ') FROM pg_settings WHERE name IN ('shared_buffers','synchronous_commit','fsync','max_connections')")"
echo "# $SECS s per run; users: $VUS"

t0=$(date +%s.%N)
"$DG" tpcc load --target "$DG_PG_URL" --warehouses "$W" --jobs 2 >"$TMP/load.out" 2>&1 || { cat "$TMP/load.out"; exit 1; }
t1=$(date +%s.%N)
printf 'dbgauge tpcc load W=%d --jobs 2: %.2f s wall\n' "$W" "$(echo "$t1 - $t0" | bc)"

# figures FILE: "NOPM TPM TPS CPU_MS_PER_TXN" from a run's JSON
figures() {
    python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); t=d["transactions"].values()
n=sum(v["count"] for v in t); c=sum(v["committed"] for v in t); s=d["measured_seconds"]
print("%.0f %.0f %.1f %.4f %d %d" % (d["nopm"], d["tpm"], c/s, 1000*d["client_cpu_seconds"]/max(n,1),
      sum(v["retries"] for v in t), sum(v["errors"] for v in t)))' "$1"
}

declare -A DG_TPS
printf '\n%-11s %4s %10s %10s %9s %14s %8s %7s\n' mode users NOPM TPM TPS "cpu ms/txn" retries errors
for mode in procedures sql; do
    for n in $VUS; do
        if ! "$DG" tpcc run --target "$DG_PG_URL" --mode "$mode" --vus "$n" --duration "${SECS}s" \
            --results "$RES" --json --label "bench $mode $n" >"$TMP/run.json" 2>"$TMP/run.err"; then
            echo "$mode $n: run failed: $(tail -n 2 "$TMP/run.err")"
            continue
        fi
        read -r nopm tpm tps cpu retries errors < <(figures "$TMP/run.json")
        DG_TPS[$mode.$n]=$tps
        printf '%-11s %4d %10s %10s %9s %14s %8s %7s\n' "$mode" "$n" "$nopm" "$tpm" "$tps" "$cpu" "$retries" "$errors"
    done
done
"$DG" tpcc check --target "$DG_PG_URL" >"$TMP/check.out" 2>&1 && echo "tpcc check after the runs: passed" ||
    echo "tpcc check after the runs: FAILED ($(tail -n 1 "$TMP/check.out"))"

if [[ -z $PGBENCH ]]; then
    echo "pgbench not found: no comparison"
    exit 0
fi
psql -X -q "$DG_PG_ADMIN_URL" -c "CREATE DATABASE pgbench OWNER dbgauge" || exit 1
PGB=(-h 127.0.0.1 -p "$PORT" -U dbgauge)
t0=$(date +%s.%N)
"$PGBENCH" "${PGB[@]}" -i -s 40 -q pgbench >"$TMP/pgbi.out" 2>&1 || { cat "$TMP/pgbi.out"; exit 1; }
t1=$(date +%s.%N)
printf '\npgbench -i -s 40: %.2f s wall\n' "$(echo "$t1 - $t0" | bc)"

# The floor under any 1-user figure: one prepared single-row UPDATE, committed, per round trip
# (synchronous_commit on: every commit waits for its WAL flush), and one SELECT 1.
echo 'UPDATE pgbench_branches SET bbalance = bbalance + 1 WHERE bid = 1;' >"$TMP/floor-write.sql"
echo 'SELECT 1;' >"$TMP/floor-read.sql"
for f in write read; do
    "$PGBENCH" "${PGB[@]}" -n -M prepared -c 1 -T "$(( (SECS + 2) / 3 ))" -f "$TMP/floor-$f.sql" pgbench >"$TMP/floor.out" 2>&1 || continue
    lat=$(sed -n 's/^latency average = \([0-9.]*\) ms/\1/p' "$TMP/floor.out")
    printf 'floor, 1 client, one-row %-6s %s ms per transaction (%s TPS)\n' "$f:" "$lat" \
        "$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$TMP/floor.out" | head -n 1)"
done

printf '\n%-24s %4s %9s %14s %18s %18s\n' "pgbench TPC-B" users TPS "cpu ms/txn" "dbgauge/pgbench" "(procedures, sql)"
for n in $VUS; do
    /usr/bin/time -f '%U %S' -o "$TMP/time" "$PGBENCH" "${PGB[@]}" -c "$n" -j "$n" -T "$SECS" -n pgbench \
        >"$TMP/pgb.out" 2>&1 || { echo "pgbench -c $n failed: $(tail -n 2 "$TMP/pgb.out")"; continue; }
    tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$TMP/pgb.out" | head -n 1)
    txns=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$TMP/pgb.out")
    read -r u s <"$TMP/time"
    cpu=$(echo "scale=4; 1000 * ($u + $s) / $txns" | bc)
    rp=$(echo "scale=2; ${DG_TPS[procedures.$n]:-0} / $tps" | bc)
    rs=$(echo "scale=2; ${DG_TPS[sql.$n]:-0} / $tps" | bc)
    printf '%-24s %4d %9.1f %14s %18s %18s\n' "-c $n -j $n -T $SECS" "$n" "$tps" "$cpu" "$rp, $rs" "(TPS ratio)"
done
