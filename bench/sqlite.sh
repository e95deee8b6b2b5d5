#!/usr/bin/env bash
# bench/sqlite.sh — prints SQLite figures for dbgauge: load speed (1 and 4 warehouses, 3 runs,
# median) against a physical-limit peer, and where a transaction's instructions go (callgrind).
# A benchmark: it prints figures and asserts nothing. Usage: bench/sqlite.sh [WORKDIR]
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d /tmp/dbgauge-bench.XXXXXX)}
mkdir -p "$work"
build="$here/build-bench"
RUNS=${RUNS:-3}
TXNS=${TXNS:-3000}

say() { printf '%s\n' "$*"; }
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
json_num() { sed -n "s/.*\"$1\":[[:space:]]*\([0-9.eE+-]*\).*/\1/p" | head -1; }

# ---- build ------------------------------------------------------------------------------------
if [ ! -d "$build" ]; then
    meson setup "$build" "$here" --buildtype=release -Dwerror=true >/dev/null
fi
ninja -C "$build" dbgauge >/dev/null
dbgauge="$build/dbgauge"
peer="$work/sqlite_peer"
cc -O2 -std=c17 -Wall -Wextra -Werror -D_GNU_SOURCE -o "$peer" "$here/bench/sqlite_peer.c" \
    $(pkg-config --cflags --libs sqlite3)

say "dbgauge bench: SQLite $(sqlite3 --version 2>/dev/null | cut -d' ' -f1 || echo '?'), $(nproc) cores, work dir $work"
say "$("$dbgauge" --version 2>/dev/null || echo dbgauge) at $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?')"
say ""

# ---- (a) load speed and (b) the peers --------------------------------------------------------
say "== (a) tpcc load into a fresh SQLite file: $RUNS runs each (rows/s and MB/s of the data phase)"
for w in 1 4; do
    rps=() mbs=() secs=()
    rows=0 bytes=0
    for i in $(seq 1 "$RUNS"); do
        db="$work/load-$w.db"
        rm -f "$db" "$db-wal" "$db-shm"
        out=$("$dbgauge" tpcc load --target "sqlite:$db" --warehouses "$w" --seed "$i" --json 2>/dev/null)
        r=$(json_num rows_per_s <<<"$out")
        m=$(json_num mb_per_s <<<"$out")
        s=$(json_num seconds <<<"$out")
        rows=$(json_num rows <<<"$out")
        bytes=$(json_num bytes <<<"$out")
        rps+=("$r") mbs+=("$m") secs+=("$s")
        printf '  W=%d run %d: %9.0f rows/s  %6.1f MB/s  (%s s total with indexes)\n' "$w" "$i" "$r" "$m" "$s"
    done
    med_r=$(printf '%s\n' "${rps[@]}" | median)
    med_m=$(printf '%s\n' "${mbs[@]}" | median)
    printf '  W=%d median: %9.0f rows/s  %6.1f MB/s  (%s rows, %s bytes of values)\n' "$w" "$med_r" "$med_m" "$rows" "$bytes"

    # (b) peer 1: one prepared INSERT in one transaction, same row count and value bytes
    prps=() pmbs=()
    for i in $(seq 1 "$RUNS"); do
        read -r pr pm ps < <("$peer" insert "$work/peer.db" "$rows" "$bytes")
        prps+=("$pr") pmbs+=("$pm")
    done
    pmed_r=$(printf '%s\n' "${prps[@]}" | median)
    pmed_m=$(printf '%s\n' "${pmbs[@]}" | median)
    printf '  W=%d peer (C, one prepared INSERT, one transaction): %9.0f rows/s  %6.1f MB/s\n' "$w" "$pmed_r" "$pmed_m"
    printf '  W=%d dbgauge / peer: %.2f (rows/s)  %.2f (MB/s)\n' "$w" \
        "$(echo "$med_r / $pmed_r" | bc -l)" "$(echo "$med_m / $pmed_m" | bc -l)"

    # (b) peer 2: the sqlite3 CLI importing the same rows as CSV
    if command -v sqlite3 >/dev/null; then
        "$peer" csv "$work/peer.csv" "$rows" "$bytes"
        csecs=()
        for i in $(seq 1 "$RUNS"); do
            rm -f "$work/cli.db"
            t0=$(date +%s.%N)
            sqlite3 "$work/cli.db" "PRAGMA journal_mode=wal;" "PRAGMA synchronous=OFF;" \
                "PRAGMA cache_size=-262144;" \
                "CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER, b REAL, s TEXT);" \
                ".mode csv" ".import $work/peer.csv t" >/dev/null
            t1=$(date +%s.%N)
            csecs+=("$(echo "$t1 - $t0" | bc -l)")
        done
        cmed=$(printf '%s\n' "${csecs[@]}" | median)
        crps=$(echo "$rows / $cmed" | bc -l)
        printf '  W=%d peer (sqlite3 CLI .import of a %s-byte CSV): %9.0f rows/s  %6.1f MB/s; dbgauge / CLI: %.2f\n' \
            "$w" "$(stat -c %s "$work/peer.csv")" "$crps" "$(echo "$bytes / $cmed / 1000000" | bc -l)" \
            "$(echo "$med_r / $crps" | bc -l)"
        rm -f "$work/peer.csv"
    fi
    say ""
