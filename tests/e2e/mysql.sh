#!/usr/bin/env bash
# mysql.sh — TPC-C end to end on a real MariaDB server: parallel load (both loader methods) and
# check, timed runs in both modes, lock waits (1205) and forced deadlocks (1213) retried and
# counted, query stress with exact row counts, a read-only server refused to a run that writes
# and read by a query stress, its refusals (made read-only during a run) counted as
# read_only, bad targets named without their password, and redacted stored runs. The caller
# (tests/run.sh) starts and stops the server; this only reads tests/out/servers.env and never
# skips silently.
. "$(dirname "$0")/../lib.sh"

need_server DG_MY_URL mysql "no MariaDB server"
export DG_MYSQL_PASSWORD=$DG_MY_PASSWORD
TGT=$DG_MY_URL
RES=$T_TMP/results.db
HOSTPORT=127.0.0.1:$DG_MY_PORT
MY=(mariadb -h127.0.0.1 -P"$DG_MY_PORT" -uroot -N -B)

check_passes() {
    run_dg "$T_TMP/check.json" "$T_TMP/check.err" tpcc check --target "$TGT" --json
    if [[ $RC == 0 && $(json_get "$T_TMP/check.json" pass 2>/dev/null) == True ]]; then ok "$1"; else
        not_ok "$1" "exit $RC; $(grep -h FAIL "$T_TMP/check.json" "$T_TMP/check.err" | head -3) $(head -c 300 "$T_TMP/check.err")"
    fi
}

no_secret() {
    if grep -qF -- "$3" "$2"; then not_ok "$1" "$(basename "$2") contains the password"; else ok "$1"; fi
}

# --- load 2 warehouses with 2 jobs, each loader method, then check ---------------------------
for method in insert infile; do
    run_dg "$T_TMP/load.json" "$T_TMP/load.err" tpcc load --target "$TGT?load=$method" --warehouses 2 --jobs 2 --drop --json
    check_exit "load ($method) 2 warehouses with 2 jobs exits 0" 0
    check "load ($method) used 2 jobs" test "$(json_get "$T_TMP/load.json" jobs 2>/dev/null)" = 2
    check "load ($method): stock holds 200,000 rows" test \
        "$("${MY[@]}" dbgauge -e 'SELECT COUNT(*) FROM stock' 2>&1)" = 200000
    check "load ($method): tables are InnoDB" test \
        "$("${MY[@]}" -e "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema='dbgauge' AND engine='InnoDB' AND table_name IN ('warehouse','district','customer','history','new_order','orders','order_line','item','stock')" 2>&1)" = 9
    check_passes "check after the $method load passes"
done
expect_exit "an unknown URL parameter exits 2" 2 tpcc load --target "$TGT?load=fast" --warehouses 1 --drop
expect_stderr "the unknown parameter is named" "unknown parameter 'load=fast'"

check "load installed the procedures" test \
    "$("${MY[@]}" -e "SELECT COUNT(*) FROM information_schema.routines WHERE routine_schema='dbgauge' AND routine_name LIKE 'dbgauge\_%'" 2>&1)" = 6

