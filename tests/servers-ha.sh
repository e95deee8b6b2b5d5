# shellcheck shell=bash
# servers-ha.sh — the replicated servers of tests/servers.sh (sourced by it, never run): a
# PostgreSQL primary with one or two streaming standbys ("pgrep") and a 3-node MariaDB Galera
# cluster ("galera"), each on 127.0.0.1 free ports, in its own /tmp directory, started and
# stopped by PID; and the faults the HA tests need (crash, revive, promote, a paused WAL
# receiver). Must not touch a process or directory it did not make.
#
# Uses servers.sh's helpers: say, die, env_get/env_put/env_set/env_drop, port_busy, pid_alive,
# as_user, need_packages, PG_BIN, PG_PACKAGES, MY_PACKAGES, the user names and passwords.

# ports from servers.sh's PORT_BASE: pg +0, mariadb +100, these +200 to +999
PGR_PORT_FIRST=$((PORT_BASE + 200))
PGR_REPL_USER=dg_repl
PGR_REPL_PASSWORD=dbgauge-repl
GAL_PORT_FIRST=$((PORT_BASE + 400))       # the nodes' client ports
GAL_GROUP_PORT_FIRST=$((PORT_BASE + 600)) # group communication, IST and SST ports: three per node
GAL_PROVIDER=${DG_GALERA_PROVIDER:-/usr/lib/galera/libgalera_smm.so}
GAL_NODES=3

# ---- helpers shared by both --------------------------------------------------------------

# port_held PORT: something listens on it, or a connection has it as its own end (these ports
# are below the ephemeral range, so only a server of ours or a client bound on purpose can
# hold one). An end in TIME-WAIT does not stop a bind with SO_REUSEADDR, which the servers set.
port_held() {
    port_busy "$1" && return 0
    ss -Htan "sport = :$1" 2>/dev/null | grep -qv '^TIME-WAIT'
}

# free_ports COUNT BASE: prints COUNT distinct ports from BASE upward that nobody holds.
# Nothing holds them until the servers bind, so a start that loses a race tries again.
free_ports() {
    local count=$1 p=$2 found=0
    while ((found < count && p < $2 + 400)); do
        port_held "$p" || { echo "$p"; ((found++)); }
        ((p++))
    done
    ((found == count))
}

# wait_until SECONDS COMMAND...: polls COMMAND every 0.2 s until it succeeds; 1 on timeout.
wait_until() {
    local deadline=$((SECONDS + $1))
    shift
    while ! "$@"; do
        ((SECONDS < deadline)) || return 1
        sleep 0.2
    done
}

# children_of PID: the PIDs whose parent is PID (from /proc, so no procps is needed).
children_of() {
    local parent=$1 f line fields
    for f in /proc/[0-9]*/stat; do
        read -r line 2>/dev/null <"$f" || continue
        # the command name (field 2) may hold spaces: the fields after its ')' are state, ppid, ...
        read -ra fields <<<"${line##*) }"
        [[ ${fields[1]} == "$parent" ]] || continue
        f=${f#/proc/}
        echo "${f%/stat}"
    done
}

cmdline_of() { tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null; }

# ---- PostgreSQL primary + streaming standbys ("pgrep") ------------------------------------
# Members are named primary, standby1, standby2 after the role they were made with; a promoted
# standby keeps its name (DG_PGR_PROMOTED says which one was promoted). Env entries per member:
# DG_PGR_<MEMBER>_{DATADIR,PORT,PID,URL,ADMIN_URL,LOG}; for the set: DG_PGR_PRIMARY_URL,
# DG_PGR_STANDBY_URL (standby1), DG_PGR_STANDBY_URLS (space-separated), DG_PGR_URL (every
# member, target_session_attrs=read-write: the URL that follows a failover), DG_PGR_PASSWORD,
# DG_PGR_STANDBYS, DG_PGR_SYNC_NAMES.

# pgr_member NAME: the member's canonical name (primary, standby1, standby2), or fails.
pgr_member() {
    case ${1:-} in
    primary | p) echo primary ;;
    standby1 | standby | s1 | 1) echo standby1 ;;
    standby2 | s2 | 2) echo standby2 ;;
    *) return 1 ;;
    esac
}

pgr_key() { echo "DG_PGR_${1^^}"; } # primary -> DG_PGR_PRIMARY

# pgr_psql MEMBER SQL: one statement as the superuser over the member's unix socket (trust);
# prints the rows unaligned, fails on an error.
pgr_psql() {
    local key data port
    key=$(pgr_key "$1")
    data=$(env_get "${key}_DATADIR")
    port=$(env_get "${key}_PORT")
    as_user postgres "$PG_BIN/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$data" -p "$port" -U postgres \
        -d postgres -c "$2"
}

