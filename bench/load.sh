#!/usr/bin/env bash
# load.sh — how fast `dbgauge tpcc load` fills each engine, beside a peer on the same machine in
# the same script: rows/s and MB/s (of the values) at W=1 and W=4 (and W=100 with LOAD_W100=1:
# about 10 GB per engine and minutes), the index phase's share of the time, and the ratio
# dbgauge/peer. Peers: SQLite, bench/sqlite_peer.c `insert` (one prepared INSERT in one
# transaction, the same row count and bytes); PostgreSQL, `pgbench -i` at the scale with about
# as many rows; MariaDB, `mariadb-import --local` of the very rows dbgauge loaded (exported as
# tab-separated files) into a fresh database with the same schema.
# A benchmark: prints figures, asserts nothing.
#   bench/load.sh                (RUNS=3 LOAD_JOBS=2 LOAD_ENGINES="sqlite pgsql mysql" LOAD_W100=)
# With DG_PG_URL / DG_MY_URL (and DG_PG_PASSWORD, DG_MY_PASSWORD, DG_MY_PORT, DG_PG_PORT) set it
# uses those servers; else it starts its own (tests/servers.sh) and stops them on any exit.
set -uo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
RUNS=${RUNS:-3}
JOBS=${LOAD_JOBS:-2}
ENGINES=${LOAD_ENGINES:-sqlite pgsql mysql}
WS="1 4"
[[ ${LOAD_W100:-} == 1 ]] && WS="1 4 100"
PG_BIN=${DG_PG_BIN:-/usr/lib/postgresql/15/bin}
PGBENCH=$PG_BIN/pgbench
[[ -x $PGBENCH ]] || PGBENCH=$(command -v pgbench || true)

# LOAD_MEM_CAP=2G: this script, the servers it starts and dbgauge run in a memory cgroup of
# that size (page cache included), so W=100 (about 10 GB) cannot sit in memory.
if [[ -n ${LOAD_MEM_CAP:-} ]]; then
    cg=dbgauge-bench-$$
    if [[ -d /sys/fs/cgroup/memory ]]; then # cgroup v1
        mkdir -p "/sys/fs/cgroup/memory/$cg" && echo "$LOAD_MEM_CAP" >"/sys/fs/cgroup/memory/$cg/memory.limit_in_bytes" &&
            echo $$ >"/sys/fs/cgroup/memory/$cg/cgroup.procs" || { echo "cannot make a memory cgroup" >&2; exit 2; }
    elif [[ -f /sys/fs/cgroup/cgroup.controllers ]]; then # v2
        mkdir -p "/sys/fs/cgroup/$cg" && echo "$LOAD_MEM_CAP" >"/sys/fs/cgroup/$cg/memory.max" &&
            echo $$ >"/sys/fs/cgroup/$cg/cgroup.procs" || { echo "cannot make a memory cgroup" >&2; exit 2; }
    else
        echo "no cgroup memory controller here" >&2
        exit 2
    fi
    echo "# memory cap: $LOAD_MEM_CAP (cgroup $cg, page cache included)"
