#!/usr/bin/env bash
# load.sh — tpcc load as a whole on every engine: the same seed gives the same content whatever
# the job count (tpcc check --hash), the hash tells a changed row, a load interrupted by Ctrl-C
# (SQLite: the one-writer pipe; MariaDB: the pool of connections) or by a lost connection
# (PostgreSQL) says which warehouses are complete, leaves no unit (ITEM, or one part of a
# warehouse: its districts, half its stock, its customers, its history or one district's
# orders) half loaded, a run on it is refused (exit 2, saying what is missing; --force runs it
# and is recorded), and --resume finishes it to the same content as a load never interrupted,
# on which a run is accepted; --resume's bad uses exit 2.
# PostgreSQL and MariaDB parts are left out with --no-pg / --no-my (DG_NO_PG, DG_NO_MY).
. "$(dirname "$0")/../lib.sh"

# Warehouses: 2 on SQLite, 1 on the servers. The interruption comes once STOP_AT units are
# marked (of 31 on SQLite, 16 on a server): some of every kind of part in, some still to load.
W=2
STOP_AT=10

# The parts' marks against the rows they stand for, as one line: stock rows, 50,000 per
# marked stock half; customer rows, 30,000 per marked customer part; districts with orders,
# marked order parts; all marked parts of warehouses. Units are 16 w + part (loadgen.h).
PARTS_SQL="SELECT (SELECT count(*) FROM stock),
  50000 * (SELECT count(*) FROM dbgauge_tpcc_load WHERE unit >= 16 AND unit % 16 IN (1, 2)),
  (SELECT count(*) FROM customer),
  30000 * (SELECT count(*) FROM dbgauge_tpcc_load WHERE unit >= 16 AND unit % 16 = 3),
  (SELECT count(DISTINCT o_w_id * 100 + o_d_id) FROM orders),
  (SELECT count(*) FROM dbgauge_tpcc_load WHERE unit >= 16 AND unit % 16 >= 5),
  (SELECT count(*) FROM dbgauge_tpcc_load WHERE unit >= 16)"

# hash_of TARGET: the content hash tpcc check --hash prints (check must pass too)
hash_of() {
    "$DG" tpcc check --target "$1" --hash 2>/dev/null | sed -n 's/^content hash: \([0-9a-f]*\) .*/\1/p'
}

# same_hash_over_jobs NAME TARGET: loads W warehouses with 1, 2 and 4 jobs, the same seed;
# every load passes check and all three hashes are equal. Leaves REF_HASH.
same_hash_over_jobs() {
    local name=$1 tgt=$2 hashes=() j
    for j in 1 2 4; do
        run_dg "$T_TMP/load.json" "$T_TMP/load.err" tpcc load --target "$tgt" --warehouses $W --jobs $j --drop --seed 42 --json
        check_exit "$name: load with $j job(s) exits 0" 0
        hashes+=("$(hash_of "$tgt")")
    done
    REF_HASH=${hashes[0]}
    if [[ -n $REF_HASH && ${hashes[1]} == "$REF_HASH" && ${hashes[2]} == "$REF_HASH" ]]; then
        ok "$name: 1, 2 and 4 jobs give the same content hash ($REF_HASH)"
    else
        not_ok "$name: 1, 2 and 4 jobs give the same content hash" "hashes: ${hashes[*]}"
    fi
}