# pgr_conf DATA PORT NAME: our settings, in dbgauge.conf included from postgresql.conf (a
# standby's copy, taken by pg_basebackup, is rewritten with its own port and name).
pgr_conf() {
    local data=$1 port=$2 name=$3
    {
        echo "# dbgauge test server: '$name' of a replicated set (tests/servers.sh)"
        echo "listen_addresses = '127.0.0.1'"
        echo "port = $port"
        echo "unix_socket_directories = '$data'"
        echo "password_encryption = 'scram-sha-256'"
        echo "max_connections = 100"
        # The walreceiver connects with cluster_name as its application_name: the name that
        # synchronous_standby_names lists and pg_stat_replication shows. It also names the
        # processes, so a member's walreceiver is found by its command line.
        echo "cluster_name = '$name'"
        echo "wal_level = replica"
        echo "max_wal_senders = 10"
        echo "max_replication_slots = 10"
        echo "hot_standby = on"
        # the primary keeps the row versions a standby's queries still read, so reads on a
        # standby are not cancelled by replay (the issue's reads on a replica)
        echo "hot_standby_feedback = on"
    } | as_user postgres tee "$data/dbgauge.conf" >/dev/null
    grep -q "^include = 'dbgauge.conf'" "$data/postgresql.conf" ||
        echo "include = 'dbgauge.conf'" | as_user postgres tee -a "$data/postgresql.conf" >/dev/null
}

# pgr_launch MEMBER DATA BASE: starts the member on the first free port from BASE that works
# (five tries), records its data, port, pid, log and URLs. Sets `port`.
pgr_launch() {
    local member=$1 data=$2 base=$3 key dir log tries=0 started=0 pid
    key=$(pgr_key "$member")
    dir=$(env_get DG_PGR_DIR)
    log=$dir/$member.log
    while ((tries++ < 5)); do
        port=$(free_ports 1 $((base + 10 * (tries - 1)))) || break
        pgr_conf "$data" "$port" "$member"
        if as_user postgres "$PG_BIN/pg_ctl" -D "$data" -l "$log" -w -t 60 start >/dev/null 2>&1; then
            started=1
            break
        fi
        say "pgrep: $member: start on port $port failed, trying another"
        tail -n 5 "$log" >&2
    done
    ((started)) || { say "pgrep: $member did not start (log in $log)"; return 1; }
    pid=$(head -n 1 "$data/postmaster.pid")
    env_put "${key}_DATADIR" "$data"
    env_put "${key}_LOG" "$log"
    env_put "${key}_PORT" "$port"
    env_put "${key}_PID" "$pid"
    env_put "${key}_URL" "postgres://$PG_USER_NAME@127.0.0.1:$port/dbgauge"
    env_put "${key}_ADMIN_URL" "postgresql:///postgres?host=$data&port=$port&user=postgres"
}

# pgr_streaming NAME: the primary's walsender for NAME is streaming.
pgr_streaming() {
    [[ $(pgr_psql primary "SELECT state FROM pg_stat_replication WHERE application_name = '$1'" 2>/dev/null) == streaming ]]
}

# pgr_add_standby NAME: a standby of the primary, made by pg_basebackup -R over TCP with the
# replication role, with a replication slot of its name (the primary keeps the WAL it has not
# received yet), started and streaming.
pgr_add_standby() {
    local name=$1 dir data pport
    dir=$(env_get DG_PGR_DIR)
    data=$dir/$name
    pport=$(env_get DG_PGR_PRIMARY_PORT)
    # -R writes standby.signal and primary_conninfo (password included: the file is the
    # postgres user's, mode 600); -C -S creates the slot before the copy starts.
    if ! (export PGPASSWORD=$PGR_REPL_PASSWORD
        as_user postgres "$PG_BIN/pg_basebackup" \
            -d "host=127.0.0.1 port=$pport user=$PGR_REPL_USER application_name=$name" \
            -D "$data" -R -X stream -C -S "$name" -c fast) >"$dir/$name-basebackup.log" 2>&1; then
        cat "$dir/$name-basebackup.log" >&2
        say "pgrep: pg_basebackup for $name failed"
        return 1
    fi
    pgr_launch "$name" "$data" $((pport + 1)) || return 1
    wait_until 30 pgr_streaming "$name" || { say "pgrep: $name is not streaming after 30 s"; return 1; }
}

