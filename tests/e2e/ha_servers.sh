#!/usr/bin/env bash
# ha_servers.sh — the replicated servers of tests/servers.sh (issue 15) do what the HA tests
# and benches rely on: a PostgreSQL primary with two streaming standbys replays the primary's
# rows, turns synchronous on request (sync_state 'sync', remote_apply rows there at once), holds
# back a standby whose walreceiver is stopped, and after a hard crash of the primary a promoted
# standby has every synchronous row and accepts writes; a 3-node MariaDB Galera cluster has
# every node in it, replicates a row from node 1 to node 3 and back, and a killed node rejoins
# by IST with the rows it missed. Everything is stopped by PID and its directory removed.
# This script starts and stops its OWN servers (its env file in its temp dir), so the suite's
# servers are not touched. --no-pg leaves out PostgreSQL, --no-my Galera; a missing package
# or a server that does not start is a `not ok`, never a skip.
. "$(dirname "$0")/../lib.sh"

SERVERS=$DG_ROOT/tests/servers.sh
export DG_SERVERS_ENV=$T_TMP/servers.env
# Whatever happens, our servers are stopped (by the PIDs in our env file) and T_TMP removed.
trap '"$SERVERS" stop pgrep >/dev/null 2>&1; "$SERVERS" stop galera >/dev/null 2>&1
      [[ -n ${DG_KEEP_TMP:-} ]] || rm -rf "$T_TMP"' EXIT
T_START=$SECONDS

# srv NAME ARGS...: runs tests/servers.sh ARGS, output in $T_TMP/NAME.log; one check on its exit.
srv() {
    local name=$1
    shift
    if "$SERVERS" "$@" >"$T_TMP/$name.log" 2>&1; then ok "$name"; else
        not_ok "$name" "tests/servers.sh $* failed: $(tail -n 8 "$T_TMP/$name.log" | tr '\n' ' ')"
        return 1
    fi
}

# shellcheck disable=SC1090
reload_env() { . "$DG_SERVERS_ENV"; }

# expect_eq NAME GOT WANT: one check comparing two strings
expect_eq() { if [[ $2 == "$3" ]]; then ok "$1"; else not_ok "$1" "got '$2', wanted '$3'"; fi; }

# pid_gone PID: the process no longer runs (or is a zombie already reaped by nobody)
pid_gone() { ! kill -0 "$1" 2>/dev/null; }

# walrcv_of PID: the walreceiver among PID's children (its title names it: cluster_name is set)
walrcv_of() {
    local p
    for p in /proc/[0-9]*; do
        # the parent PID is the second field after the command name's ')'
        [[ $(sed 's/.*) //' "$p/stat" 2>/dev/null | cut -d ' ' -f 2) == "$1" ]] || continue
        [[ $(tr '\0' ' ' <"$p/cmdline" 2>/dev/null) == *walreceiver* ]] && { echo "${p#/proc/}"; return 0; }
    done
    return 1
}