# --- timed runs in both modes --------------------------------------------------------------
for mode in sql procedures; do
    run_dg "$T_TMP/$mode.json" "$T_TMP/$mode.err" tpcc run --target "$TGT" --mode "$mode" --vus 4 \
        --duration 12s --results "$RES" --json --label "e2e $mode"
    check_exit "$mode run exits 0" 0
    num_cmp "$mode run: NOPM > 0" "$(json_get "$T_TMP/$mode.json" nopm 2>/dev/null || echo 0)" ">" 0
    check "$mode run: no errors" test "$(sum_field "$T_TMP/$mode.json" errors 2>/dev/null)" = 0
    num_cmp "$mode run: New-Order rolls back about 1% (some)" \
        "$(json_get "$T_TMP/$mode.json" transactions.new_order.rollbacks 2>/dev/null || echo 0)" ">" 0
    check "$mode run records its mode" test "$(json_get "$T_TMP/$mode.json" options.mode 2>/dev/null)" = "$mode"
    check "$mode run records the engine" test "$(json_get "$T_TMP/$mode.json" engine 2>/dev/null)" = mariadb
    check_passes "check after the $mode run passes"
    # The monitor reads InnoDB's buffer pool counters (server-wide) once a second.
    num_cmp "$mode run: the monitor counts InnoDB buffer pool hits" \
        "$(json_get "$T_TMP/$mode.json" monitor.cache_hits_per_s 2>/dev/null || echo 0)" ">" 0
    ratio=$(json_get "$T_TMP/$mode.json" monitor.cache_hit_ratio 2>/dev/null || echo 0)
    if awk -v r="$ratio" 'BEGIN { exit !(r > 0 && r <= 1) }'; then ok "$mode run: InnoDB hit ratio in (0, 1]: $ratio"; else
        not_ok "$mode run: InnoDB hit ratio in (0, 1]" "got $ratio"; fi
    # The server is on this machine: the monitor finds its process (pid file) and data directory.
    num_cmp "$mode run: the monitor reads mariadbd's resident memory" \
        "$(json_get "$T_TMP/$mode.json" monitor.server_rss_bytes 2>/dev/null || echo 0)" ">" 1000000
    num_cmp "$mode run: the monitor reads mariadbd's writes" \
        "$(json_get "$T_TMP/$mode.json" monitor.server_write_mb_s 2>/dev/null || echo 0)" ">" 0
done

# --- procedures missing: tpcc run installs them again ---------------------------------------
"${MY[@]}" dbgauge -e "DROP PROCEDURE dbgauge_payment; DROP FUNCTION dbgauge_procedures_version" >/dev/null 2>&1
run_dg "$T_TMP/again.json" "$T_TMP/again.err" tpcc run --target "$TGT" --mode procedures --vus 1 --txns-per-vu 50 --results "$RES" --json
check_exit "procedures run after the procedures were dropped exits 0" 0
check "the run installed them again" test \
    "$("${MY[@]}" -e "SELECT COUNT(*) FROM information_schema.routines WHERE routine_schema='dbgauge' AND routine_name LIKE 'dbgauge\_%'" 2>&1)" = 6

# --- lock conflicts in a run: another session holds district rows of warehouse 1 for 3 s while
# the server's lock wait timeout is 1 s; the waits that time out (1205) are retried with the
# same inputs and counted, never reported as errors (1213 deadlocks: the next block) -----------
if "${MY[@]}" -e "SET GLOBAL innodb_lock_wait_timeout = 1" >"$T_TMP/my.err" 2>&1; then
    "$DG" tpcc run --target "$TGT" --mode sql --vus 4 --duration 8s --results "$RES" --json \
        >"$T_TMP/lock.json" 2>"$T_TMP/lock.err" </dev/null &
    runpid=$!
    sleep 2
    "${MY[@]}" dbgauge -e "START TRANSACTION; SELECT COUNT(*) FROM district WHERE d_w_id = 1 FOR UPDATE; SELECT SLEEP(3); ROLLBACK" >/dev/null 2>&1
    wait "$runpid"
    rc=$?
    "${MY[@]}" -e "SET GLOBAL innodb_lock_wait_timeout = DEFAULT" >/dev/null 2>&1
    check "run with a held lock exits 0" test "$rc" = 0
    num_cmp "run with a held lock: lock wait timeouts retried (retries > 0)" "$(sum_field "$T_TMP/lock.json" retries 2>/dev/null || echo 0)" ">" 0
    num_cmp "run with a held lock: the retries are counted as lock timeouts (1205)" \
        "$(sum_field "$T_TMP/lock.json" retry_causes.lock_timeout 2>/dev/null || echo 0)" ">" 0
    check "run with a held lock: errors = 0" test "$(sum_field "$T_TMP/lock.json" errors 2>/dev/null)" = 0
    check_passes "check after the run with a held lock passes"
else
    not_ok "lock conflicts in a run" "cannot set the lock wait timeout: $(head -c 200 "$T_TMP/my.err")"