pgr_start() {
    local pid n
    pid=$(env_get DG_PGR_PRIMARY_PID)
    if pid_alive "$pid"; then
        say "pgrep: already running (primary pid $pid); $ENV_FILE is current"
        return 0
    fi
    env_drop PGR # a stale record from a run that died
    n=${DG_PGR_STANDBYS:-1}
    [[ $n == 1 || $n == 2 ]] || die "pgrep: DG_PGR_STANDBYS must be 1 or 2, not '$n'"
    need_packages "$PG_BIN/initdb" $PG_PACKAGES || return 1
    [[ -x $PG_BIN/pg_basebackup ]] || die "pgrep: no $PG_BIN/pg_basebackup"
    id postgres >/dev/null 2>&1 || { ((EUID != 0)) || die "pgrep: no 'postgres' user"; }

    local dir
    dir=$(mktemp -d /tmp/dg-pgr.XXXXXX) || return 1
    ((EUID == 0)) && chown postgres: "$dir"
    # From here on a failure must undo what was made: pgr_stop reads what the env file holds.
    env_put DG_PGR_DIR "$dir"

    if ! as_user postgres "$PG_BIN/initdb" -D "$dir/primary" -U postgres -E UTF8 --no-locale \
        --auth-local=trust --auth-host=scram-sha-256 >"$dir/initdb.log" 2>&1; then
        cat "$dir/initdb.log" >&2
        pgr_stop
        die "pgrep: initdb failed"
    fi
    pgr_launch primary "$dir/primary" "$PGR_PORT_FIRST" || { pgr_stop; die "pgrep: the primary did not start"; }
    # initdb's pg_hba.conf already lets 127.0.0.1 replicate with a scram password
    if ! pgr_psql primary "CREATE ROLE $PG_USER_NAME LOGIN PASSWORD '$PG_PASSWORD'" >/dev/null ||
        ! pgr_psql primary "CREATE DATABASE dbgauge OWNER $PG_USER_NAME" >/dev/null ||
        ! pgr_psql primary "CREATE ROLE $PGR_REPL_USER REPLICATION LOGIN PASSWORD '$PGR_REPL_PASSWORD'" >/dev/null; then
        pgr_stop
        die "pgrep: could not create the roles and database"
    fi
    env_put DG_PGR_PASSWORD "$PG_PASSWORD"

    local i urls="" hosts
    hosts="127.0.0.1:$(env_get DG_PGR_PRIMARY_PORT)"
    for ((i = 1; i <= n; i++)); do
        pgr_add_standby "standby$i" || { pgr_stop; die "pgrep: standby$i failed"; }
        urls+="${urls:+ }$(env_get "DG_PGR_STANDBY${i}_URL")"
        hosts+=",127.0.0.1:$(env_get "DG_PGR_STANDBY${i}_PORT")"
    done
    env_put DG_PGR_STANDBYS "$n"
    env_put DG_PGR_STANDBY_URL "$(env_get DG_PGR_STANDBY1_URL)"
    env_put DG_PGR_STANDBY_URLS "$urls"
    env_put DG_PGR_URL "postgres://$PG_USER_NAME@$hosts/dbgauge?target_session_attrs=read-write"
    env_put DG_PGR_SYNC_NAMES ""
    case ${DG_PGR_SYNC:-off} in
    off | 0 | no | "") ;;
    *) pgr_sync "$DG_PGR_SYNC" || { pgr_stop; die "pgrep: synchronous_standby_names not in effect"; } ;;
    esac
    say "pgrep: primary on 127.0.0.1:$(env_get DG_PGR_PRIMARY_PORT), $n standby(s) streaming;" \
        "synchronous_standby_names '$(env_get DG_PGR_SYNC_NAMES)'; data in $dir"
}

# pgr_member_stop MEMBER: stops one member by pg_ctl (fast), else by its recorded PID.
pgr_member_stop() {
    local key data pid kids k
    key=$(pgr_key "$1")
    data=$(env_get "${key}_DATADIR")
    pid=$(env_get "${key}_PID")
    [[ -n $data || -n $pid ]] || return 0
    # a server started again outside pgr_revive has its pid in postmaster.pid only
    if ! pid_alive "$pid" && [[ -f $data/postmaster.pid ]]; then pid=$(head -n 1 "$data/postmaster.pid"); fi
    pid_alive "$pid" && [[ $(cat "/proc/$pid/comm" 2>/dev/null) == postgres ]] || return 0
    # A walreceiver stopped by walrcv-stop would never exit: continue every child first.
    kids=$(children_of "$pid")
    for k in $kids; do kill -CONT "$k" 2>/dev/null; done
    [[ -d $data ]] && as_user postgres "$PG_BIN/pg_ctl" -D "$data" -m fast -w -t 30 stop >/dev/null 2>&1
    if pid_alive "$pid" && [[ $(cat "/proc/$pid/comm" 2>/dev/null) == postgres ]]; then
        kill -INT "$pid" 2>/dev/null
        for _ in $(seq 1 50); do pid_alive "$pid" || break; sleep 0.2; done
        if pid_alive "$pid"; then
            kill -KILL "$pid" 2>/dev/null
            for k in $kids; do kill -KILL "$k" 2>/dev/null; done
        fi
    fi
    say "pgrep: $1 stopped (pid $pid)"
}

