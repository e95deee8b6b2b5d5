#!/usr/bin/env bash
# lib.sh — what the bench scripts that run TPC-C on a throwaway server share: starting it (and
# stopping it on any exit), the figures of a run's JSON, and the table of runs per mode and
# number of users. Sourced by bench/*.sh, never run; it asserts nothing.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DG=${DG_BIN:-$ROOT/build/dbgauge}
VUS=${BENCH_VUS:-1 2 4}
W=${BENCH_W:-4}
declare -A RUN_CPU RUN_TPS # mode.users -> client CPU ms per transaction, TPS

# bench_server SERVER...: servers of this script's own (tests/servers.sh: pg, mariadb, pgrep,
# galera), all stopped at exit; their env file sourced (DG_PG_*, DG_MY_*, DG_PGR_*, DG_GAL_*);
# TMP and RES (a results database) set. pgrep takes DG_PGR_STANDBYS and DG_PGR_SYNC from the
# environment; `tests/servers.sh sync pgrep on|off` switches it between runs.
bench_server() {
    [[ -x $DG ]] || { echo "bench: no $DG; build first (meson setup build && ninja -C build)" >&2; exit 1; }
    BENCH_SERVERS=("$@")
    TMP=$(mktemp -d /tmp/dg-bench.XXXXXX)
    export DG_SERVERS_ENV=$TMP/servers.env
    trap 'for s in "${BENCH_SERVERS[@]}"; do "$ROOT/tests/servers.sh" stop "$s" >/dev/null 2>&1; done; rm -rf "$TMP"' EXIT
    trap 'exit 130' INT TERM
    local s
    for s in "$@"; do
        "$ROOT/tests/servers.sh" start "$s" 2>>"$TMP/servers.log" || { cat "$TMP/servers.log" >&2; exit 1; }
    done
    # shellcheck disable=SC1090
    . "$DG_SERVERS_ENV"
    RES=$TMP/results.db
}

# figures FILE: "NOPM TPM TPS CPU_MS_PER_TXN RETRIES ERRORS" from a run's JSON
figures() {
    python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); t=d["transactions"].values()
n=sum(v["count"] for v in t); c=sum(v["committed"] for v in t); s=d["measured_seconds"]
print("%.0f %.0f %.1f %.4f %d %d" % (d["nopm"], d["tpm"], c/s, 1000*d["client_cpu_seconds"]/max(n,1),
      sum(v["retries"] for v in t), sum(v["errors"] for v in t)))' "$1"
}

# run_table URL SECONDS: one run per mode (procedures, sql) and number of users in $VUS, a
# table row each, kept in RUN_CPU and RUN_TPS; then tpcc check on the database.
run_table() {
    local url=$1 secs=$2 mode n nopm tpm tps cpu retries errors
    printf '\n%-11s %4s %10s %10s %9s %14s %8s %7s\n' mode users NOPM TPM TPS "cpu ms/txn" retries errors
    for mode in procedures sql; do
        for n in $VUS; do
            if ! "$DG" tpcc run --target "$url" --mode "$mode" --vus "$n" --duration "${secs}s" \
                --results "$RES" --json --label "bench $mode $n" >"$TMP/run.json" 2>"$TMP/run.err"; then
                echo "$mode $n: run failed: $(tail -n 2 "$TMP/run.err")"
                continue
            fi
            read -r nopm tpm tps cpu retries errors < <(figures "$TMP/run.json")
            RUN_CPU[$mode.$n]=$cpu
            RUN_TPS[$mode.$n]=$tps
            printf '%-11s %4d %10s %10s %9s %14s %8s %7s\n' "$mode" "$n" "$nopm" "$tpm" "$tps" "$cpu" "$retries" "$errors"
        done
    done
    "$DG" tpcc check --target "$url" >"$TMP/check.out" 2>&1 && echo "tpcc check after the runs: passed" ||
        echo "tpcc check after the runs: FAILED ($(tail -n 1 "$TMP/check.out"))"
}

# median: the median of the numbers on stdin, one per line
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

# bench_build: a release build of the benchmarks' own (build-bench, set up once, kept apart from
# the tests' build so a benchmark never measures a sanitized binary); DG set to its binary.
bench_build() {
    [[ -d $ROOT/build-bench ]] || meson setup "$ROOT/build-bench" "$ROOT" --buildtype=release -Dwerror=true >/dev/null
    ninja -C "$ROOT/build-bench" dbgauge >/dev/null
    DG=$ROOT/build-bench/dbgauge
}