fi

# --- a real deadlock (1213) in a run, each mode: another session updates the 10 district rows
# of warehouse 1 (10 undo records: heavier than any Payment, so InnoDB picks the Payment as the
# victim), waits until a Payment that already holds warehouse 1's row waits on one of them,
# then updates warehouse 1 itself: a cycle. The Payment gets ER_LOCK_DEADLOCK, is retried with
# the same inputs and counted; the other session rolls back, so the data stay consistent. The
# lock wait timeout (default 50 s) is far longer than the run: no retry here can be a 1205.
# InnoDB refreshes information_schema.innodb_trx only when it has not been read for 100 ms, so
# the side session polls every 150 ms: faster polling keeps reading one stale snapshot. Even so
# a snapshot can still show the previous round's wait (a Payment since committed): so a waiter
# counts only when innodb_lock_waits names this round's own transaction as its blocker. A round
# misses when both users of warehouse 1 wait in New-Orders (about 1 in 4); the run lasts 14 s,
# so that all 10 rounds of about 1.2 s fit in it.
cat >"$T_TMP/deadlock.sql" <<'SQL'
DELIMITER //
BEGIN NOT ATOMIC
    DECLARE waiting INT DEFAULT 0;
    DECLARE round INT DEFAULT 0;
    DECLARE polls INT;
    DECLARE mine BIGINT UNSIGNED;
    WHILE waiting = 0 AND round < 10 DO -- New-Orders may be the only ones waiting: try again
        SET round = round + 1;
        START TRANSACTION;
        UPDATE district SET d_ytd = d_ytd + 1 WHERE d_w_id = 1;
        SET polls = 0;
        WHILE waiting = 0 AND polls < 8 DO
            DO SLEEP(0.15);
            SET polls = polls + 1;
            SET mine = (SELECT trx_id FROM information_schema.innodb_trx WHERE trx_mysql_thread_id = CONNECTION_ID());
            SELECT COUNT(*) INTO waiting FROM information_schema.innodb_lock_waits lw
                JOIN information_schema.innodb_trx r ON r.trx_id = lw.requesting_trx_id
                WHERE lw.blocking_trx_id = mine AND r.trx_query LIKE 'UPDATE district SET d_ytd%';
        END WHILE;
        IF waiting > 0 THEN
            UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 1;
        END IF;
        ROLLBACK;
    END WHILE;
    SELECT waiting;
END//
SQL
deadlocks() { "${MY[@]}" -e "SHOW GLOBAL STATUS LIKE 'Innodb_deadlocks'" 2>/dev/null | awk '{print $2}'; }
lock_wait=$("${MY[@]}" -e "SELECT @@innodb_lock_wait_timeout" 2>&1)
num_cmp "deadlock runs: the lock wait timeout ($lock_wait s) outlasts a 14 s run" "${lock_wait:-0}" ">" 14
for mode in sql procedures; do
    before=$(deadlocks)
    "$DG" tpcc run --target "$TGT" --mode "$mode" --vus 4 --duration 14s --results "$RES" --json \
        >"$T_TMP/dl.json" 2>"$T_TMP/dl.err" </dev/null &
    runpid=$!
    sleep 1
    side=$("${MY[@]}" dbgauge <"$T_TMP/deadlock.sql" 2>&1)
    side_rc=$?
    wait "$runpid"
    rc=$?
    after=$(deadlocks)
    # $side is how many Payments waited on the district rows when the cycle closed: 4 users over
    # 2 warehouses put two at warehouse 1, both can be queued there, and either count closes it.
    if [[ $side_rc == 0 && $side =~ ^[0-9]+$ ]] && ((side >= 1)); then ok "deadlock ($mode): the other session closed a cycle with a waiting Payment and was not the victim ($side waiting)"; else
        not_ok "deadlock ($mode): the other session closed a cycle with a waiting Payment and was not the victim" "exit $side_rc: $side"; fi
    num_cmp "deadlock ($mode): InnoDB counted a deadlock ($before -> $after)" "${after:-0}" ">" "${before:-0}"
    "${MY[@]}" -e "SHOW ENGINE INNODB STATUS\G" >"$T_TMP/innodb.txt" 2>&1
    python3 - "$T_TMP/innodb.txt" "$mode" >"$T_TMP/py.out" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
