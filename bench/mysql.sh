#!/usr/bin/env bash
# mysql.sh — dbgauge TPC-C on a throwaway MariaDB server beside sysbench oltp_read_write on the
# same server: load rows/s with each loader method (LOAD DATA LOCAL INFILE and multi-row INSERT),
# NOPM/TPM and client CPU per transaction at 1, 2 and 4 users in both modes, and the client-CPU ratio
# dbgauge/sysbench. Prints figures; asserts nothing.
#   bench/mysql.sh                      (BENCH_SECONDS=20 BENCH_VUS="1 2 4" BENCH_W=4)
# Stops the server it started on any exit; never touches another server.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DG=${DG_BIN:-$ROOT/build/dbgauge}
SECS=${BENCH_SECONDS:-20}
VUS=${BENCH_VUS:-1 2 4}
W=${BENCH_W:-4}

[[ -x $DG ]] || { echo "bench: no $DG; build first (meson setup build && ninja -C build)" >&2; exit 1; }
TMP=$(mktemp -d /tmp/dg-bench.XXXXXX)
export DG_SERVERS_ENV=$TMP/servers.env
cleanup() {
    "$ROOT/tests/servers.sh" stop mariadb >/dev/null 2>&1
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$ROOT/tests/servers.sh" start mariadb 2>"$TMP/servers.log" || { cat "$TMP/servers.log" >&2; exit 1; }
# shellcheck disable=SC1090
. "$DG_SERVERS_ENV"
export DG_MYSQL_PASSWORD=$DG_MY_PASSWORD
MY=(mariadb -h127.0.0.1 -P"$DG_MY_PORT" -uroot -N -B)
RES=$TMP/results.db

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

figures() {
    python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); t=d["transactions"].values()
n=sum(v["count"] for v in t); c=sum(v["committed"] for v in t); s=d["measured_seconds"]
print("%.0f %.0f %.1f %.4f %d %d" % (d["nopm"], d["tpm"], c/s, 1000*d["client_cpu_seconds"]/max(n,1),
      sum(v["retries"] for v in t), sum(v["errors"] for v in t)))' "$1"
}

declare -A DG_CPU
printf '\n%-11s %4s %10s %10s %9s %14s %8s %7s\n' mode users NOPM TPM TPS "cpu ms/txn" retries errors
for mode in procedures sql; do
    for n in $VUS; do
        if ! "$DG" tpcc run --target "$DG_MY_URL" --mode "$mode" --vus "$n" --duration "${SECS}s" \
            --results "$RES" --json --label "bench $mode $n" >"$TMP/run.json" 2>"$TMP/run.err"; then
            echo "$mode $n: run failed: $(tail -n 2 "$TMP/run.err")"
            continue
        fi
        read -r nopm tpm tps cpu retries errors < <(figures "$TMP/run.json")
        DG_CPU[$mode.$n]=$cpu
        printf '%-11s %4d %10s %10s %9s %14s %8s %7s\n' "$mode" "$n" "$nopm" "$tpm" "$tps" "$cpu" "$retries" "$errors"
    done
done
"$DG" tpcc check --target "$DG_MY_URL" >"$TMP/check.out" 2>&1 && echo "tpcc check after the runs: passed" ||
    echo "tpcc check after the runs: FAILED ($(tail -n 1 "$TMP/check.out"))"

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
    rs=$(echo "scale=2; ${DG_CPU[sql.$n]:-0} / $cpu" | bc)
    rp=$(echo "scale=2; ${DG_CPU[procedures.$n]:-0} / $cpu" | bc)
    printf '%-28s %4d %9s %14s %26s\n' "--threads=$n --time=$SECS" "$n" "$tps" "$cpu" "$rs sql, $rp procedures"
done
"${SB[@]}" cleanup >/dev/null 2>&1
