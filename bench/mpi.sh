#!/usr/bin/env bash
# mpi.sh — what running dbgauge as several MPI ranks costs, on this machine (ranks over the
# loopback): the article's scale on the null driver (60,000 think-time terminals, 6,000
# warehouses x 10, over 4 ranks: each rank's resident memory, the merged start lag, tpmC
# against the 12.86 per warehouse the think times allow); the same 15,000 terminals on 1 rank
# and on 4 ranks (tpmC ratio); and MPI's own overhead on a closed-loop SQLite run, 1 rank under
# mpirun against the same run without mpirun, alternated, as a TPS ratio. Prints figures only.
#   bench/mpi.sh [SECONDS]   (default 120 measured, after SECONDS/2 of warm-up)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
SECS=${1:-120}
WARM=$((SECS / 2))
scripts/deps.sh bench
[[ -x build/dbgauge ]] || { meson setup build -Dbuildtype=release >/dev/null && ninja -C build >/dev/null; }
DG=$ROOT/build/dbgauge
"$DG" --version | grep -q 'mpi: Open MPI' || { echo "bench/mpi.sh: $DG is built without Open MPI" >&2; exit 1; }
TMP=$(mktemp -d /tmp/dg-bench-mpi.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 HWLOC_COMPONENTS=-gl
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl_tcp_if_include=lo

# Each rank under /usr/bin/time: its peak resident set in rss.RANK (kB).
cat >"$TMP/rss.sh" <<'SH'
#!/bin/sh
exec /usr/bin/time -f "%M" -o "$DG_RSS_DIR/rss.$OMPI_COMM_WORLD_RANK" "$@"
SH
chmod +x "$TMP/rss.sh"

field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): d=d[k]
print(d)' "$1" "$2"; }
tps() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(sum(v["committed"] for v in d["transactions"].values()) / d["measured_seconds"])' "$1"; }

# think N-RANKS WAREHOUSES WORKERS NAME: a think-time run on the null driver
think() {
    local n=$1 w=$2 vus=$3 name=$4
    mkdir -p "$TMP/$name"
    DG_RSS_DIR=$TMP/$name mpirun -x DG_RSS_DIR --oversubscribe -n "$n" "$TMP/rss.sh" "$DG" tpcc run --target null: \
        --warehouses "$w" --think-time --vus "$vus" --warmup "${WARM}s" --duration "${SECS}s" \
        --results "$TMP/r.db" --json --no-monitor >"$TMP/$name.json" 2>"$TMP/$name.err" ||
        { echo "bench/mpi.sh: $name failed:" >&2; tail -n 20 "$TMP/$name.err" >&2; exit 1; }
}

echo "dbgauge bench: mpi, $(nproc) cores, $("$DG" --version), ${WARM}s warm-up + ${SECS}s windows, at $(git rev-parse --short HEAD)"

echo "== 60,000 terminals (6,000 warehouses x 10), 4 ranks x 2 workers, null driver"
think 4 6000 8 t60k
max_rss=$(sort -n "$TMP"/t60k/rss.* | tail -n 1)
printf '  resident memory     per rank %s MB (largest %.1f MB; aim <= 64)\n' \
    "$(for f in "$TMP"/t60k/rss.*; do printf '%.1f ' "$(echo "$(cat "$f") / 1024" | bc -l)"; done)" \
    "$(echo "$max_rss / 1024" | bc -l)"
printf '  start lag           p50 %.3f ms, p99 %.3f ms, max %.3f ms (aim p99 <= 1 ms)\n' \
    "$(field "$TMP/t60k.json" lag_p50_ms)" "$(field "$TMP/t60k.json" lag_p99_ms)" "$(field "$TMP/t60k.json" lag_max_ms)"
tpmc=$(field "$TMP/t60k.json" tpmc)
printf '  tpmC                %.0f = %.1f%% of 12.86 x 6,000 = 77,160 (aim 85-105%%); ceiling %.0f\n' \
    "$tpmc" "$(echo "100 * $tpmc / 77160" | bc -l)" "$(field "$TMP/t60k.json" tpmc_ceiling)"
python3 - "$TMP/t60k.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d.get("ranks", []):
    f = r.get("figures", {})
    print(f"  rank {r['rank']}  terminals {r['terminals']:>6}  committed {r['committed']:>8}  "
          f"CPU {r['client_cpu_s']:.2f} s  start {r['start_offset_ms']:+.3f} ms  clock {r['clock_offset_ms']:+.3f} ms")
PY

echo "== 15,000 terminals (1,500 warehouses x 10), 8 workers: 1 rank vs 4 ranks"
think 1 1500 8 t15k1
think 4 1500 8 t15k4
a=$(field "$TMP/t15k1.json" tpmc)
b=$(field "$TMP/t15k4.json" tpmc)
printf '  tpmC 1 rank %.0f, 4 ranks %.0f: ratio %.4f (aim within 2%%); lag p99 %.3f / %.3f ms\n' "$a" "$b" \
    "$(echo "$b / $a" | bc -l)" "$(field "$TMP/t15k1.json" lag_p99_ms)" "$(field "$TMP/t15k4.json" lag_p99_ms)"

echo "== MPI overhead: SQLite closed loop, 2 warehouses, 4 VUs, 20 s: 1 rank under mpirun vs no mpirun (3 rounds, alternated)"
"$DG" tpcc load --target "sqlite:$TMP/sq.db" --warehouses 2 --seed 3 >/dev/null 2>&1
plain=() ranked=()
for round in 1 2 3; do
    "$DG" tpcc run --target "sqlite:$TMP/sq.db" --vus 4 --duration 20s --results "$TMP/r.db" --json --no-monitor \
        >"$TMP/plain.json" 2>/dev/null
    plain+=("$(tps "$TMP/plain.json")")
    mpirun -n 1 "$DG" tpcc run --target "sqlite:$TMP/sq.db" --vus 4 --duration 20s --results "$TMP/r.db" --json \
        --no-monitor >"$TMP/ranked.json" 2>/dev/null
    ranked+=("$(tps "$TMP/ranked.json")")
    printf '  round %d: TPS without mpirun %.1f, 1 rank under mpirun %.1f\n' "$round" "${plain[-1]}" "${ranked[-1]}"
done
median() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
p=$(median "${plain[@]}")
r=$(median "${ranked[@]}")
printf '  median TPS: without %.1f, under mpirun %.1f: ratio %.4f (aim >= 0.98)\n' "$p" "$r" "$(echo "$r / $p" | bc -l)"
