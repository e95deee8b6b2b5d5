#!/usr/bin/env bash
# bench/live.sh — what watching a run costs: dbgauge's own CPU per transaction (client_cpu_s
# over the measured transactions, from the stored run) without --live (A), with --live and a
# scraper reading /metrics every second (B: a Prometheus), and with --live and a browser's
# worth of readers (C: /api/run and the page's /section every second, which makes the reporter
# build the run's record and charts each second). Runs A, B, C in turn RUNS times on each
# target and prints the medians and the ratios B/A and C/A (the aim: B/A <= 1.01). The
# targets: null: (no database: dbgauge's own work only, the worst case for a fixed cost per
# second) and SQLite (1 warehouse). A benchmark: it prints figures and asserts nothing.
# Usage: bench/live.sh [WORKDIR]   (RUNS=3 SECS=15 by default). Each series also prints the
# CPU per second B and C add to A's. An open loop far below the machine's limit (--rate 2000)
# was tried for the fixed cost alone: its CPU per second varied by +-10 ms run to run, more
# than what it was to show.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
work=${1:-$(mktemp -d /tmp/dbgauge-bench.XXXXXX)}
mkdir -p "$work"
RUNS=${RUNS:-3}
SECS=${SECS:-15}
say() { printf '%s\n' "$*"; }
bench_build
dbgauge=$DG
say "dbgauge bench: --live's cost, $(nproc) cores, $SECS s windows, $RUNS runs of each, work dir $work"
say "$("$dbgauge" --version 2>/dev/null | head -n 1) at $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"

# reader URL PATH...: reads each PATH of URL every second until killed
reader() {
    local url=$1
    shift
    while :; do
        for p in "$@"; do curl -s -m 2 -o /dev/null "$url$p" || true; done
        sleep 1
    done
}

# one MODE TARGET ARGS...: one run; prints its microseconds of dbgauge CPU per measured
# transaction and per measured second
one() {
    local mode=$1 target=$2 res="$work/results.db" live=() rpid=""
    shift 2
    [[ $mode != A ]] && live=(--live 127.0.0.1:0)
    rm -f "$res"*
    "$dbgauge" tpcc run --target "$target" --vus 2 --warmup 2s --duration "${SECS}s" --no-audit-log \
        --results "$res" --progress none --json "$@" "${live[@]}" >"$work/run.json" 2>"$work/run.err" </dev/null &
    local pid=$!
    if [[ $mode != A ]]; then
        for _ in $(seq 1 50); do grep -q '^live: ' "$work/run.err" && break; sleep 0.1; done
        local url
        url=$(grep -o '^live: http://127.0.0.1:[0-9]*' "$work/run.err" | cut -d' ' -f2)
        if [[ $mode == B ]]; then reader "$url" /metrics & else reader "$url" /metrics /api/run /section & fi
        rpid=$!
    fi
    wait "$pid" || { say "run failed: $(tail -n 2 "$work/run.err")"; exit 1; }
    [[ -n $rpid ]] && kill "$rpid" 2>/dev/null && wait "$rpid" 2>/dev/null || true
    python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
n = sum(t["committed"] + t["rollbacks"] + t["errors"] for t in d["transactions"].values())
print("%.4f %.1f" % (d["client_cpu_seconds"] / n * 1e6, d["client_cpu_seconds"] / d["measured_seconds"] * 1e6))' "$work/run.json"
}

# series NAME TARGET ARGS...: RUNS rounds of A, B and C (their order turned each round, so
# that none always runs first on a warm cache), then the medians and the ratios
series() {
    local name=$1 target=$2
    shift 2
    local a=() b=() c=() as=() bs=() cs=() v s
    for i in $(seq 1 "$RUNS"); do
        for m in $(case $((i % 3)) in 1) echo A B C ;; 2) echo B C A ;; 0) echo C A B ;; esac); do
            read -r v s < <(one "$m" "$target" "$@")
            case $m in A) a+=("$v") as+=("$s") ;; B) b+=("$v") bs+=("$s") ;; C) c+=("$v") cs+=("$s") ;; esac
        done
        say "  $name round $i: A ${a[-1]}  B ${b[-1]}  C ${c[-1]} us of dbgauge CPU per transaction"
    done
    local ma mb mc sa sb sc
    ma=$(printf '%s\n' "${a[@]}" | median) mb=$(printf '%s\n' "${b[@]}" | median) mc=$(printf '%s\n' "${c[@]}" | median)
    sa=$(printf '%s\n' "${as[@]}" | median) sb=$(printf '%s\n' "${bs[@]}" | median) sc=$(printf '%s\n' "${cs[@]}" | median)
    say "$name: median us/txn A (no --live) $ma, B (/metrics each s) $mb, C (page and /api/run each s) $mc"
    awk -v a="$ma" -v b="$mb" -v c="$mc" -v sa="$sa" -v sb="$sb" -v sc="$sc" -v t="$name" 'BEGIN {
        printf "%s: ratio B/A %.3f  C/A %.3f  (aim: B/A <= 1.01); CPU per second A %.0f us, B %+.0f us, C %+.0f us\n",
               t, b / a, c / a, sa, sb - sa, sc - sa }'
}

# The cost per transaction flat out: null: (dbgauge's own work only) and SQLite.
series "null flat out" null: --warehouses 1
"$dbgauge" tpcc load --target "sqlite:$work/tpcc.db" --warehouses 1 --progress none >/dev/null 2>&1
series "sqlite flat out" "sqlite:$work/tpcc.db"