done
rm -f "$work"/load-*.db* "$work"/peer.db* "$work"/cli.db*

# ---- (c) where a transaction's instructions go -------------------------------------------------
say "== (c) callgrind: dbgauge tpcc run --vus 1 --txns-per-vu $TXNS on a loaded 1-warehouse file"
if ! command -v valgrind >/dev/null; then
    apt-get install -y --no-install-recommends valgrind >/dev/null
fi
db="$work/run.db"
rm -f "$db" "$db-wal" "$db-shm"
"$dbgauge" tpcc load --target "sqlite:$db" --warehouses 1 --seed 1 >/dev/null 2>&1
cg="$work/callgrind.out"
rm -f "$cg"*
# Only the worker thread is collected (dg_worker_main: its connection, statements and the
# transaction loop), so start-up, the schema probe and the results store do not count.
valgrind --tool=callgrind --callgrind-out-file="$cg" --toggle-collect=dg_worker_main \
    "$dbgauge" tpcc run --target "sqlite:$db" --vus 1 --txns-per-vu "$TXNS" --seed 1 \
    --results "$work/results.db" >"$work/run.txt" 2>"$work/valgrind.txt"
ann="$work/annotate.txt"
callgrind_annotate --inclusive=no --threshold=100 "$cg" >"$ann" 2>/dev/null

# Function lines: "  1,234 (12.3%)  file:function [object]". Group Ir by the object's name.
awk -v txns="$TXNS" -v bin="$(basename "$dbgauge")" '
    /^ *[0-9,]+ .*\[.*\]$/ {
        n = $1; gsub(",", "", n);
        obj = $NF; gsub(/[\[\]]/, "", obj); sub(".*/", "", obj);
        if (obj == bin) g = "dbgauge-binary";
        else if (obj ~ /^libsqlite3/) g = "libsqlite3";
        else if (obj ~ /^libc[.-]/ || obj ~ /^libc\.so/) g = "libc";
        else if (obj ~ /^ld-linux/) g = "ld.so";
        else g = obj;
        by[g] += n; total += n;
    }
    END {
        if (total == 0) { print "  (no function lines in callgrind_annotate output)"; exit }
        printf "  instructions collected: %.0f, per transaction: %.0f\n", total, total / txns;
        for (g in by) printf "  %-22s %6.2f%%  %12.0f Ir/txn\n", g, 100 * by[g] / total, by[g] / txns | "sort -k2 -g -r";
        close("sort -k2 -g -r");
        printf "  dbgauge own code: %.2f%% of instructions per transaction (%.0f of %.0f Ir)\n",
            100 * by["dbgauge-binary"] / total, by["dbgauge-binary"] / txns, total / txns;
    }' "$ann"

say ""
say "  top functions of the dbgauge binary (exclusive Ir):"
grep -E "\[.*/$(basename "$dbgauge")\]$" "$ann" | head -15 | sed 's/^/    /'
say ""
say "  libc functions and who calls them (callgrind_annotate --tree=caller):"
callgrind_annotate --inclusive=no --tree=caller --threshold=100 "$cg" >"$work/tree.txt" 2>/dev/null
awk '/^ *[0-9,]+ .*< / { c[++n] = $0; next }
     /^ *[0-9,]+ .*\* .*libc\.so/ { shown++; if (shown <= 6) { print "    " $0; best = ""; bn = 0;
         for (i = 1; i <= n; i++) { v = c[i]; sub(/^ */, "", v); split(v, f, " "); x = f[1]; gsub(",", "", x);
             if (x + 0 > bn) { bn = x + 0; best = c[i] } }
         if (best != "") print "      top caller: " best } n = 0; next }
     /^ *$/ { n = 0 }' "$work/tree.txt" | sed 's|/usr/lib/x86_64-linux-gnu/||; s|  *| |g' | cut -c1-160
say ""
say "  the run under callgrind (service time, slowed down by valgrind):"
grep -Ei "^ *result" "$work/run.txt" "$work/valgrind.txt" 2>/dev/null | head -2 | sed 's/^[^:]*:/    /'
say ""
say "  files kept in $work: callgrind.out (callgrind_annotate $cg), annotate.txt"