pgr_stop() {
    local dir m
    dir=$(env_get DG_PGR_DIR)
    if [[ -z $dir ]]; then
        say "pgrep: nothing recorded in $ENV_FILE"
        return 0
    fi
    # standbys first: a primary stopping with a synchronous standby gone still stops (fast)
    for m in standby2 standby1 primary; do pgr_member_stop "$m"; done
    # Only ever remove a directory this script made.
    if [[ -d $dir && $dir == /tmp/dg-pgr.* ]]; then
        rm -rf -- "$dir"
    fi
    env_drop PGR
    say "pgrep: stopped"
}

# pgr_sync on|off|NAMES: synchronous_standby_names on the primary (on: standby1, or
# 'FIRST 1 (standby1, standby2)' with two standbys; off: ''; else NAMES as given), reloaded.
# Returns once pg_stat_replication shows it (a reload is asynchronous): with names, a standby
# in sync_state 'sync' or 'quorum'; without, none.
pgr_sync() {
    local v=${1:-on} names n
    n=$(env_get DG_PGR_STANDBYS)
    case $v in
    on | 1 | yes) if [[ $n == 2 ]]; then names="FIRST 1 (standby1, standby2)"; else names=standby1; fi ;;
    off | 0 | no) names="" ;;
    *) names=$v ;;
    esac
    if ! pgr_psql primary "ALTER SYSTEM SET synchronous_standby_names = '${names//\'/\'\'}'" >/dev/null ||
        ! pgr_psql primary "SELECT pg_reload_conf()" >/dev/null; then
        say "pgrep: ALTER SYSTEM failed"
        return 1
    fi
    if ! wait_until 15 pgr_sync_shows "$names"; then
        say "pgrep: synchronous_standby_names '$names' not in effect after 15 s"
        return 1
    fi
    env_set DG_PGR_SYNC_NAMES "$names"
    say "pgrep: synchronous_standby_names = '$names'"
}

# pgr_sync_shows NAMES: the primary runs with synchronous_standby_names NAMES and its
# walsenders agree: with names, one standby is 'sync' or 'quorum'; without, all are 'async'.
pgr_sync_shows() {
    local want="SELECT count(*) > 0 FROM pg_stat_replication WHERE sync_state IN ('sync', 'quorum')"
    [[ -z $1 ]] && want="SELECT count(*) = 0 FROM pg_stat_replication WHERE sync_state <> 'async'"
    [[ $(pgr_psql primary "SHOW synchronous_standby_names" 2>/dev/null) == "$1" &&
        $(pgr_psql primary "$want" 2>/dev/null) == t ]]
}

pgr_is_primary() { [[ $(pgr_psql "$1" "SELECT pg_is_in_recovery()" 2>/dev/null) == f ]]; }

# Stops a member at once (default: the primary), as a power cut would: no checkpoint.
pgr_crash() {
    local m key data pid
    m=$(pgr_member "${1:-primary}") || die "pgrep: unknown member '$1' (primary, standby1, standby2)"
    key=$(pgr_key "$m")
    data=$(env_get "${key}_DATADIR")
    pid=$(env_get "${key}_PID")
    pid_alive "$pid" || die "pgrep: $m is not running (pid '$pid' in $ENV_FILE)"
    # a paused walreceiver would hold the shutdown: let it go first
    for k in $(children_of "$pid"); do kill -CONT "$k" 2>/dev/null; done
    as_user postgres "$PG_BIN/pg_ctl" -D "$data" -m immediate -w -t 30 stop >/dev/null 2>&1 ||
        die "pgrep: pg_ctl stop of $m failed"
    say "pgrep: $m crashed (pid $pid)"
}

# Starts a member again on its data and port (after pgr_crash). A primary revived after its
# standby was promoted is a second primary: that is the caller's to avoid.
pgr_revive() {
    local m key data log pid
    m=$(pgr_member "${1:-primary}") || die "pgrep: unknown member '$1' (primary, standby1, standby2)"
    key=$(pgr_key "$m")
    data=$(env_get "${key}_DATADIR")
    log=$(env_get "${key}_LOG")
    [[ -d $data ]] || die "pgrep: no data directory recorded for $m"
    as_user postgres "$PG_BIN/pg_ctl" -D "$data" -l "$log" -w -t 60 start >/dev/null 2>&1 ||
        die "pgrep: pg_ctl start of $m failed (log in $log)"
    pid=$(head -n 1 "$data/postmaster.pid")
    env_set "${key}_PID" "$pid"
    say "pgrep: $m started again, pid $pid"
}

pgr_restart() { pgr_crash "$@" && pgr_revive "$@"; }

