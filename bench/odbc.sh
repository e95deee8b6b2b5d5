#!/usr/bin/env bash
# odbc.sh — what ODBC costs the client: TPC-C in sql mode on one PostgreSQL database, once
# through the native libpq driver and once through unixODBC + psqlodbc, client CPU per
# committed transaction (client_cpu_seconds / transactions), printed with the ratio
# (aim: ODBC <= 1.5x native), for psqlodbc as it comes and with Protocol=7.4-1 (rollback of the
# transaction on error instead of a savepoint around every statement). Figures only; the
# machine's noise is in them.
#   bench/odbc.sh [SECONDS] [VUS] [RUNS]   (default 20 s, 2 users, 1 run each; median printed)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
SECS=${1:-20}
VUS=${2:-2}
RUNS=${3:-1}
scripts/deps.sh bench
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

tests/servers.sh start pg >/dev/null 2>&1
. "$DG_SERVERS_ENV"
export PGPASSWORD=$DG_PG_PASSWORD DG_ODBC_PASSWORD=$DG_PG_PASSWORD
NATIVE=$DG_PG_URL
ODBC="odbc:Driver=$SO;Server=127.0.0.1;Port=$DG_PG_PORT;Database=dbgauge;UID=dbgauge"
"$DG" tpcc load --target "$NATIVE" --warehouses 2 --jobs 2 --drop 2>&1 | tail -1 | sed 's/^/  /'
nat=() odb=() odt=()
for ((i = 0; i < RUNS; i++)); do
    for t in native odbc odbc-txn; do
        tgt=$NATIVE
        [[ $t == odbc ]] && tgt=$ODBC
        [[ $t == odbc-txn ]] && tgt="$ODBC;Protocol=7.4-1"
        "$DG" tpcc run --target "$tgt" --mode sql --vus "$VUS" --duration "${SECS}s" --results "$TMP/r.db" \
            --json >"$TMP/$t.json" 2>/dev/null
        v=$(cpu_per_txn "$TMP/$t.json")
        printf '  %-8s run %d: %.0f us client CPU per transaction, NOPM %s\n' "$t" "$((i + 1))" "$v" \
            "$(python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["nopm"]))' "$TMP/$t.json")"
        case $t in odbc) odb+=("$v") ;; odbc-txn) odt+=("$v") ;; *) nat+=("$v") ;; esac
    done
done
n=$(printf '%s\n' "${nat[@]}" | median)
o=$(printf '%s\n' "${odb[@]}" | median)
x=$(printf '%s\n' "${odt[@]}" | median)
printf 'TPC-C sql mode, 2 warehouses, %d users, %d s, median of %d: client CPU per transaction native libpq %.0f us;\n' "$VUS" "$SECS" "$RUNS" "$n"
printf '  ODBC psqlodbc default %.0f us, ratio %.2f; with Protocol=7.4-1 %.0f us, ratio %.2f (aim <= 1.5)\n' \
    "$o" "$(echo "$o / $n" | bc -l)" "$x" "$(echo "$x / $n" | bc -l)"