# --- PostgreSQL: a primary and two standbys -----------------------------------------------
pg_suite() {
    # q URL SQL: one statement as dbgauge over TCP (the replicated role), rows unaligned
    q() { psql -X -q -At -v ON_ERROR_STOP=1 "$1" -c "$2" 2>>"$T_TMP/psql.err"; }
    # admin MEMBER SQL: as the superuser over the member's socket
    admin() { local v="DG_PGR_${1^^}_ADMIN_URL"; psql -X -q -At -v ON_ERROR_STOP=1 "${!v}" -c "$2" 2>>"$T_TMP/psql.err"; }
    has_row() { [[ $(q "$1" "SELECT note FROM ha WHERE id = $2" 2>/dev/null) == "$3" ]]; }
    under_tmp() { [[ ${DG_PGR_DIR:-} == /tmp/dg-pgr.* && -d ${DG_PGR_STANDBY2_DATADIR:-/nonexistent} ]]; }

    local t0=$SECONDS
    DG_PGR_STANDBYS=2 srv "pg: start pgrep (a primary, two standbys)" start pgrep || return 1
    reload_env
    export PGPASSWORD=$DG_PGR_PASSWORD
    echo "# pg: the set started in $((SECONDS - t0)) s"
    local m pid
    for m in PRIMARY STANDBY1 STANDBY2; do
        pid=DG_PGR_${m}_PID
        check "pg: ${m,,} runs as recorded (pid ${!pid}, a postgres process)" \
            test "$(cat "/proc/${!pid}/comm" 2>/dev/null)" = postgres
    done
    check "pg: the env file names the primary and the standbys' URLs" \
        test -n "${DG_PGR_PRIMARY_URL:-}" -a -n "${DG_PGR_STANDBY_URL:-}" -a "${DG_PGR_STANDBY_URLS:-}" = \
        "${DG_PGR_STANDBY1_URL:-x} ${DG_PGR_STANDBY2_URL:-x}"
    check "pg: the data directories are ours, under /tmp" under_tmp
    expect_eq "pg: the primary streams to both standbys, asynchronously" \
        "$(admin primary "SELECT string_agg(application_name || ' ' || state || ' ' || sync_state, ', ' ORDER BY application_name) FROM pg_stat_replication")" \
        "standby1 streaming async, standby2 streaming async"
    expect_eq "pg: each standby has its replication slot, in use" \
        "$(admin primary "SELECT string_agg(slot_name || ' ' || active, ', ' ORDER BY slot_name) FROM pg_replication_slots")" \
        "standby1 true, standby2 true"
    expect_eq "pg: standby1 is in recovery with hot_standby_feedback on" \
        "$(admin standby1 "SELECT pg_is_in_recovery() || ' ' || current_setting('hot_standby_feedback')")" "true on"

    # a row written on the primary is read on both standbys (bounded wait)
    q "$DG_PGR_PRIMARY_URL" "CREATE TABLE ha (id int PRIMARY KEY, note text); INSERT INTO ha VALUES (1, 'async')"
    check "pg: standby1 replays a row written on the primary (within 10 s)" wait_for 10 has_row "$DG_PGR_STANDBY1_URL" 1 async
    check "pg: standby2 replays it too (within 10 s)" wait_for 10 has_row "$DG_PGR_STANDBY2_URL" 1 async
    psql -X -q -At "$DG_PGR_STANDBY1_URL" -c "INSERT INTO ha VALUES (9, 'no')" >"$T_TMP/ro.out" 2>&1
    check "pg: a standby refuses writes (read-only transaction)" grep -q "read-only transaction" "$T_TMP/ro.out"

    # synchronous: standby1 first, standby2 the potential one
    srv "pg: sync pgrep on" sync pgrep on
    expect_eq "pg: pg_stat_replication shows standby1 sync, standby2 potential" \
        "$(admin primary "SELECT string_agg(application_name || ' ' || sync_state, ', ' ORDER BY application_name) FROM pg_stat_replication")" \
        "standby1 sync, standby2 potential"
    q "$DG_PGR_PRIMARY_URL" "SET synchronous_commit = remote_apply; INSERT INTO ha VALUES (2, 'sync')"
    check "pg: a remote_apply commit is on the synchronous standby at once" has_row "$DG_PGR_STANDBY1_URL" 2 sync

    # standby2's walreceiver stopped: it takes no WAL until continued
    srv "pg: walrcv-stop pgrep standby2" walrcv-stop pgrep standby2
    local wpid
    wpid=$(walrcv_of "$DG_PGR_STANDBY2_PID")
    expect_eq "pg: standby2's walreceiver is stopped (state T)" "$(awk '{print $3}' "/proc/${wpid:-0}/stat" 2>/dev/null)" T
    q "$DG_PGR_PRIMARY_URL" "SET synchronous_commit = remote_apply; INSERT INTO ha VALUES (3, 'paused')"
    check "pg: standby1 has the row written while standby2's receiver is stopped" has_row "$DG_PGR_STANDBY1_URL" 3 paused
    sleep 2
    check "pg: standby2 does not have it 2 s later" test "$(q "$DG_PGR_STANDBY2_URL" "SELECT count(*) FROM ha WHERE id = 3")" = 0
    srv "pg: walrcv-cont pgrep standby2" walrcv-cont pgrep standby2
    check "pg: standby2 has it once its receiver continues (within 15 s)" wait_for 15 has_row "$DG_PGR_STANDBY2_URL" 3 paused

    # failover: the primary stopped hard, standby1 promoted
    srv "pg: crash pgrep (the primary, -m immediate)" crash pgrep
    check "pg: the primary's postmaster is gone" wait_for 10 pid_gone "$DG_PGR_PRIMARY_PID"
    srv "pg: promote pgrep standby1" promote pgrep standby1
    expect_eq "pg: the promoted standby is out of recovery" "$(admin standby1 "SELECT pg_is_in_recovery()")" f
    expect_eq "pg: it has every row the primary acknowledged" "$(q "$DG_PGR_STANDBY1_URL" "SELECT string_agg(id::text, ',' ORDER BY id) FROM ha")" "1,2,3"
    expect_eq "pg: the promoted standby accepts writes" \
        "$(q "$DG_PGR_STANDBY1_URL" "INSERT INTO ha VALUES (4, 'promoted') RETURNING note")" promoted
    expect_eq "pg: DG_PGR_URL (read-write, every host) now reaches standby1" \
        "$(q "$DG_PGR_URL" "SELECT inet_server_port()")" "$DG_PGR_STANDBY1_PORT"

    # stop: every process gone, the directory removed, the env entries dropped
    srv "pg: stop pgrep" stop pgrep
    for m in PRIMARY STANDBY1 STANDBY2; do
        pid=DG_PGR_${m}_PID
        check "pg: ${m,,} is stopped (pid ${!pid})" wait_for 10 pid_gone "${!pid}"
    done
    check "pg: the walreceiver stopped once is gone too" pid_gone "${wpid:-0}"
    check "pg: its directory is removed" test ! -e "$DG_PGR_DIR"
    check "pg: the env file has no DG_PGR_ entry left" test -z "$(grep DG_PGR_ "$DG_SERVERS_ENV" 2>/dev/null)"
    echo "# pg: $((SECONDS - t0)) s in all"
}