# Promotes a standby (default standby1) to a primary and waits until it accepts writes.
pgr_promote() {
    local m key data
    m=$(pgr_member "${1:-standby1}") || die "pgrep: unknown member '$1' (standby1, standby2)"
    [[ $m != primary ]] || die "pgrep: promote takes a standby"
    key=$(pgr_key "$m")
    data=$(env_get "${key}_DATADIR")
    pid_alive "$(env_get "${key}_PID")" || die "pgrep: $m is not running"
    as_user postgres "$PG_BIN/pg_ctl" -D "$data" -w -t 60 promote >/dev/null 2>&1 ||
        die "pgrep: pg_ctl promote of $m failed"
    wait_until 30 pgr_is_primary "$m" ||
        die "pgrep: $m still in recovery 30 s after the promotion"
    env_set DG_PGR_PROMOTED "$m"
    say "pgrep: $m promoted"
}

# pgr_walrcv_pid MEMBER: the PID of the member's walreceiver (a child of its postmaster whose
# title says walreceiver), or fails.
pgr_walrcv_pid() {
    local pid k
    pid=$(env_get "$(pgr_key "$1")_PID")
    pid_alive "$pid" || return 1
    for k in $(children_of "$pid"); do
        [[ $(cmdline_of "$k") == *walreceiver* ]] && { echo "$k"; return 0; }
    done
    return 1
}

# pgr_walrcv stop|cont|kill MEMBER: SIGSTOP, SIGCONT or SIGKILL a standby's walreceiver.
# Stopped, it takes no more WAL, so the primary's later commits are not on this standby
# (pg_wal_replay_pause() would still receive and flush them); synchronous_commit waits for it
# if it is the sync one. Continued, it still reads what the kernel's socket buffers held (a
# second or more of WAL); killed, that is dropped and the standby restarts its recovery from
# what it had flushed: the way to fail over to a standby that really is behind.
pgr_walrcv() {
    local how=$1 m wpid
    m=$(pgr_member "${2:-standby1}") || die "pgrep: unknown member '$2' (standby1, standby2)"
    [[ $m != primary ]] || die "pgrep: the primary has no walreceiver"
    wpid=$(pgr_walrcv_pid "$m") || die "pgrep: $m has no walreceiver running"
    kill "-${how^^}" "$wpid" || die "pgrep: kill -${how^^} $wpid failed"
    say "pgrep: $m's walreceiver (pid $wpid): $(case $how in stop) echo stopped ;; cont) echo continued ;; *) echo killed ;; esac)"
}

pgr_status() {
    local m pid
    for m in primary standby1 standby2; do
        pid=$(env_get "$(pgr_key "$m")_PID")
        [[ -n $pid ]] || continue
        if pid_alive "$pid"; then say "pgrep: $m running (pid $pid)"; else say "pgrep: $m dead (pid $pid)"; fi
    done
}

# ---- MariaDB Galera, three nodes ("galera") ----------------------------------------------
# Node n (1..3) has its directory $DG_GAL_DIR/n<n> (my.cnf, data/, sock, mariadbd.log) and four ports:
# the client port and Galera's group communication (gcomm), IST and SST (rsync) ports. Env
# entries: DG_GAL_{PORT,GCOMM_PORT,IST_PORT,SST_PORT,DATADIR,LOG,PID,URL,ADMIN_URL}<n>,
# DG_GAL_URLS (space-separated), DG_GAL_PASSWORD, DG_GAL_DIR, DG_GAL_NAME (wsrep_cluster_name).

# gal_conf N: writes node N's settings to its own my.cnf, which mariadbd then reads alone
# (--defaults-file). A file, not --no-defaults and arguments: the SST script reads the server's
# settings again with my_print_defaults, and without a defaults file of ours it would read the
# system's /etc/mysql (another socket, pid file and data paths).
gal_conf() {
    local n=$1 dir port gp ip sp i members=""
    dir=$(env_get DG_GAL_DIR)/n$n
    port=$(env_get "DG_GAL_PORT$n")
    gp=$(env_get "DG_GAL_GCOMM_PORT$n")
    ip=$(env_get "DG_GAL_IST_PORT$n")
    sp=$(env_get "DG_GAL_SST_PORT$n")
    for ((i = 1; i <= GAL_NODES; i++)); do members+="${members:+,}127.0.0.1:$(env_get "DG_GAL_GCOMM_PORT$i")"; done
    cat >"$dir/my.cnf" <<EOF
# node $n of a dbgauge test cluster (tests/servers.sh start galera)
[mysqld]
datadir = $dir/data
user = mysql
bind-address = 127.0.0.1
port = $port
socket = $dir/sock
pid-file = $dir/mariadbd.pid
# its own (servers.sh my_start says why)
tmpdir = $dir/tmp
log-error = $dir/mariadbd.log
local-infile = 1
max-connections = 200
# small memory for a 2-core test box; the single server's pool and redo log (servers.sh), so
# single vs Galera compares like with like
innodb-buffer-pool-size = ${DG_GAL_BUFFER_POOL:-256M}
innodb-log-file-size = 64M
innodb-flush-log-at-trx-commit = 2
# what Galera requires: row events, interleaved auto-increment locks, InnoDB
binlog-format = ROW
innodb-autoinc-lock-mode = 2
default-storage-engine = InnoDB
wsrep-on = ON
wsrep-provider = $GAL_PROVIDER
wsrep-cluster-name = $(env_get DG_GAL_NAME)
wsrep-node-name = node$n
wsrep-cluster-address = gcomm://$members
wsrep-node-address = 127.0.0.1:$gp
wsrep-node-incoming-address = 127.0.0.1:$port
# every port on loopback: group communication, the IST receiver; the gcache keeps the write
# sets a rejoining node gets by IST
wsrep-provider-options = "gmcast.listen_addr=tcp://127.0.0.1:$gp;ist.recv_addr=127.0.0.1:$ip;gcache.size=${DG_GAL_GCACHE:-128M}"
wsrep-sst-method = rsync
wsrep-sst-receive-address = 127.0.0.1:$sp
EOF
    if ((EUID == 0)); then chown mysql: "$dir/my.cnf"; fi
}

