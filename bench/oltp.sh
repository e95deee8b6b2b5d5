#!/usr/bin/env bash
# oltp.sh — dbgauge oltp beside sysbench 1.0.20 on the same throwaway PostgreSQL and MariaDB:
# prepare time of 4 tables x 100,000 rows for each tool, then read_write and point_select at
# 1, 2 and 4 threads, run in turn on the same tables: TPS of both and their ratio, client CPU per
# transaction of both (whole process, /usr/bin/time; and its user part) and its ratio, and dbgauge
# again with --pipeline on. Prints figures; asserts nothing.
#   bench/oltp.sh [pg|mariadb|all]   (BENCH_SECONDS=20 BENCH_VUS="1 2 4" BENCH_TESTS="read_write point_select"
#                                     BENCH_TABLES=4 BENCH_ROWS=100000)
# Both tools draw ids uniformly (sysbench --rand-type=uniform; its default is "special").
# Stops each server it started on any exit; never touches another server.
set -uo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
SECS=${BENCH_SECONDS:-20}
TESTS=${BENCH_TESTS:-read_write point_select}
TABLES=${BENCH_TABLES:-4}
ROWS=${BENCH_ROWS:-100000}
WHICH=${1:-all}

command -v sysbench >/dev/null || { echo "bench: sysbench not found (apt-get install sysbench)" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "bench: /usr/bin/time not found (apt-get install time)" >&2; exit 1; }

# dg_figures JSON TIMEFILE TEST: "TPS CPU_MS_PER_TXN WINDOW_CPU_MS_PER_TXN RETRIES ERRORS USER_US_PER_TXN"
dg_figures() {
    python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); v=d["transactions"][sys.argv[3]]
u,s=map(float,open(sys.argv[2]).read().split()[-2:]); c=max(v["committed"],1)
print("%.1f %.4f %.4f %d %d %.1f" % (v["committed"]/d["measured_seconds"], 1000*(u+s)/c,
      1000*d["client_cpu_seconds"]/c, v["retries"], v["errors"], 1e6*u/c))' "$1" "$2" "$3"
}

# sb_figures OUT TIMEFILE: "TPS CPU_MS_PER_TXN IGNORED_ERRORS USER_US_PER_TXN" of a sysbench run
sb_figures() {
    python3 -c 'import re,sys
t=open(sys.argv[1]).read()
m=re.search(r"transactions:\s+(\d+)\s+\(([\d.]+) per sec", t); e=re.search(r"ignored errors:\s+(\d+)", t)
u,s=map(float,open(sys.argv[2]).read().split()[-2:]); n=max(int(m.group(1)),1)
print("%s %.4f %s %.1f" % (m.group(2), 1000*(u+s)/n, e.group(1) if e else "0", 1e6*u/n))' "$1" "$2"
}

# ratio A B: A/B with two decimals, "-" when either is missing
ratio() { awk -v a="${1:-}" -v b="${2:-}" 'BEGIN { if (a == "" || b == "" || b + 0 == 0) print "-"; else printf "%.2f", a / b }'; }

# timed LABEL CMD...: runs CMD, prints its wall time
timed() {
    local label=$1 t0 t1
    shift
    t0=$(date +%s.%N)
    if "$@" >"$TMP/prep.out" 2>&1; then
        t1=$(date +%s.%N)
        awk -v l="$label" -v a="$t0" -v b="$t1" -v r=$((TABLES * ROWS)) \
            'BEGIN { printf "%-44s %7.2f s  %9.0f rows/s\n", l, b - a, r / (b - a) }'
    else
        echo "$label: failed: $(tail -n 2 "$TMP/prep.out")"
        return 1
    fi
}

# dg_run TEST THREADS PIPELINE DGOPTS...: one dbgauge oltp run; its dg_figures, or nothing
dg_run() {
    local test=$1 n=$2 pipe=$3
    shift 3
    if /usr/bin/time -f '%U %S' -o "$TMP/dg.time" "$DG" oltp run "$@" --test "$test" --threads "$n" \
        --pipeline "$pipe" --duration "${SECS}s" --no-monitor --results "$RES" --json \
        --label "bench oltp $test $n pipeline $pipe" >"$TMP/dg.json" 2>"$TMP/dg.err"; then
        dg_figures "$TMP/dg.json" "$TMP/dg.time" "$test"
    else
        echo "dbgauge $test --threads $n --pipeline $pipe failed: $(tail -n 2 "$TMP/dg.err")" >&2
    fi
}