s = s[s.find("LATEST DETECTED DEADLOCK"):]
m = re.search(r"\*\*\* WE ROLL BACK TRANSACTION \((\d+)\)", s)
blk = ""
if m:
    b = re.search(r"\*\*\* \(%s\) TRANSACTION:(.*?)(\*\*\* \(\d+\) TRANSACTION:|\*\*\* WE ROLL BACK)" % m.group(1), s, re.S)
    blk = b.group(1) if b else ""
ok = "UPDATE district SET d_ytd" in blk and "w_ytd + 1" not in blk
print(("ok" if ok else "not ok") + f" - deadlock ({sys.argv[2]}): the server's latest deadlock rolled back the run's Payment"
      + ("" if ok else f": victim {m.group(1) if m else '?'}: {blk[:300]!r}"))
PY
    relay <"$T_TMP/py.out"
    check "deadlock ($mode): the run exits 0" test "$rc" = 0
    retries=$(json_get "$T_TMP/dl.json" transactions.payment.retries 2>/dev/null || echo 0)
    num_cmp "deadlock ($mode): the Payment was retried and counted (retries $retries)" "$retries" ">=" 1
    total=$(sum_field "$T_TMP/dl.json" retries 2>/dev/null || echo 0)
    num_cmp "deadlock ($mode): every retry was a deadlock (retries $total <= deadlocks $((after - before)))" "$total" "<=" "$((after - before))"
    dl=$(sum_field "$T_TMP/dl.json" retry_causes.deadlock 2>/dev/null || echo x)
    check "deadlock ($mode): the retries are counted as deadlocks ($dl of $total)" test "$dl" = "$total"
    check "deadlock ($mode): errors = 0" test "$(sum_field "$T_TMP/dl.json" errors 2>/dev/null)" = 0
    id=$(json_get "$T_TMP/dl.json" run_id 2>/dev/null)
    "$DG" runs show "${id:-0}" --json --results "$RES" >"$T_TMP/dl-show.json" 2>/dev/null
    check "deadlock ($mode): the stored run keeps the retry" test \
        "$(json_get "$T_TMP/dl-show.json" transactions.payment.retries 2>/dev/null)" = "$retries"
    check "deadlock ($mode): the stored run keeps its cause" test \
        "$(json_get "$T_TMP/dl-show.json" transactions.payment.retry_causes.deadlock 2>/dev/null)" = "$retries"
    check_passes "check after the $mode run with a deadlock passes"
done

# --- query stress: a prepared table read with exact row counts ---------------------------------
expect_exit "stress prepare 100,000 rows" 0 stress prepare --target "$TGT" --rows 100000 --drop
run_dg "$T_TMP/s.json" "$T_TMP/s.err" stress --target "$TGT" --threads 1,2 --iterations 3 --results "$RES" --json
check_exit "stress sweep 1,2 x 3 iterations exits 0" 0
python3 - "$T_TMP/s.json" >"$T_TMP/py.out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for s in d["steps"]:
    want = 3 * s["threads"] * 100000
    print(("ok" if s["rows"] == want else "not ok") + f" - stress: {s['threads']} threads read exactly {want} rows: {s['rows']}")
PY
relay <"$T_TMP/py.out"
[[ -s $T_TMP/py.out ]] || not_ok "stress: steps reported" "no steps in the JSON"
expect_exit "stress drop" 0 stress drop --target "$TGT"