# after_stop NAME TARGET COUNT-CMD...: the stopped load named what is complete and how to
# finish, no unit is half loaded (the rows are exactly those of the marked parts), then
# --resume gives REF_HASH. COUNT-CMD: a command printing PARTS_SQL's row, space-separated.
after_stop() {
    local name=$1 tgt=$2
    shift 2
    check_exit "$name: the stopped load exits 1" 1
    expect_stderr "$name: says how many warehouses are complete" "stopped with [0-9]+ of $W warehouses complete"
    expect_stderr "$name: says how to finish" "finish it with: dbgauge tpcc load --target .* --resume"
    local counts stock stock_marked cust cust_marked districts orders_marked parts
    counts=$("$@")
    read -r stock stock_marked cust cust_marked districts orders_marked parts <<<"$counts"
    check "$name: no stock half loaded ($stock rows, $stock_marked marked)" test -n "$stock" -a "$stock" = "$stock_marked"
    check "$name: no customers half loaded ($cust rows, $cust_marked marked)" test -n "$cust" -a "$cust" = "$cust_marked"
    check "$name: no district's orders half loaded ($districts with orders, $orders_marked marked)" \
        test -n "$districts" -a "$districts" = "$orders_marked"
    check "$name: the load stopped before the end ($parts of $((15 * W)) parts)" test "${parts:-999}" -lt $((15 * W))
    # a run on it is refused, naming what is missing and how to finish (or to run anyway)
    run_dg "$T_TMP/$name-partial.out" "$T_TMP/$name-partial.err" tpcc run --target "$tgt" --duration 1s --results "$T_TMP/partial.db"
    check "$name: a run on the stopped load is refused before its window (exit 2)" test "$RC/$(grep -c "TPC-C on" "$T_TMP/$name-partial.err")" = 2/0
    check "$name: ... saying what it lacks and the --resume that finishes it" grep -Eq \
        "did not finish \([0-9]+ of $W warehouses loaded[^)]*\): finish it with 'dbgauge tpcc load --target .* --resume', or run on it as it is with --force" "$T_TMP/$name-partial.err"
    if [[ $name == sqlite ]]; then # --force, on a copy (a run changes rows: the resumed hash below must not see it)
        cp "${tgt#sqlite:}" "$T_TMP/forced.db"
        run_dg "$T_TMP/forced.json" "$T_TMP/forced.err" tpcc run --target "sqlite:$T_TMP/forced.db" --force --duration 1s \
            --results "$T_TMP/partial.db" --json
        check "$name: --force runs on it, and the run records it" test "$(grep -c "TPC-C on" "$T_TMP/forced.err")/$(json_get "$T_TMP/forced.json" options.force 2>/dev/null)" = 1/True
    fi
    expect_exit "$name: --resume exits 0" 0 tpcc load --target "$tgt" --resume --jobs 2
    expect_stderr "$name: --resume says it finishes the interrupted load" "finishing the interrupted load"
    local h
    h=$(hash_of "$tgt")
    if [[ -n $h && $h == "$REF_HASH" ]]; then ok "$name: resumed content = uninterrupted content"; else
        not_ok "$name: resumed content = uninterrupted content" "$h against $REF_HASH"
    fi
    expect_exit "$name: a run on the finished load is accepted" 0 tpcc run --target "$tgt" --duration 1s --results "$T_TMP/partial.db"
}

# wait_for_mark COUNT-CMD...: waits up to 60 s for the command to print a count >= STOP_AT
# (units' marks: the load is under way, with that much committed). A Ctrl-C sent earlier,
# before the load blocks signals, would be lost: a background job ignores SIGINT.
wait_for_mark() {
    local i
    for ((i = 0; i < 600; i++)); do
        [[ $("$@" 2>/dev/null) -ge $STOP_AT ]] && return 0
        sleep 0.1
    done
    return 1
}

# ctrl_c_when_marked NAME MARKS-FN TPCC-LOAD-ARGS...: starts the load in the background, sends
# Ctrl-C once MARKS-FN counts a mark, waits; RC is the load's exit status, and the stop must
# name the signal.
ctrl_c_when_marked() {
    local name=$1 marks=$2 pid
    shift 2
    "$DG" tpcc load "$@" --seed 42 --progress=none >"$T_TMP/last.out" 2>"$T_TMP/last.err" &
    pid=$!
    if wait_for_mark "$marks"; then kill -INT $pid; else not_ok "$name: $STOP_AT units were marked within 60 s" ""; fi
    wait $pid
    RC=$? T_DG_ERR=$T_TMP/last.err
    expect_stderr "$name: Ctrl-C is named" "interrupted \(SIGINT\)"
}

# ---- SQLite ------------------------------------------------------------------------------------
DB=$T_TMP/load.db
SQ=sqlite:$DB
same_hash_over_jobs sqlite "$SQ"
check "sqlite: the load records its settings" grep -Eq '"journal_mode":\s*"truncate"' "$T_TMP/load.json"
check "sqlite: the connection is back in WAL mode after the load" \
    test "$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("PRAGMA journal_mode").fetchone()[0])' "$DB")" = wal

