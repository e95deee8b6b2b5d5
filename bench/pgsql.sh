#!/usr/bin/env bash
# pgsql.sh — dbgauge TPC-C on a throwaway PostgreSQL server beside pgbench's TPC-B on the same
# server: load times, NOPM/TPM/TPS at 1, 2 and 4 users in both modes, client CPU per
# transaction, and the dbgauge/pgbench ratios. Prints figures; asserts nothing.
#   bench/pgsql.sh                      (BENCH_SECONDS=30 BENCH_VUS="1 2 4" BENCH_W=4)
# Stops the server it started on any exit; never touches another server.
set -uo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
SECS=${BENCH_SECONDS:-30}
PG_BIN=${DG_PG_BIN:-/usr/lib/postgresql/15/bin}
PGBENCH=$PG_BIN/pgbench
[[ -x $PGBENCH ]] || PGBENCH=$(command -v pgbench || true)

bench_server pg
export PGPASSWORD=$DG_PG_PASSWORD
HOSTPORT=${DG_PG_URL#postgres://dbgauge@}
HOSTPORT=${HOSTPORT%%/*}
PORT=${HOSTPORT##*:}

echo "# host: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); $("$PG_BIN/postgres" -V)"
echo "# server: $(psql -X -At "$DG_PG_URL" -c "SELECT string_agg(name || '=' || setting, ' ') FROM pg_settings WHERE name IN ('shared_buffers','synchronous_commit','fsync','max_connections')")"
echo "# $SECS s per run; users: $VUS"

t0=$(date +%s.%N)
"$DG" tpcc load --target "$DG_PG_URL" --warehouses "$W" --jobs 2 >"$TMP/load.out" 2>&1 || { cat "$TMP/load.out"; exit 1; }
t1=$(date +%s.%N)
printf 'dbgauge tpcc load W=%d --jobs 2: %.2f s wall\n' "$W" "$(echo "$t1 - $t0" | bc)"

run_table "$DG_PG_URL" "$SECS"

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
    rp=$(echo "scale=2; ${RUN_TPS[procedures.$n]:-0} / $tps" | bc)
    rs=$(echo "scale=2; ${RUN_TPS[sql.$n]:-0} / $tps" | bc)
    printf '%-24s %4d %9.1f %14s %18s %18s\n' "-c $n -j $n -T $SECS" "$n" "$tps" "$cpu" "$rp, $rs" "(TPS ratio)"
done