# --- MariaDB Galera: three nodes ------------------------------------------------------------
my_suite() {
    # gq N SQL: one statement as dbgauge (the replicated user) on node N
    gq() { local p="DG_GAL_PORT$1"; mariadb -h127.0.0.1 -P"${!p}" -udbgauge -N -B dbgauge -e "$2" 2>>"$T_TMP/mariadb.err"; }
    status() { gq "$1" "SHOW GLOBAL STATUS LIKE '$2'" | cut -f 2; }
    size_is() { [[ $(status "$1" wsrep_cluster_size) == "$2" ]]; }
    has_row() { [[ $(gq "$1" "SELECT note FROM ha WHERE id = $2" 2>/dev/null) == "$3" ]]; }
    # sst_donations LOG...: the donors' SST script runs that copied data (an IST passes --bypass)
    sst_donations() { grep -h "wsrep_sst_rsync --role 'donor'" "$@" | grep -v -- "--bypass"; }

    local t0=$SECONDS n pid
    srv "galera: start galera (3 nodes)" start galera || return 1
    reload_env
    export MYSQL_PWD=$DG_GAL_PASSWORD
    echo "# galera: the cluster started in $((SECONDS - t0)) s"
    for n in 1 2 3; do
        pid=DG_GAL_PID$n
        check "galera: node $n runs as recorded (pid ${!pid}, a mariadbd)" test "$(cat "/proc/${!pid}/comm" 2>/dev/null)" = mariadbd
        expect_eq "galera: node $n: wsrep_cluster_size 3, Synced (as dbgauge: the user replicated)" \
            "$(status "$n" wsrep_cluster_size) $(status "$n" wsrep_local_state_comment)" "3 Synced"
    done
    expect_eq "galera: node 2 runs ROW binlogs, autoinc lock mode 2, rsync SST" \
        "$(gq 2 "SELECT CONCAT_WS(' ', @@binlog_format, @@innodb_autoinc_lock_mode, @@wsrep_sst_method)")" "ROW 2 rsync"
    check "galera: the env file names three URLs" test "$(wc -w <<<"${DG_GAL_URLS:-}")" = 3
    # The joins at start were full copies: a donor ran the SST script without --bypass (with
    # it, for an IST, the script copies nothing). What tells an SST apart below.
    check "galera: the first joins were SSTs (a donor ran wsrep_sst_rsync --role donor, no --bypass)" \
        test -n "$(sst_donations "$DG_GAL_LOG1" "$DG_GAL_LOG2")"

    gq 1 "CREATE TABLE ha (id int PRIMARY KEY, note varchar(20)); INSERT INTO ha VALUES (1, 'node1')"
    check "galera: a row written on node 1 is read on node 3 (within 10 s)" wait_for 10 has_row 3 1 node1
    gq 3 "INSERT INTO ha VALUES (2, 'node3')"
    check "galera: a row written on node 3 is read on node 1 (within 10 s)" wait_for 10 has_row 1 2 node3

    # node 2 killed; the other two go on; it rejoins by IST with what it missed
    srv "galera: crash galera 2 (SIGKILL)" crash galera 2
    check "galera: node 2's mariadbd is gone" wait_for 10 pid_gone "$DG_GAL_PID2"
    check "galera: node 1 sees a cluster of 2 (within 30 s)" wait_for 30 size_is 1 2
    gq 1 "INSERT INTO ha VALUES (3, 'missed')"
    check "galera: node 3 reads a row node 1 wrote while node 2 is down (within 10 s)" wait_for 10 has_row 3 3 missed
    # where each node's log stands before the rejoin (what is after it is the rejoin's)
    local l1 l2 l3
    l1=$(wc -l <"$DG_GAL_LOG1") l2=$(wc -l <"$DG_GAL_LOG2") l3=$(wc -l <"$DG_GAL_LOG3")
    srv "galera: revive galera 2" revive galera 2
    reload_env
    for n in 1 2 3; do
        check "galera: node $n sees a cluster of 3 again (within 30 s)" wait_for 30 size_is "$n" 3
    done
    check "galera: node 2 has the row written while it was down" wait_for 10 has_row 2 3 missed
    # An IST, not a full copy: node 2 asked from its own position (servers.sh recovers it after
    # a kill; unknown, it is -1 and means an SST), received an IST, and no donor copied data.
    tail -n +$((l2 + 1)) "$DG_GAL_LOG2" >"$T_TMP/rejoin.log"
    { tail -n +$((l1 + 1)) "$DG_GAL_LOG1"; tail -n +$((l3 + 1)) "$DG_GAL_LOG3"; } >"$T_TMP/donors.log"
    check "galera: node 2 rejoined from its own position (Local state not -1)" \
        grep -qE "Local state: [0-9a-f-]{36}:[0-9]+$" "$T_TMP/rejoin.log"
    check "galera: node 2 received an IST" grep -q "IST received" "$T_TMP/rejoin.log"
    check "galera: ... and no SST (no donor ran wsrep_sst_rsync --role donor without --bypass)" \
        test -z "$(sst_donations "$T_TMP/donors.log")"

    srv "galera: stop galera" stop galera
    for n in 1 2 3; do
        pid=DG_GAL_PID$n
        check "galera: node $n is stopped (pid ${!pid})" wait_for 10 pid_gone "${!pid}"
    done
    check "galera: its directory is removed" test ! -e "$DG_GAL_DIR"
    check "galera: the env file has no DG_GAL_ entry left" test -z "$(grep DG_GAL_ "$DG_SERVERS_ENV" 2>/dev/null)"
    echo "# galera: $((SECONDS - t0)) s in all"
}

if [[ -n ${DG_NO_PG:-} ]]; then echo "# pgrep: not run (--no-pg)"; else pg_suite; fi
if [[ -n ${DG_NO_MY:-} ]]; then echo "# galera: not run (--no-my)"; else my_suite; fi
echo "# ha_servers: $((SECONDS - T_START)) s"
finish
