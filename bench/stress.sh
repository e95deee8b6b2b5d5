#!/usr/bin/env bash
# stress.sh — query stress as the article measures it: read 1M rows of ~200 bytes from
# PostgreSQL at 1 and 2 threads, dbgauge beside a minimal libpq loop (bench/pg_fetch_peer.c)
# doing the same fetch and nothing else; prints MB/s of both and the ratio (aim >= 0.90).
# Also SQLite at the same threads. Prints figures only.
#   bench/stress.sh [RUNS]   (default 3; the median is printed)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
RUNS=${1:-3}
scripts/deps.sh bench
[[ -x build/dbgauge ]] || { meson setup build -Dbuildtype=release >/dev/null && ninja -C build >/dev/null; }
DG=$ROOT/build/dbgauge
TMP=$(mktemp -d /tmp/dg-bench-stress.XXXXXX)
trap 'tests/servers.sh stop all >/dev/null 2>&1 || true; rm -rf "$TMP"' EXIT
export DG_SERVERS_ENV=$TMP/servers.env
cc -O2 -std=c17 -Wall -Wextra -D_GNU_SOURCE -I"$(pg_config --includedir 2>/dev/null || echo /usr/include/postgresql)" \
    -o "$TMP/peer" bench/pg_fetch_peer.c -lpq -lpthread

median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

tests/servers.sh start pg >/dev/null 2>&1
. "$DG_SERVERS_ENV"
export PGPASSWORD=$DG_PG_PASSWORD
"$DG" stress prepare --target "$DG_PG_URL" --rows 1000000 --row-bytes 200 --drop 2>&1 | sed 's/^/  /'
conninfo="host=127.0.0.1 port=$DG_PG_PORT dbname=dbgauge user=dbgauge"
for threads in 1 2; do
    dgs=() peers=()
    for ((i = 0; i < RUNS; i++)); do
        "$DG" stress --target "$DG_PG_URL" --threads "$threads" --iterations 3 --results "$TMP/r.db" --json \
            >"$TMP/s.json" 2>/dev/null
        dgs+=("$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["steps"][0]["mb_per_s"])' "$TMP/s.json")")
        read -r rows bytes secs < <("$TMP/peer" "$conninfo" "SELECT * FROM dbgauge_stress" "$threads" 3)
        peers+=("$(echo "$bytes / 1000000 / $secs" | bc -l)")
    done
    d=$(printf '%s\n' "${dgs[@]}" | median)
    p=$(printf '%s\n' "${peers[@]}" | median)
    printf 'PostgreSQL, %d thread(s), 3 x 1M rows each: dbgauge %.1f MB/s, libpq loop %.1f MB/s, ratio %.3f (median of %d)\n' \
        "$threads" "$d" "$p" "$(echo "$d / $p" | bc -l)" "$RUNS"
done
"$DG" stress prepare --target "sqlite:$TMP/s.db" --rows 1000000 --row-bytes 200 >/dev/null 2>&1
"$DG" stress --target "sqlite:$TMP/s.db" --threads 1,2,4 --iterations 3 --results "$TMP/r.db" 2>/dev/null | sed 's/^/  /'
