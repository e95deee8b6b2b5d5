#!/usr/bin/env bash
# mysql.sh — dbgauge TPC-C on a throwaway MariaDB server beside sysbench oltp_read_write on the
# same server: load rows/s with each loader method (LOAD DATA LOCAL INFILE and multi-row INSERT),
# NOPM/TPM and client CPU per transaction at 1, 2 and 4 users in both modes, and the client-CPU ratio
# dbgauge/sysbench. Prints figures; asserts nothing.
#   bench/mysql.sh                      (BENCH_SECONDS=20 BENCH_VUS="1 2 4" BENCH_W=4)
# Stops the server it started on any exit; never touches another server.
set -uo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
SECS=${BENCH_SECONDS:-20}

bench_server mariadb
export DG_MYSQL_PASSWORD=$DG_MY_PASSWORD
MY=(mariadb -h127.0.0.1 -P"$DG_MY_PORT" -uroot -N -B)

echo "# host: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); $(mariadbd --version | awk '{print $3}')"
echo "# server: $("${MY[@]}" -e "SELECT CONCAT_WS(' ', CONCAT('innodb_buffer_pool_size=', @@innodb_buffer_pool_size), CONCAT('innodb_flush_log_at_trx_commit=', @@innodb_flush_log_at_trx_commit), CONCAT('innodb_log_file_size=', @@innodb_log_file_size))")"
echo "# $SECS s per run; users: $VUS; W=$W"

for method in insert infile; do
    "$DG" tpcc load --target "$DG_MY_URL?load=$method" --warehouses "$W" --jobs 2 --drop --json \
        >"$TMP/load.json" 2>"$TMP/load.err" || { echo "load $method failed: $(tail -n 2 "$TMP/load.err")"; continue; }
    python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
print("dbgauge tpcc load W=%s --jobs 2 load=%-6s: %d rows in %.2f s = %.0f rows/s (data %.2f s, indexes %.2f s)" % (
    sys.argv[2], sys.argv[3], d["rows"], d["seconds"], d["rows"] / d["seconds"], d["data_seconds"], d["index_seconds"]))' \
        "$TMP/load.json" "$W" "$method" 2>/dev/null || head -c 400 "$TMP/load.json"
done

run_table "$DG_MY_URL" "$SECS"

if ! command -v sysbench >/dev/null; then
    echo "sysbench not found: no comparison"
    exit 0
fi
SB=(sysbench oltp_read_write --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$DG_MY_PORT"
    --mysql-user=dbgauge --mysql-password="$DG_MY_PASSWORD" --mysql-db=dbgauge --tables=4 --table-size=100000)
"${SB[@]}" cleanup >/dev/null 2>&1
"${SB[@]}" prepare >"$TMP/sbp.out" 2>&1 || { echo "sysbench prepare failed: $(tail -n 2 "$TMP/sbp.out")"; exit 0; }
printf '\n%-28s %4s %9s %14s %26s\n' "sysbench oltp_read_write" users TPS "cpu ms/txn" "dbgauge/sysbench cpu"
for n in $VUS; do
    /usr/bin/time -f '%U %S' -o "$TMP/time" "${SB[@]}" --threads="$n" --time="$SECS" run \
        >"$TMP/sb.out" 2>&1 || { echo "sysbench --threads=$n failed: $(tail -n 2 "$TMP/sb.out")"; continue; }
    txns=$(sed -n 's/^ *transactions: *\([0-9]*\).*/\1/p' "$TMP/sb.out")
    tps=$(sed -n 's/^ *transactions: *[0-9]* *(\([0-9.]*\) per sec.*/\1/p' "$TMP/sb.out")
    read -r u s <"$TMP/time"
    cpu=$(echo "scale=4; 1000 * ($u + $s) / $txns" | bc)
    rs=$(echo "scale=2; ${RUN_CPU[sql.$n]:-0} / $cpu" | bc)
    rp=$(echo "scale=2; ${RUN_CPU[procedures.$n]:-0} / $cpu" | bc)
    printf '%-28s %4d %9s %14s %26s\n' "--threads=$n --time=$SECS" "$n" "$tps" "$cpu" "$rs sql, $rp procedures"
done
"${SB[@]}" cleanup >/dev/null 2>&1