fi
bench_build
need=()
[[ $ENGINES == *pgsql* && -z ${DG_PG_URL:-} ]] && need+=(pg)
[[ $ENGINES == *mysql* && -z ${DG_MY_URL:-} ]] && need+=(mariadb)
if ((${#need[@]})); then
    bench_server "${need[@]}"
else
    TMP=$(mktemp -d /tmp/dg-bench.XXXXXX)
    trap 'rm -rf "$TMP"' EXIT
    trap 'exit 130' INT TERM
fi
export PGPASSWORD=${DG_PG_PASSWORD:-} DG_MYSQL_PASSWORD=${DG_MY_PASSWORD:-}

echo "# host: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); $("$DG" --version 2>/dev/null | head -n 1)"
echo "# $RUNS runs per figure (median), --jobs $JOBS, W in: $WS"

# load URL W: one `tpcc load --drop`; prints "rows bytes seconds data_seconds index_seconds
# max_rss_kb settings" (max_rss_kb: dbgauge's own peak memory, an embedded engine's included)
load() {
    /usr/bin/time -f %M -o "$TMP/rss" "$DG" tpcc load --target "$1" --warehouses "$2" --jobs "$JOBS" --drop --seed 1 \
        --json >"$TMP/load.json" 2>"$TMP/load.err" || { echo "load failed: $(tail -n 1 "$TMP/load.err")" >&2; return 1; }
    python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); s=d.get("load_settings") or {}
print(d["rows"], d["bytes"], d["seconds"], d["data_seconds"], d["index_seconds"], open(sys.argv[2]).read().split()[-1],
      ",".join("%s=%s" % kv for kv in s.items()) or "-")' "$TMP/load.json" "$TMP/rss"
}

# loads URL W: RUNS loads; sets ROWS BYTES SECS (median total) IDX_SHARE (median) SETTINGS and
# prints a line
loads() {
    local url=$1 w=$2 i out secs=() shares=() data=() rss=0 r
    for i in $(seq 1 "$RUNS"); do
        out=$(load "$url" "$w") || return 1
        read -r ROWS BYTES s d x r SETTINGS <<<"$out"
        secs+=("$s") data+=("$d") shares+=("$(echo "$x / $s" | bc -l)")
        ((r > rss)) && rss=$r
    done
    SECS=$(printf '%s\n' "${secs[@]}" | median)
    DATA=$(printf '%s\n' "${data[@]}" | median)
    IDX_SHARE=$(printf '%s\n' "${shares[@]}" | median)
    printf '  dbgauge W=%-3d %9d rows %8.1f MB  %7.2f s  %9.0f rows/s  %6.1f MB/s  index phase %2.0f%% of the time\n' \
        "$w" "$ROWS" "$(echo "$BYTES / 1000000" | bc -l)" "$SECS" \
        "$(echo "$ROWS / $SECS" | bc -l)" "$(echo "$BYTES / $SECS / 1000000" | bc -l)" "$(echo "100 * $IDX_SHARE" | bc -l)"
    printf '                data phase %.2f s: %9.0f rows/s  %6.1f MB/s; dbgauge peak memory %.0f MB\n' "$DATA" \
        "$(echo "$ROWS / $DATA" | bc -l)" "$(echo "$BYTES / $DATA / 1000000" | bc -l)" "$(echo "$rss / 1024" | bc -l)"
    echo "               load settings: $SETTINGS"
}

# ratio PEER-ROWS/S: dbgauge's whole load (keys and indexes in) and its data phase against it
ratio() {
    printf '  dbgauge / peer (rows/s): whole load %.2f, data phase %.2f\n' "$(echo "($ROWS / $SECS) / $1" | bc -l)" \
        "$(echo "($ROWS / $DATA) / $1" | bc -l)"
}

# ---- SQLite -------------------------------------------------------------------------------
if [[ $ENGINES == *sqlite* ]]; then
    echo
    echo "== SQLite ($(sqlite3 --version 2>/dev/null | cut -d' ' -f1 || echo '?')): peer bench/sqlite_peer.c insert"
    peer=$TMP/sqlite_peer
    cc -O2 -std=c17 -Wall -Wextra -Werror -D_GNU_SOURCE -o "$peer" "$ROOT/bench/sqlite_peer.c" \
        $(pkg-config --cflags --libs sqlite3) || exit 1
    for w in $WS; do
        db=$TMP/load-$w.db
        rm -f "$db"*
        loads "sqlite:$db" "$w" || continue
        rm -f "$db"*
        prps=()
        for i in $(seq 1 "$RUNS"); do
            rm -f "$TMP/peer.db"*
            read -r pr _ _ < <("$peer" insert "$TMP/peer.db" "$ROWS" "$BYTES")
            prps+=("$pr")
        done
        rm -f "$TMP/peer.db"*
        pr=$(printf '%s\n' "${prps[@]}" | median)
        printf '  peer    W=%-3d %9d rows (one prepared INSERT, one transaction)  %9.0f rows/s  %6.1f MB/s\n' "$w" "$ROWS" "$pr" \
            "$(echo "$pr * $BYTES / $ROWS / 1000000" | bc -l)"
        ratio "$pr"
    done
fi

# ---- PostgreSQL ---------------------------------------------------------------------------
if [[ $ENGINES == *pgsql* ]]; then
    echo
    echo "== PostgreSQL ($(psql -X -At "$DG_PG_URL" -c 'SHOW server_version' 2>/dev/null)): peer pgbench -i"
    echo "#  server: $(psql -X -At "$DG_PG_URL" -c "SELECT string_agg(name || '=' || setting, ' ') FROM pg_settings WHERE name IN ('shared_buffers','max_wal_size','wal_level','synchronous_commit')")"
    hp=${DG_PG_URL#*@}
    hp=${hp%%/*}
    port=${hp##*:}
    for w in $WS; do
        loads "$DG_PG_URL" "$w" || continue
        [[ -n $PGBENCH ]] || { echo "  pgbench not found: no peer"; continue; }
        scale=$(( (ROWS + 50000) / 100000 ))
        ((scale < 1)) && scale=1
        psecs=()
        for i in $(seq 1 "$RUNS"); do
            t0=$(date +%s.%N)
            "$PGBENCH" -h 127.0.0.1 -p "$port" -U dbgauge -i -q -s "$scale" dbgauge >"$TMP/pgbi.out" 2>&1 ||
                { echo "  pgbench -i failed: $(tail -n 1 "$TMP/pgbi.out")"; break; }
            t1=$(date +%s.%N)
            psecs+=("$(echo "$t1 - $t0" | bc -l)")
        done
        "$PGBENCH" -h 127.0.0.1 -p "$port" -U dbgauge -i -I d dbgauge >/dev/null 2>&1 # drop its tables
        ((${#psecs[@]})) || continue
        ps=$(printf '%s\n' "${psecs[@]}" | median)
        pr=$(echo "100000 * $scale / $ps" | bc -l)
        printf '  pgbench -i -s %-4d %9d accounts rows  %7.2f s  %9.0f rows/s (with its vacuum and keys)\n' "$scale" \
            $((100000 * scale)) "$ps" "$pr"
        ratio "$pr"
    done
fi

# ---- MariaDB ------------------------------------------------------------------------------
if [[ $ENGINES == *mysql* ]]; then
    MY=(mariadb -h127.0.0.1 -P"$DG_MY_PORT" -uroot)
    echo
    echo "== MariaDB ($("${MY[@]}" -N -B -e 'SELECT VERSION()' 2>/dev/null)): peer mariadb-import --local of the same rows"
    echo "#  server: $("${MY[@]}" -N -B -e "SELECT CONCAT_WS(' ', CONCAT('innodb_buffer_pool_size=', @@innodb_buffer_pool_size), CONCAT('innodb_log_file_size=', @@innodb_log_file_size), CONCAT('innodb_flush_log_at_trx_commit=', @@innodb_flush_log_at_trx_commit))")"
    db=${DG_MY_URL##*/}
    db=${db%%\?*}
    tables="warehouse district customer history new_order orders order_line item stock"
    exp=$TMP/export
    for w in $WS; do
        loads "$DG_MY_URL" "$w" || continue
        # the loaded rows as tab-separated files named after their tables, in LOAD DATA's
        # escapes (the client's --batch output, its NULL written \N; the server's secure_file_priv
        # may forbid SELECT ... INTO OUTFILE)
        rm -rf "$exp"
        mkdir -p "$exp"
        for t in $tables; do
            "${MY[@]}" -N -B "$db" -e "SELECT * FROM $t" |
                awk -F'\t' -v OFS='\t' '{ for (i = 1; i <= NF; i++) if ($i == "NULL") $i = "\\N"; print }' \
                    >"$exp/$t.txt" || { echo "  export of $t failed"; continue 2; }
        done
        isecs=()
        for i in $(seq 1 "$RUNS"); do
            "${MY[@]}" -e "DROP DATABASE IF EXISTS dg_peer; CREATE DATABASE dg_peer"
            mariadb-dump -h127.0.0.1 -P"$DG_MY_PORT" -uroot --no-data "$db" $tables | "${MY[@]}" dg_peer
            t0=$(date +%s.%N)
            mariadb-import -h127.0.0.1 -P"$DG_MY_PORT" -uroot --local --use-threads="$JOBS" dg_peer "$exp"/*.txt \
                >"$TMP/imp.out" 2>&1 || { echo "  mariadb-import failed: $(tail -n 1 "$TMP/imp.out")"; break; }
            t1=$(date +%s.%N)
            isecs+=("$(echo "$t1 - $t0" | bc -l)")
        done
        "${MY[@]}" -e "DROP DATABASE IF EXISTS dg_peer"
        rm -rf "$exp"
        ((${#isecs[@]})) || continue
        is=$(printf '%s\n' "${isecs[@]}" | median)
        ir=$(echo "$ROWS / $is" | bc -l)
        printf '  mariadb-import --local --use-threads=%d %9d rows  %7.2f s  %9.0f rows/s  %6.1f MB/s\n' "$JOBS" "$ROWS" \
            "$is" "$ir" "$(echo "$BYTES / $is / 1000000" | bc -l)"
        ratio "$ir"
    done
fi