# The load's statistics are sampled (analysis_limit): TPC-C's statements must get the same
# plans as after a full ANALYZE.
"$DG" tpcc sql sqlite >"$T_TMP/tpcc.sql"
python3 - "$DB" "$T_TMP/tpcc.sql" <<'EOF' | relay
import sqlite3, sys
part = open(sys.argv[2]).read().split("-- SQL mode statements")[1].split("-- no procedures")[0]
stmts = [s.strip() for s in part.split(";\n") if s.strip() and not s.strip().startswith("--")]
c = sqlite3.connect(sys.argv[1])
def plans():
    return [[r[3] for r in c.execute("EXPLAIN QUERY PLAN " + s, [None] * s.count("?"))] for s in stmts]
sampled = plans()
c.execute("ANALYZE"); c.commit()
full = plans()
diff = [s[:60] for s, a, b in zip(stmts, sampled, full) if a != b]
if len(stmts) > 20 and not diff:
    print("ok - sqlite: sampled statistics give the %d statements the plans a full ANALYZE gives" % len(stmts))
else:
    print("not ok - sqlite: sampled statistics change plans: %d statements, differ: %s" % (len(stmts), diff))
EOF

# The hash is a checker: one changed value and one missing row each change it.
python3 - "$DB" <<'EOF'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("UPDATE stock SET s_quantity = s_quantity + 1 WHERE s_w_id = 2 AND s_i_id = 77"); c.commit()
EOF
h=$(hash_of "$SQ")
check "sqlite: one changed value changes the hash" test -n "$h" -a "$h" != "$REF_HASH"
python3 - "$DB" <<'EOF'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("UPDATE stock SET s_quantity = s_quantity - 1 WHERE s_w_id = 2 AND s_i_id = 77")
c.execute("DELETE FROM history WHERE h_c_w_id = 1 AND h_c_d_id = 3 AND h_c_id = 5"); c.commit()
EOF
h2=$(hash_of "$SQ")
check "sqlite: one missing row changes the hash" test -n "$h2" -a "$h2" != "$REF_HASH" -a "$h2" != "$h"

sq_marks() { python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1], timeout=10).execute("SELECT count(*) FROM dbgauge_tpcc_load WHERE unit >= 1").fetchone()[0])' "$DB"; }
sq_counts() {
    python3 -c 'import sqlite3,sys; print(*sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone())' "$DB" "$PARTS_SQL"
}
rm -f "$DB"*
ctrl_c_when_marked sqlite sq_marks --target "$SQ" --warehouses $W
after_stop sqlite "$SQ" sq_counts

expect_exit "sqlite: --resume of a complete load exits 0" 0 tpcc load --target "$SQ" --resume
expect_stderr "sqlite: --resume of a complete load says so" "complete already"
expect_exit "sqlite: --resume with other --warehouses exits 2" 2 tpcc load --target "$SQ" --resume --warehouses 3
expect_stderr "sqlite: ... naming both counts" "was of $W warehouses, not 3"
expect_exit "sqlite: --resume with another --seed exits 2" 2 tpcc load --target "$SQ" --resume --seed 7
expect_exit "sqlite: --resume --drop exits 2" 2 tpcc load --target "$SQ" --resume --drop
expect_stderr "sqlite: ... saying they contradict" "pick one"
python3 -c 'import sqlite3,sys; sqlite3.connect(sys.argv[1]).execute("CREATE TABLE t (x)")' "$T_TMP/other.db"
expect_exit "sqlite: --resume where dbgauge never loaded exits 2" 2 tpcc load --target "sqlite:$T_TMP/other.db" --resume
expect_stderr "sqlite: ... naming the missing table" "dbgauge_tpcc_load"
expect_exit "sqlite: a load over existing tables exits 2" 2 tpcc load --target "$SQ" --warehouses 1
expect_stderr "sqlite: ... offering --drop and --resume" "--drop to rebuild, or --resume"
# A plan written by a dbgauge whose units were whole warehouses (unit -1) cannot be resumed.
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("UPDATE dbgauge_tpcc_load SET unit = -1 WHERE unit = -64"); c.commit()' "$DB"
expect_exit "sqlite: --resume of a whole-warehouse plan exits 2" 2 tpcc load --target "$SQ" --resume
expect_stderr "sqlite: ... saying to load again" "earlier dbgauge, which loaded whole warehouses; load again with --drop"