# --- a read-only server: a run that writes is refused before its window (exit 2), a query stress
# reads it; made read-only during a run, the writes it refuses (1290, --read-only) are errors
# of cause read_only.
# read_only is the server's (this test server's, the script's alone while it runs): set through
# root (the dbgauge user has neither SUPER nor READ ONLY ADMIN, so its writes are refused) for
# one 3 s run and set back at once, or by the EXIT trap should the script be stopped meanwhile.
read_write() { "${MY[@]}" -e "SET GLOBAL read_only = 0" >/dev/null 2>&1; }
eval "set -- $(trap -p EXIT)" # the trap lib.sh set: kept, run after ours
lib_exit_trap=${3:-}
trap "read_write; $lib_exit_trap" EXIT
expect_exit "read-only: a stress table of 1,000 rows" 0 stress prepare --target "$TGT" --rows 1000 --drop
if "${MY[@]}" -e "SET GLOBAL read_only = 1" >"$T_TMP/my.err" 2>&1; then
    read_only_target "$TGT" "the server is read_only=ON (a replica?)"
    read_write
    # made read-only 1 s into a run (root's session, the script's own server), of one user:
    # SET GLOBAL read_only takes the global read lock, which waits for the statements running.
    # With two users, one could be waiting for a row lock the other holds between statements,
    # whose next statement waits behind that read lock: the SET then waited out
    # innodb_lock_wait_timeout (50 s) and the run saw no refusal (4 runs in 12 here, on an
    # idle machine; 0 in 12 with one user)
    run_dg "$T_TMP/ro.json" "$T_TMP/ro.err" tpcc run --target "$TGT" --vus 1 --duration 3s --results "$RES" --json \
        --fault "1s:env -u MYSQL_PWD mariadb -h127.0.0.1 -P$DG_MY_PORT -uroot -e 'SET GLOBAL read_only = 1'"
    read_write
    check "read-only: turned read-only during the run, the fault ran (exit 0)" test "$(json_get "$T_TMP/ro.json" faults.0.exit_status 2>/dev/null)" = 0
    num_cmp "read-only: ... within the window (the SET was done at that second)" "$(json_get "$T_TMP/ro.json" faults.0.end_s 2>/dev/null || echo 99)" "<" 3
    check "read-only: the server is writable again" test "$("${MY[@]}" -e "SELECT @@read_only" 2>&1)" = 0
    python3 "$DG_ROOT/tests/report_check.py" causes "$T_TMP/ro.json" read_only \
        "read-only: every error of the run on a server made read-only is counted under read_only" | relay
    check "read-only: the first error is the server's refusal (1290)" grep -q "running with the --read-only option.*(1290)" \
        <(json_get "$T_TMP/ro.json" error 2>/dev/null)
else
    not_ok "read-only server" "cannot set read_only: $(head -c 200 "$T_TMP/my.err")"
fi
read_write
trap -- "$lib_exit_trap" EXIT
expect_exit "read-only: stress drop" 0 stress drop --target "$TGT"

# --- bad targets: exit 2, the problem named, the password never shown ----------------------
expect_exit "unreachable server exits 2" 2 tpcc run --target "mysql://dbgauge@127.0.0.1:1/dbgauge" --duration 2s --results "$RES"
expect_stderr "unreachable server is named" "cannot connect to mysql://dbgauge@127.0.0.1:1/dbgauge"
no_secret "unreachable server: no password in the message" "$T_TMP/last.err" "$DG_MY_PASSWORD"
expect_exit "a bad port exits 2" 2 tpcc run --target "mysql://dbgauge@127.0.0.1:99999/dbgauge" --duration 2s --results "$RES"
expect_stderr "the bad port is named" "port '99999'"
expect_exit "a URL without a database exits 2" 2 tpcc check --target "mysql://dbgauge@$HOSTPORT"
expect_stderr "the missing database part is named" "names no database"

BAD="mysql://dbgauge:wrong-pass-123@$HOSTPORT/dbgauge"
expect_exit "wrong password exits 2" 2 tpcc run --target "$BAD" --duration 2s --results "$RES"
expect_stderr "wrong password is named" "Access denied"
no_secret "wrong password: not in the message" "$T_TMP/last.err" "wrong-pass-123"
expect_exit "wrong password: check exits 2" 2 tpcc check --target "$BAD"
no_secret "wrong password: not in check's message" "$T_TMP/last.err" "wrong-pass-123"