# bench_engine pg|mariadb: one server, both tools, every test and thread count.
bench_engine() {
    bench_server "$1"
    local url sb
    if [[ $1 == pg ]]; then
        url="postgres://dbgauge:$DG_PG_PASSWORD@127.0.0.1:$DG_PG_PORT/dbgauge"
        sb=(--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port="$DG_PG_PORT" --pgsql-user=dbgauge
            --pgsql-password="$DG_PG_PASSWORD" --pgsql-db=dbgauge)
        echo "# PostgreSQL $("${PG_BIN:-/usr/lib/postgresql/15/bin}/postgres" -V | awk '{print $3}') on 127.0.0.1:$DG_PG_PORT"
    else
        url="mysql://dbgauge:$DG_MY_PASSWORD@127.0.0.1:$DG_MY_PORT/dbgauge"
        sb=(--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$DG_MY_PORT" --mysql-user=dbgauge
            --mysql-password="$DG_MY_PASSWORD" --mysql-db=dbgauge)
        echo "# MariaDB $(mariadbd --version | awk '{print $3}') on 127.0.0.1:$DG_MY_PORT"
    fi
    sb+=(--tables="$TABLES" --table-size="$ROWS" --rand-type=uniform)
    local dgo=(--target "$url" --tables "$TABLES" --table-size "$ROWS")

    timed "dbgauge oltp prepare (--threads 2)" "$DG" oltp prepare "${dgo[@]}" --threads 2 --seed 1
    "$DG" oltp cleanup "${dgo[@]}" >/dev/null 2>&1
    timed "sysbench oltp_common prepare (--threads=2)" sysbench oltp_read_write "${sb[@]}" --threads=2 prepare ||
        return 1

    local test n dg dgp sbf
    for test in $TESTS; do
        printf '\n%-13s %3s %10s %10s %6s %11s %11s %6s %9s %9s %6s %14s | %10s %6s %11s %6s\n' "$test" thr "dg TPS" \
            "sb TPS" "dg/sb" "dg ms/txn" "sb ms/txn" "dg/sb" "dg usr us" "sb usr us" "dg/sb" "retry/err/ign" \
            "pipe TPS" "p/sb" "pipe ms/txn" "p/sb"
        for n in $VUS; do
            dg=$(dg_run "$test" "$n" off "${dgo[@]}")
            dgp=$(dg_run "$test" "$n" on "${dgo[@]}")
            sbf=""
            if /usr/bin/time -f '%U %S' -o "$TMP/sb.time" sysbench "oltp_$test" "${sb[@]}" --threads="$n" \
                --time="$SECS" run >"$TMP/sb.out" 2>&1; then
                sbf=$(sb_figures "$TMP/sb.out" "$TMP/sb.time")
            else
                echo "sysbench oltp_$test --threads=$n failed: $(tail -n 2 "$TMP/sb.out")"
            fi
            local dtps dcpu dwin dret derr dusr ptps pcpu _ stps scpu serr susr
            read -r dtps dcpu dwin dret derr dusr <<<"$dg"
            read -r ptps pcpu _ _ _ _ <<<"$dgp"
            read -r stps scpu serr susr <<<"$sbf"
            printf '%-13s %3d %10s %10s %6s %11s %11s %6s %9s %9s %6s %14s | %10s %6s %11s %6s\n' "" "$n" \
                "${dtps:--}" "${stps:--}" "$(ratio "${dtps:-}" "${stps:-}")" "${dcpu:--}" "${scpu:--}" \
                "$(ratio "${dcpu:-}" "${scpu:-}")" "${dusr:--}" "${susr:--}" "$(ratio "${dusr:-}" "${susr:-}")" \
                "${dret:--}/${derr:--}/${serr:--}" "${ptps:--}" "$(ratio "${ptps:-}" "${stps:-}")" "${pcpu:--}" \
                "$(ratio "${pcpu:-}" "${scpu:-}")"
        done
    done
    sysbench oltp_read_write "${sb[@]}" cleanup >/dev/null 2>&1
    echo
}

echo "# host: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); $(sysbench --version)"
echo "# $TABLES tables x $ROWS rows; $SECS s per run; threads: $VUS; tests: $TESTS"
echo "# ms/txn: client CPU (user + sys of the whole process) per committed transaction; usr us: its"
echo "# user part alone in microseconds (the tool's own code; sys is the kernel's per round trip);"
echo "# retry/err/ign: dbgauge retries and errors, sysbench ignored errors (its restarted events);"
echo "# pipe: dbgauge --pipeline on (a transaction's statements and COMMIT sent at once: one round"
echo "# trip on PostgreSQL; MariaDB's driver has no pipeline, so there they run in turn as off)"
[[ $WHICH == all || $WHICH == pg ]] && (bench_engine pg)
[[ $WHICH == all || $WHICH == mariadb ]] && (bench_engine mariadb)
exit 0
