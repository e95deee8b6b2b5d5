#!/usr/bin/env bash
# odbc.sh — what ODBC costs the client: TPC-C on one PostgreSQL database, once through the
# native libpq driver and once through unixODBC + psqlodbc (as it comes, and with
# Protocol=7.4-1: rollback of the transaction on error instead of a savepoint around every
# statement), in sql mode and in procedures mode. Prints client CPU per committed transaction
# (client_cpu_seconds / transactions, median of RUNS) with the ratio to native (aim: ODBC <=
# 1.5x), and round trips per transaction (sendto calls counted by strace over a fixed number
# of transactions: a count, so the machine's noise is not in it). Figures only.
#   bench/odbc.sh [SECONDS] [VUS] [RUNS]   (default 20 s, 2 users, 1 run each; median printed)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
SECS=${1:-20}
VUS=${2:-2}
RUNS=${3:-1}
TRIPS_TXNS=${TRIPS_TXNS:-500}
scripts/deps.sh bench
command -v strace >/dev/null || apt-get install -y -qq strace >/dev/null
[[ -x build/dbgauge ]] || { meson setup build -Dbuildtype=release >/dev/null && ninja -C build >/dev/null; }
DG=$ROOT/build/dbgauge
TMP=$(mktemp -d /tmp/dg-bench-odbc.XXXXXX)
trap 'tests/servers.sh stop all >/dev/null 2>&1 || true; rm -rf "$TMP"' EXIT
export DG_SERVERS_ENV=$TMP/servers.env
SO=$(dpkg -L odbc-postgresql | grep -m1 '/psqlodbcw.so$')

median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
# cpu_per_txn FILE: client CPU microseconds per committed transaction of a run's JSON
cpu_per_txn() {
    python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); n=sum(v["count"] for v in d["transactions"].values())
print(d["client_cpu_seconds"] * 1e6 / n)' "$1"
}
# trips MODE TARGET: sendto calls per transaction over TRIPS_TXNS transactions of one user
trips() {
    strace -f -c -e trace=sendto -o "$TMP/strace" "$DG" tpcc run --target "$2" --mode "$1" --vus 1 \
        --txns-per-vu "$TRIPS_TXNS" --results "$TMP/r.db" >/dev/null 2>&1
    awk -v n="$TRIPS_TXNS" '$NF == "sendto" {printf "%.2f", $4 / n}' "$TMP/strace"
}

tests/servers.sh start pg >/dev/null 2>&1
. "$DG_SERVERS_ENV"
export PGPASSWORD=$DG_PG_PASSWORD DG_ODBC_PASSWORD=$DG_PG_PASSWORD
NATIVE=$DG_PG_URL
ODBC="odbc:Driver=$SO;Server=127.0.0.1;Port=$DG_PG_PORT;Database=dbgauge;UID=dbgauge"
"$DG" tpcc load --target "$NATIVE" --warehouses 2 --jobs 2 --drop 2>&1 | tail -1 | sed 's/^/  /'
for mode in sql procedures; do
    declare -A cpu=()
    for ((i = 0; i < RUNS; i++)); do
        for t in native odbc odbc-7.4-1; do
            tgt=$NATIVE
            [[ $t == odbc ]] && tgt=$ODBC
            [[ $t == odbc-7.4-1 ]] && tgt="$ODBC;Protocol=7.4-1"
            "$DG" tpcc run --target "$tgt" --mode "$mode" --vus "$VUS" --duration "${SECS}s" \
                --results "$TMP/r.db" --json >"$TMP/$t.json" 2>/dev/null
            v=$(cpu_per_txn "$TMP/$t.json")
            printf '  %-10s %-10s run %d: %.0f us client CPU per transaction, NOPM %s\n' "$mode" "$t" \
                "$((i + 1))" "$v" \
                "$(python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["nopm"]))' "$TMP/$t.json")"
            cpu[$t]+="$v "
        done
    done
    n=$(printf '%s\n' ${cpu[native]} | median)
    printf 'TPC-C %s mode, 2 warehouses, %d users, %d s, median of %d: native libpq %.0f us, %s round trips per transaction\n' \
        "$mode" "$VUS" "$SECS" "$RUNS" "$n" "$(trips "$mode" "$NATIVE")"
    for t in odbc odbc-7.4-1; do
        tgt=$ODBC
        [[ $t == odbc-7.4-1 ]] && tgt="$ODBC;Protocol=7.4-1"
        o=$(printf '%s\n' ${cpu[$t]} | median)
        printf '  %-10s %.0f us, ratio %.2f (aim <= 1.5), %s round trips per transaction\n' "$t" "$o" \
            "$(echo "$o / $n" | bc -l)" "$(trips "$mode" "$tgt")"
    done
    unset cpu
done