# gal_sql N SQL: one statement as root (no password, over TCP), rows tab-separated.
gal_sql() {
    env -u MYSQL_PWD mariadb -h127.0.0.1 -P"$(env_get "DG_GAL_PORT$1")" -uroot -N -B -e "$2"
}

# gal_status N VAR: a global status value of node N (empty when it does not answer).
gal_status() { gal_sql "$1" "SHOW GLOBAL STATUS LIKE '$2'" 2>/dev/null | cut -f 2; }

gal_synced() { [[ $(gal_status "$1" wsrep_ready) == ON && $(gal_status "$1" wsrep_local_state_comment) == Synced ]]; }

# gal_launch N [ARGS...]: starts node N in the background (ARGS added, e.g. --wsrep-new-cluster);
# sets pid. 0 once it answers SQL as the process its pid file names (not another server on
# the port) and is Synced; 1 if it stops or takes longer than DG_GAL_JOIN_TIMEOUT (180 s: an
# SST copies the whole data directory).
gal_launch() {
    local n=$1 dir deadline
    shift
    dir=$(env_get DG_GAL_DIR)/n$n
    mariadbd --defaults-file="$dir/my.cnf" "$@" >/dev/null 2>&1 &
    pid=$!
    deadline=$((SECONDS + ${DG_GAL_JOIN_TIMEOUT:-180}))
    while pid_alive "$pid" && ((SECONDS < deadline)); do
        if [[ $(cat "$dir/mariadbd.pid" 2>/dev/null) == "$pid" ]] && gal_synced "$n"; then
            return 0
        fi
        sleep 0.3
    done
    say "galera: node $n not ready; its log says:"
    tail -n 15 "$dir/mariadbd.log" >&2
    pid_alive "$pid" && { kill -TERM "$pid"; wait "$pid" 2>/dev/null; }
    return 1
}

