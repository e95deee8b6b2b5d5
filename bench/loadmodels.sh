#!/usr/bin/env bash
# loadmodels.sh — what dbgauge's scheduler costs: 15,000 terminals with the standard's keying
# and think times over 8 workers on the null driver (resident memory, schedule lag, tpmC vs
# the ceiling), the same model on SQLite at a scale that fits, and an open-loop rate beside
# pgbench's own --rate on a local PostgreSQL (schedule lag of both). Prints figures only.
#   bench/loadmodels.sh [SECONDS]   (default 120 measured, after 60 s warm-up)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
SECS=${1:-120}
WARM=$((SECS / 2))
scripts/deps.sh bench
[[ -x build/dbgauge ]] || { meson setup build -Dbuildtype=release >/dev/null && ninja -C build >/dev/null; }
DG=$ROOT/build/dbgauge
TMP=$(mktemp -d /tmp/dg-bench-lm.XXXXXX)
trap 'tests/servers.sh stop all >/dev/null 2>&1 || true; rm -rf "$TMP"' EXIT
export DG_SERVERS_ENV=$TMP/servers.env

field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): d=d[k]
print(d)' "$1" "$2"; }

echo "== 15,000 terminals (1,500 warehouses x 10), 8 workers, null driver, ${WARM}s warm-up + ${SECS}s"
/usr/bin/time -f "%M" -o "$TMP/rss" "$DG" tpcc run --target null: --warehouses 1500 --think-time \
    --vus 8 --warmup "${WARM}s" --duration "${SECS}s" --results "$TMP/r.db" --json >"$TMP/null.json" 2>/dev/null
rss_kb=$(cat "$TMP/rss")
tpmc=$(field "$TMP/null.json" tpmc)
ceil=$(field "$TMP/null.json" tpmc_ceiling)
printf '  resident memory     %.1f MB (aim <= 64)\n' "$(echo "$rss_kb / 1024" | bc -l)"
printf '  schedule lag        p50 %.3f ms, p99 %.3f ms, max %.3f ms (aim p99 <= 1 ms)\n' \
    "$(field "$TMP/null.json" lag_p50_ms)" "$(field "$TMP/null.json" lag_p99_ms)" "$(field "$TMP/null.json" lag_max_ms)"
printf '  tpmC                %.0f of the %.0f ceiling (%.1f%%); the 23-card deck alone gives 12.61/W = %.0f\n' \
    "$tpmc" "$ceil" "$(echo "100 * $tpmc / $ceil" | bc -l)" "$(echo "12.61 * 1500" | bc -l)"
cpu=$(field "$TMP/null.json" client_cpu_seconds)
n=$(python3 -c 'import json,sys; print(sum(v["count"] for v in json.load(open(sys.argv[1]))["transactions"].values()))' "$TMP/null.json")
printf '  dbgauge CPU         %.4f ms per transaction (%s transactions)\n' "$(echo "1000 * $cpu / $n" | bc -l)" "$n"

echo "== 10 warehouses on SQLite, 100 terminals, 4 workers, ${WARM}s warm-up + ${SECS}s"
"$DG" tpcc load --target "sqlite:$TMP/tpcc10.db" --warehouses 10 >/dev/null 2>&1
"$DG" tpcc run --target "sqlite:$TMP/tpcc10.db" --think-time --vus 4 --warmup "${WARM}s" --duration "${SECS}s" \
    --results "$TMP/r.db" --json >"$TMP/sq.json" 2>/dev/null
printf '  tpmC %.1f of the %.1f ceiling; lag p99 %.3f ms; New-Order p90 %.2f ms\n' "$(field "$TMP/sq.json" tpmc)" \
    "$(field "$TMP/sq.json" tpmc_ceiling)" "$(field "$TMP/sq.json" lag_p99_ms)" "$(field "$TMP/sq.json" transactions.new_order.p90_ms)"

echo "== open loop at 500/s on PostgreSQL: dbgauge --rate vs pgbench --rate (schedule lag)"
tests/servers.sh start pg >/dev/null 2>&1
. "$DG_SERVERS_ENV"
export PGPASSWORD=$DG_PG_PASSWORD
"$DG" tpcc load --target "$DG_PG_URL" --warehouses 2 --jobs 2 --drop >/dev/null 2>&1
"$DG" tpcc run --target "$DG_PG_URL" --rate 500 --vus 4 --duration 30s --results "$TMP/r.db" --json >"$TMP/pg.json" 2>/dev/null
printf '  dbgauge  achieved %.1f/s, start lag p50 %.3f ms, p99 %.3f ms\n' "$(field "$TMP/pg.json" rate.achieved_per_s)" \
    "$(field "$TMP/pg.json" lag_p50_ms)" "$(field "$TMP/pg.json" lag_p99_ms)"
psql -X -q "$DG_PG_ADMIN_URL" -c "CREATE DATABASE pgb OWNER dbgauge" >/dev/null
pgb_url=${DG_PG_URL%/*}/pgb
pgbench -i -q -s 2 "$pgb_url" >/dev/null 2>&1
pgbench -R 500 -c 4 -j 4 -T 30 "$pgb_url" 2>/dev/null | grep -E "tps|schedule lag|latency average" | sed 's/^/  pgbench  /'