expect_exit "missing database exits 2" 2 tpcc run --target "mysql://dbgauge@$HOSTPORT/dg_no_such_db" --duration 2s --results "$RES"
expect_stderr "missing database is named" "dg_no_such_db"
if "${MY[@]}" -e "DROP DATABASE IF EXISTS dg_e2e_empty; CREATE DATABASE dg_e2e_empty; GRANT ALL ON dg_e2e_empty.* TO 'dbgauge'@'%'" >"$T_TMP/my.err" 2>&1; then
    EMPTY="mysql://dbgauge:$DG_MY_PASSWORD@$HOSTPORT/dg_e2e_empty"
    expect_exit "missing schema (sql run) exits 2" 2 tpcc run --target "$EMPTY" --duration 2s --results "$RES"
    expect_stderr "missing schema names the table and the fix" "no usable TPC-C table 'warehouse'.*tpcc load"
    no_secret "missing schema: no password in the message" "$T_TMP/last.err" "$DG_MY_PASSWORD"
    expect_exit "missing schema: check exits 2" 2 tpcc check --target "$EMPTY"
    "${MY[@]}" -e "DROP DATABASE IF EXISTS dg_e2e_empty" >/dev/null 2>&1
else
    not_ok "missing schema" "could not create an empty database: $(head -c 200 "$T_TMP/my.err")"
fi

# --- stored runs keep the target without its password --------------------------------------
WITHPASS="mysql://dbgauge:$DG_MY_PASSWORD@$HOSTPORT/dbgauge"
run_dg "$T_TMP/pw.json" "$T_TMP/pw.err" tpcc run --target "$WITHPASS" --vus 1 --txns-per-vu 200 --results "$RES" --json
check_exit "run with the password in the URL exits 0" 0
id=$(json_get "$T_TMP/pw.json" run_id 2>/dev/null)
run_dg "$T_TMP/show.json" "$T_TMP/show.err" runs show "$id" --json --results "$RES"
check_exit "runs show exits 0" 0
check "stored target is redacted" test "$(json_get "$T_TMP/show.json" target 2>/dev/null)" = "mysql://dbgauge:***@$HOSTPORT/dbgauge"
no_secret "stored run holds no password" "$T_TMP/show.json" "$DG_MY_PASSWORD"
no_secret "run output holds no password" "$T_TMP/pw.err" "$DG_MY_PASSWORD"
if sqlite3 "$RES" .dump 2>/dev/null | grep -qF -- "$DG_MY_PASSWORD"; then
    not_ok "results database holds no password" "found in the dump"
else ok "results database holds no password"; fi
check_passes "check after all runs passes"

# --- the memory knob: innodb_buffer_pool_size is resized live (no restart) --------------------
ROOT_TGT="mysql://root@$HOSTPORT/dbgauge"
unset DG_MYSQL_PASSWORD # the test server's root has none
run_dg "$T_TMP/mem.json" "$T_TMP/mem.err" tpcc run --target "$ROOT_TGT" --db-memory 384M --txns-per-vu 20 --results "$RES" --json
export DG_MYSQL_PASSWORD=$DG_MY_PASSWORD
if [[ $RC == 0 ]]; then ok "--db-memory 384M on MariaDB exits 0"; else
    not_ok "--db-memory 384M on MariaDB exits 0" "exit $RC: $(tail -c 300 "$T_TMP/mem.err")"; fi
check "the run records the new innodb_buffer_pool_size" \
    test "$(json_get "$T_TMP/mem.json" settings.innodb_buffer_pool_size 2>/dev/null)" = 402653184
check "the knob is recorded as applied" test "$(json_get "$T_TMP/mem.json" memory.not_applied 2>/dev/null)" = "[]"
expect_exit "--db-memory without the privilege fails before measuring" 2 tpcc run --target "$TGT" --db-memory 256M --txns-per-vu 5 --results "$RES"
expect_stderr "the missing privilege is named" "SUPER"

finish