# gal_ports: picks the ports of every node, records them and writes the nodes' my.cnf (again
# after a lost race).
gal_ports() {
    local client group n
    mapfile -t client < <(free_ports $GAL_NODES "$GAL_PORT_FIRST")
    mapfile -t group < <(free_ports $((3 * GAL_NODES)) "$GAL_GROUP_PORT_FIRST")
    ((${#client[@]} == GAL_NODES && ${#group[@]} == 3 * GAL_NODES)) || return 1
    for ((n = 1; n <= GAL_NODES; n++)); do
        env_set "DG_GAL_PORT$n" "${client[n - 1]}"
        env_set "DG_GAL_GCOMM_PORT$n" "${group[3 * (n - 1)]}"
        env_set "DG_GAL_IST_PORT$n" "${group[3 * (n - 1) + 1]}"
        env_set "DG_GAL_SST_PORT$n" "${group[3 * (n - 1) + 2]}"
    done
    for ((n = 1; n <= GAL_NODES; n++)); do gal_conf "$n"; done
}

# gal_join N: node N joins the running cluster by SST, three tries. Its ports were free when
# picked, but another server of ours can take one before the node (or its SST's rsync daemon)
# binds it: a failed try keeps its log (mariadbd.log.tryK), empties the half-copied data
# directory and takes new ports of its own (the others need not know them: a joiner reaches
# the group through node 1's address).
gal_join() {
    local n=$1 try dir client group
    dir=$(env_get DG_GAL_DIR)/n$n
    for try in 1 2 3; do
        gal_launch "$n" && return 0
        ((try < 3)) || break
        mv "$dir/mariadbd.log" "$dir/mariadbd.log.try$try" 2>/dev/null
        find "$dir/data" -mindepth 1 -delete 2>/dev/null
        mapfile -t client < <(free_ports 1 $((GAL_PORT_FIRST + 50 * try)))
        mapfile -t group < <(free_ports 3 $((GAL_GROUP_PORT_FIRST + 50 * try)))
        ((${#client[@]} == 1 && ${#group[@]} == 3)) || return 1
        env_set "DG_GAL_PORT$n" "${client[0]}"
        env_set "DG_GAL_GCOMM_PORT$n" "${group[0]}"
        env_set "DG_GAL_IST_PORT$n" "${group[1]}"
        env_set "DG_GAL_SST_PORT$n" "${group[2]}"
        gal_conf "$n"
        ((EUID == 0)) && chown -R mysql: "$dir"
        say "galera: node $n did not join (try $try, log kept as mariadbd.log.try$try); again on other ports"
    done
    return 1
}

gal_start() {
    local pid
    pid=$(env_get DG_GAL_PID1)
    if pid_alive "$pid"; then
        say "galera: already running (node 1 pid $pid); $ENV_FILE is current"
        return 0
    fi
    env_drop GAL # a stale record from a run that died
    need_packages /usr/sbin/mariadbd $MY_PACKAGES || return 1
    need_packages "$GAL_PROVIDER" galera-4 || return 1 # the wsrep provider (dpkg -L galera-4)
    need_packages /usr/bin/rsync rsync || return 1 # the SST method
    id mysql >/dev/null 2>&1 || { ((EUID != 0)) || die "galera: no 'mysql' user"; }

    local dir n
    dir=$(mktemp -d /tmp/dg-gal.XXXXXX) || return 1
    ((EUID == 0)) && chown mysql: "$dir"
    # From here on a failure must undo what was made: gal_stop reads what the env file holds.
    env_put DG_GAL_DIR "$dir"
    env_put DG_GAL_NAME "dg-${dir##*.}" # one name per cluster: no stray node of another joins
    for ((n = 1; n <= GAL_NODES; n++)); do
        mkdir -p "$dir/n$n/data" "$dir/n$n/tmp"
        env_put "DG_GAL_DATADIR$n" "$dir/n$n/data"
        env_put "DG_GAL_LOG$n" "$dir/n$n/mariadbd.log"
    done
    ((EUID == 0)) && chown -R mysql: "$dir"
    # Only node 1 gets system tables: the others receive everything by SST when they join.
    if ! mariadb-install-db --no-defaults --datadir="$dir/n1/data" --tmpdir="$dir/n1/tmp" --user=mysql \
        --auth-root-authentication-method=normal >"$dir/install-db.log" 2>&1; then
        cat "$dir/install-db.log" >&2
        gal_stop
        die "galera: mariadb-install-db failed"
    fi

    # Node 1 makes the cluster (--wsrep-new-cluster, once); a lost port race tries new ports.
    local tries=0 started=0
    while ((tries++ < 3)); do
        gal_ports || break
        if gal_launch 1 --wsrep-new-cluster; then
            started=1
            break
        fi
        say "galera: node 1 did not start, trying other ports"
    done
    ((started)) || { gal_stop; die "galera: could not bootstrap node 1 (log in $dir/n1/mariadbd.log)"; }
    env_put DG_GAL_PID1 "$pid"

    # The user and database, made once on node 1 before the others join: their SST copies them.
    if ! gal_sql 1 "DROP USER IF EXISTS ''@'localhost', ''@'$(hostname)';
        CREATE USER '$MY_USER_NAME'@'%' IDENTIFIED BY '$MY_PASSWORD';
        CREATE DATABASE dbgauge; GRANT ALL ON dbgauge.* TO '$MY_USER_NAME'@'%';
        GRANT PROCESS, RELOAD ON *.* TO '$MY_USER_NAME'@'%'"; then
        gal_stop
        die "galera: could not create the user and database"
    fi
    # One joiner at a time: a donor serves one SST at a time.
    for ((n = 2; n <= GAL_NODES; n++)); do
        gal_join "$n" || { gal_stop; die "galera: node $n did not join (logs in $dir/n$n/)"; }
        env_put "DG_GAL_PID$n" "$pid"
    done

    local urls=""
    for ((n = 1; n <= GAL_NODES; n++)); do
        env_put "DG_GAL_URL$n" "mysql://$MY_USER_NAME@127.0.0.1:$(env_get "DG_GAL_PORT$n")/dbgauge"
        env_put "DG_GAL_ADMIN_URL$n" "mysql://root@127.0.0.1:$(env_get "DG_GAL_PORT$n")/mysql"
        urls+="${urls:+ }$(env_get "DG_GAL_URL$n")"
    done
    env_put DG_GAL_URLS "$urls"
    env_put DG_GAL_PASSWORD "$MY_PASSWORD"
    say "galera: $GAL_NODES nodes on 127.0.0.1:$(env_get DG_GAL_PORT1),$(env_get DG_GAL_PORT2),$(env_get DG_GAL_PORT3)," \
        "cluster size $(gal_status 1 wsrep_cluster_size), data in $dir"
}

# gal_node_stop N: SIGTERM (a clean leave), SIGKILL after 60 s; only a mariadbd we started.
gal_node_stop() {
    local n=$1 pid
    pid=$(env_get "DG_GAL_PID$n")
    pid_alive "$pid" && [[ $(cat "/proc/$pid/comm" 2>/dev/null) == mariadbd ]] || return 0
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 1 300); do pid_alive "$pid" || break; sleep 0.2; done
    pid_alive "$pid" && kill -KILL "$pid" 2>/dev/null
    say "galera: node $n stopped (pid $pid)"
}

gal_stop() {
    local dir n p
    dir=$(env_get DG_GAL_DIR)
    if [[ -z $dir ]]; then
        say "galera: nothing recorded in $ENV_FILE"
        return 0
    fi
    for ((n = GAL_NODES; n >= 1; n--)); do gal_node_stop "$n"; done
    # An SST cut short (a node killed while it gave or took one) leaves its rsync daemon and
    # script behind: processes of the server's user that name our directory on their command line.
    local owner=mysql
    ((EUID == 0)) || owner=$(id -un)
    if [[ $dir == /tmp/dg-gal.* ]]; then
        for p in /proc/[0-9]*; do
            [[ $(stat -c %U "$p" 2>/dev/null) == "$owner" && $(cmdline_of "${p#/proc/}") == *"$dir/"* ]] &&
                kill -KILL "${p#/proc/}" 2>/dev/null
        done
    fi
    # Only ever remove a directory this script made.
    if [[ -d $dir && $dir == /tmp/dg-gal.* ]]; then
        rm -rf -- "$dir"
    fi
    env_drop GAL
    say "galera: stopped"
}

gal_node() { # gal_node N: N when it is a node number, else dies
    [[ ${1:-} =~ ^[1-9]$ ]] && (($1 <= GAL_NODES)) || die "galera: which node? (1..$GAL_NODES, not '${1:-}')"
    echo "$1"
}

# Kills one node (SIGKILL, as a crash would); the others go on as the primary component.
gal_crash() {
    local n pid
    n=$(gal_node "${1:-}") || exit 1
    pid=$(env_get "DG_GAL_PID$n")
    pid_alive "$pid" && [[ $(cat "/proc/$pid/comm" 2>/dev/null) == mariadbd ]] ||
        die "galera: node $n is not running (pid '$pid' in $ENV_FILE)"
    kill -KILL "$pid"
    for _ in $(seq 1 100); do pid_alive "$pid" || break; sleep 0.1; done
    say "galera: node $n crashed (pid $pid)"
}

# gal_position N: the last write set node N committed (uuid:seqno), or nothing. After a clean
# stop grastate.dat holds it; after a kill it says seqno -1 and the position is in InnoDB, where
# `mariadbd --wsrep-recover` finds it (what the system service's galera_recovery does).
# Without it a rejoining node asks for a whole copy (SST) instead of the writes it missed (IST).
gal_position() {
    local n=$1 dir
    dir=$(env_get DG_GAL_DIR)/n$n
    grep -q '^seqno: *-1' "$dir/data/grastate.dat" 2>/dev/null || return 0
    # the later --log-error and --pid-file win: the node's own log and pid file stay as they are
    mariadbd --defaults-file="$dir/my.cnf" --wsrep-recover --log-error="$dir/recover.log" \
        --pid-file="$dir/recover.pid" >/dev/null 2>&1
    sed -n 's/.*WSREP: Recovered position: *\([-0-9a-f]*:[0-9]*\).*/\1/p' "$dir/recover.log" | tail -n 1
}

# Starts a killed node again on its data and ports; it rejoins the running cluster and takes
# the writes it missed by IST from a donor's gcache (an SST when they are no longer there).
gal_revive() {
    local n port pos
    n=$(gal_node "${1:-}") || exit 1
    pid_alive "$(env_get "DG_GAL_PID$n")" && die "galera: node $n is running"
    port=$(env_get "DG_GAL_PORT$n")
    port_busy "$port" && die "galera: something already listens on 127.0.0.1:$port"
    pos=$(gal_position "$n")
    gal_launch "$n" ${pos:+--wsrep-start-position="$pos"} ||
        die "galera: node $n did not rejoin (log in $(env_get "DG_GAL_LOG$n"))"
    env_set "DG_GAL_PID$n" "$pid"
    say "galera: node $n rejoined, pid $pid, cluster size $(gal_status "$n" wsrep_cluster_size)"
}

gal_restart() { gal_crash "$@" && gal_revive "$@"; }

gal_status_all() {
    local n pid
    for ((n = 1; n <= GAL_NODES; n++)); do
        pid=$(env_get "DG_GAL_PID$n")
        [[ -n $pid ]] || continue
        if pid_alive "$pid"; then
            say "galera: node $n running (pid $pid, $(gal_status "$n" wsrep_local_state_comment), cluster size $(gal_status "$n" wsrep_cluster_size))"
        else
            say "galera: node $n dead (pid $pid)"
        fi
    done
}