# ---- PostgreSQL: a lost connection ----------------------------------------------------------
if [[ -z ${DG_NO_PG:-} ]]; then
    need_server DG_PG_URL pgsql "no PostgreSQL server"
    W=1 STOP_AT=10 # cut in the server the moment 10 of its 16 units are marked: some of each kind in
    export PGPASSWORD=$DG_PG_PASSWORD
    PG=$DG_PG_URL
    PSQL=(psql -X -q -At)
    same_hash_over_jobs pgsql "$PG"
    check "pgsql: the load records its settings" grep -q '"synchronous_commit"' "$T_TMP/load.json"
    pg_counts() { "${PSQL[@]}" "$PG" -F' ' -c "$PARTS_SQL"; }
    "${PSQL[@]}" "$PG" -c "DROP TABLE IF EXISTS dbgauge_tpcc_load" # so only this load's marks count
    "$DG" tpcc load --target "$PG" --warehouses $W --jobs 2 --drop --seed 42 --progress=none >"$T_TMP/last.out" 2>"$T_TMP/last.err" &
    pid=$!
    # Once STOP_AT units are marked, the load's connections are cut. Watched and cut inside the
    # server, as the superuser in the load's database: a poll from here and a kill after it
    # leave the load time to finish in between on a busy machine (CI: all 15 parts done). The
    # lock on the marks table stops any further unit from committing (each marks itself in its
    # own transaction) before the cut, so the cut always lands with the load part done.
    if "${PSQL[@]}" "${DG_PG_ADMIN_URL/\/\/\/postgres?/\/\/\/dbgauge?}" -v ON_ERROR_STOP=1 -c "DO \$\$
        DECLARE n bigint := 0; t0 timestamptz := clock_timestamp();
        BEGIN
            LOOP
                -- pg_class, not to_regclass: a catalog lookup inside one transaction
                -- would not see the table the load creates after it began
                IF EXISTS (SELECT 1 FROM pg_class WHERE relname = 'dbgauge_tpcc_load' AND relkind = 'r') THEN
                    EXECUTE 'SELECT count(*) FROM dbgauge_tpcc_load WHERE unit >= 0' INTO n;
                END IF;
                EXIT WHEN n >= $STOP_AT;
                IF clock_timestamp() - t0 > interval '60 s' THEN RAISE EXCEPTION 'only % units marked in 60 s', n; END IF;
                PERFORM pg_sleep(0.01);
            END LOOP;
            LOCK TABLE dbgauge_tpcc_load IN EXCLUSIVE MODE;
            PERFORM pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'dbgauge-load';
        END \$\$" >/dev/null 2>"$T_TMP/cut.err"; then :
    else not_ok "pgsql: $STOP_AT units were marked within 60 s, and the load cut" "$(cat "$T_TMP/cut.err")"; fi
    wait $pid
    RC=$? T_DG_ERR=$T_TMP/last.err
    expect_stderr "pgsql: the lost connection is named" "terminating connection|server closed|connection"
    after_stop pgsql "$PG" pg_counts
    check "pgsql: no password in what the load printed" bash -c "! grep -qF -- '$DG_PG_PASSWORD' '$T_TMP/last.err'"
fi

# ---- MariaDB: Ctrl-C while connections load -----------------------------------------------------
if [[ -z ${DG_NO_MY:-} ]]; then
    need_server DG_MY_URL mysql "no MariaDB server"
    W=1 STOP_AT=7
    export DG_MYSQL_PASSWORD=$DG_MY_PASSWORD
    MYT=$DG_MY_URL
    MY=(mariadb -h127.0.0.1 -P"$DG_MY_PORT" -uroot -N -B dbgauge)
    same_hash_over_jobs mysql "$MYT"
    my_marks() { "${MY[@]}" -e "SELECT count(*) FROM dbgauge_tpcc_load WHERE unit >= 0"; }
    my_counts() { "${MY[@]}" -e "$PARTS_SQL"; }
    "${MY[@]}" -e "DROP TABLE IF EXISTS dbgauge_tpcc_load"
    ctrl_c_when_marked mysql my_marks --target "$MYT" --warehouses $W --jobs 2 --drop
    after_stop mysql "$MYT" my_counts
fi

finish
