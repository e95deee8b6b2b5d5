#!/usr/bin/env bash
# checkpoint.sh — what keeping a run as it goes costs: dbgauge's own CPU per transaction on a
# closed-loop TPC-C run on SQLite with checkpoints off (--checkpoint-every 0, the peer), at the
# default 10 s and at 1 s (ten times as many, to make the cost visible above the noise),
# alternated ROUNDS times; prints each setting's median client CPU per transaction and its
# ratio to the peer's, and the CPU its main thread (the checkpoints' writer) used. Prints figures only.
#   bench/checkpoint.sh [SECONDS] [ROUNDS]   (default 30 s windows, 3 rounds)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
SECS=${1:-30}
ROUNDS=${2:-3}
scripts/deps.sh bench
[[ -x build/dbgauge ]] || { meson setup build -Dbuildtype=release >/dev/null && ninja -C build >/dev/null; }
DG=$ROOT/build/dbgauge
TMP=$(mktemp -d /tmp/dg-bench-ckpt.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

echo "dbgauge bench: checkpoint, $(nproc) cores, $("$DG" --version), ${SECS}s windows x $ROUNDS rounds, at $(git rev-parse --short HEAD)"
"$DG" tpcc load --target "sqlite:$TMP/tpcc.db" --warehouses 2 >/dev/null 2>&1

# One run: client CPU ms per transaction, transactions per second, and the CPU (ms) of the
# main thread, the one that writes the checkpoints (it only waits otherwise), and of the whole
# process, both read from /proc one second before the window ends: their difference between
# settings is what the checkpoints cost, measured apart from the noise of SQLite's own work.
TICK_MS=$((1000 / $(getconf CLK_TCK)))
cpu_ms() { awk -v t="$TICK_MS" '{sub(/^.*\) /, ""); print ($12 + $13) * t}' "$1"; }
run() {
    local every=$1 out=$TMP/run.json
    "$DG" tpcc run --target "sqlite:$TMP/tpcc.db" --vus 2 --duration "${SECS}s" --checkpoint-every "$every" \
        --results "$TMP/r.db" --no-monitor --json >"$out" 2>"$TMP/run.err" &
    local pid=$! main proc
    sleep $((SECS - 1))
    main=$(cpu_ms "/proc/$pid/task/$pid/stat")
    proc=$(cpu_ms "/proc/$pid/stat")
    wait "$pid" || { echo "bench/checkpoint.sh: run failed:" >&2; tail -n 20 "$TMP/run.err" >&2; exit 1; }
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
n=sum(v["committed"]+v["rollbacks"]+v["errors"] for v in d["transactions"].values())
print("%.5f %.0f %s %s" % (d["client_cpu_seconds"] * 1e3 / n, n / d["measured_seconds"], sys.argv[2], sys.argv[3]))' "$out" "$main" "$proc"
}

for r in $(seq "$ROUNDS"); do
    for every in 0 10s 1s; do
        run "$every" >>"$TMP/every-$every"
    done
done
python3 - "$TMP" <<'PY'
import statistics, sys
d = sys.argv[1]
def med(every):
    rows = [tuple(map(float, l.split())) for l in open(f"{d}/every-{every}")]
    return [statistics.median(r[i] for r in rows) for i in range(4)]
peer, peer_tps, peer_main, peer_proc = med("0")
print(f"checkpoints off (peer)   client CPU {peer:.4f} ms/txn   {peer_tps:,.0f} txn/s   "
      f"main thread {peer_main:.0f} ms of {peer_proc:.0f} ms")
for every in ("10s", "1s"):
    cpu, tps, main, proc = med(every)
    print(f"checkpoint every {every:<4}    client CPU {cpu:.4f} ms/txn   {tps:,.0f} txn/s   "
          f"CPU ratio to peer {cpu / peer:.4f}   main thread {main:.0f} ms of {proc:.0f} ms: "
          f"checkpoints {(main - peer_main) / proc * 100:+.2f}% of the process's CPU")
PY
