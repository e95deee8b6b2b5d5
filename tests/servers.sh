#!/usr/bin/env bash
# servers.sh — starts and stops throwaway database servers on 127.0.0.1 for the tests, and
# writes what the tests need (URLs, password, data dir, PID) to one env file they source.
# Must not touch the system's own clusters or services, nor stop any process it did not start.
#
#   tests/servers.sh start [pg|mariadb|all]  start (installs the package first when root and missing)
#   tests/servers.sh stop  [pg|mariadb|all]  stop by PID and remove the data directory, always
#   tests/servers.sh restart pg|mariadb      stop hard (pg_ctl -m immediate, SIGKILL) and start
#                                            again on the same port and data (an outage for tests)
#   tests/servers.sh crash|revive pg|mariadb the two halves of restart, for a --fault command
#   tests/servers.sh status
# Replicated servers (tests/servers-ha.sh), started and stopped only when named (`all` is pg
# and mariadb, as before):
#   tests/servers.sh start|stop pgrep        a PostgreSQL primary and DG_PGR_STANDBYS (1 or 2)
#                                            streaming standbys; DG_PGR_SYNC=on starts them
#                                            synchronous (synchronous_standby_names)
#   tests/servers.sh sync pgrep on|off|NAMES synchronous_standby_names on the primary
#   tests/servers.sh crash|revive|restart pgrep [primary|standby1|standby2]   (default primary)
#   tests/servers.sh promote pgrep [standby1|standby2]                         (default standby1)
#   tests/servers.sh walrcv-stop|walrcv-cont|walrcv-kill pgrep [standby1|standby2]  SIGSTOP/SIGCONT/SIGKILL its
#                                            walreceiver: the standby takes no more WAL
#   tests/servers.sh start|stop galera       a 3-node MariaDB Galera cluster
#   tests/servers.sh crash|revive|restart galera 1|2|3   SIGKILL a node; start it again (IST)
# The env file is tests/out/servers.env unless DG_SERVERS_ENV names another.
# DG_PG_LISTEN_EXTRA=198.18.0.1,198.18.0.5 (start pg): the server also listens on these addresses
# (only addresses inside 198.18.0.0/15, the benchmark range the namespace hosts of
# tests/hosts-ns.sh use; anything else is refused) and pg_hba lets 198.18.0.0/15 in with the
# same password authentication as 127.0.0.1.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ENV_FILE=${DG_SERVERS_ENV:-$ROOT/tests/out/servers.env}
PG_BIN=${DG_PG_BIN:-/usr/lib/postgresql/15/bin}
PG_PACKAGES="postgresql-15 postgresql-client-15"
PG_USER_NAME=dbgauge
PG_PASSWORD=dbgauge-secret
# Every port a test server takes is below the kernel's ephemeral range (32768-60999 here):
# a port in that range can be taken as the local end of any outgoing connection between the
# moment it is seen free and the moment the server binds it (CI saw a Galera node fail so).
# DG_PORT_BASE (default 20000) moves the whole set: tests/run.sh gives each of its lanes its
# own thousand, so lanes never look at the same ports.
PORT_BASE=${DG_PORT_BASE:-20000}
if ! [[ $PORT_BASE =~ ^[0-9]+$ ]] || ((PORT_BASE < 1024 || PORT_BASE + 1000 > 32768)); then
    printf 'servers.sh: DG_PORT_BASE=%s: want a number from 1024 to 31768\n' "$PORT_BASE" >&2
    exit 2
fi
PORT_FIRST=$PORT_BASE
MY_PACKAGES="mariadb-server mariadb-client"
MY_USER_NAME=dbgauge
MY_PASSWORD=dbgauge-secret
MY_PORT_FIRST=$((PORT_BASE + 100))

say() { printf 'servers.sh: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

# ---- env file: one block of `export DG_<TAG>_...` lines per server ------------------------

env_get() { # env_get NAME -> value from the env file, or nothing
    [[ -f $ENV_FILE ]] || return 0
    sed -n "s/^export $1=//p" "$ENV_FILE" | tail -n 1 | sed "s/^'\(.*\)'\$/\1/"
}

env_drop() { # env_drop TAG: removes the DG_<TAG>_ lines
    [[ -f $ENV_FILE ]] || return 0
    local tmp
    tmp=$(mktemp "$ENV_FILE.XXXXXX") || return 1
    grep -v "^export DG_$1_" "$ENV_FILE" >"$tmp" || true
    mv "$tmp" "$ENV_FILE"
    [[ -s $ENV_FILE ]] || rm -f "$ENV_FILE"
}

env_put() { # env_put NAME VALUE
    mkdir -p "$(dirname "$ENV_FILE")"
    printf "export %s='%s'\n" "$1" "$2" >>"$ENV_FILE"
}

env_set() { # env_set NAME VALUE: replaces NAME's line
    local tmp
    tmp=$(mktemp "$ENV_FILE.XXXXXX") || return 1
    grep -v "^export $1=" "$ENV_FILE" >"$tmp" || true
    mv "$tmp" "$ENV_FILE"
    env_put "$1" "$2"
}

# ---- helpers -------------------------------------------------------------------------------

port_busy() { # true when something listens on 127.0.0.1:$1
    if command -v ss >/dev/null 2>&1; then
        ss -Hltn "sport = :$1" 2>/dev/null | grep -q . && return 0
    fi
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

free_port() { # prints the first free port from $1 upward
    local p=$1
    while ((p < $1 + 200)); do
        port_busy "$p" || { echo "$p"; return 0; }
        ((p++))
    done
    return 1
}

pid_alive() { [[ -n ${1:-} ]] && kill -0 "$1" 2>/dev/null; }

# Runs a command as the service user when we are root (initdb and postgres refuse root).
as_user() {
    local user=$1
    shift
    if ((EUID == 0)); then runuser -u "$user" -- "$@"; else "$@"; fi
}

# has_file PATH: an executable, or a shared library (a .so is not executable)
has_file() { [[ -x $1 || ($1 == *.so && -e $1) ]]; }

# Installs Debian packages when root, or prints the exact command when not.
need_packages() { # need_packages CHECK_PATH PACKAGES...
    local check=$1
    shift
    has_file "$check" && return 0
    if ((EUID != 0)); then
        say "missing $check; install it with:"
        say "  sudo apt-get install -y --no-install-recommends $*"
        return 1
    fi
    say "installing $*"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y --no-install-recommends "$@" ||
        { apt-get update && apt-get install -y --no-install-recommends "$@"; } ||
        return 1
    has_file "$check"
}

# ---- PostgreSQL ----------------------------------------------------------------------------

pg_stop() {
    local dir pid data
    dir=$(env_get DG_PG_DIR)
    pid=$(env_get DG_PG_PID)
    data=$(env_get DG_PG_DATADIR)
    if [[ -z $dir && -z $pid ]]; then
        say "pg: nothing recorded in $ENV_FILE"
        return 0
    fi
    # A server started again outside pg_revive has its pid in postmaster.pid only.
    if ! pid_alive "$pid" && [[ -f $data/postmaster.pid ]]; then
        pid=$(head -n 1 "$data/postmaster.pid")
    fi
    if pid_alive "$pid"; then
        if [[ -n $data && -d $data ]]; then
            as_user postgres "$PG_BIN/pg_ctl" -D "$data" -m fast -w -t 30 stop >/dev/null 2>&1 || true
        fi
        # pg_ctl failed or the directory went away: stop the recorded postmaster itself.
        if pid_alive "$pid" && [[ $(cat "/proc/$pid/comm" 2>/dev/null) == postgres ]]; then
            kill -INT "$pid" 2>/dev/null || true
            for _ in $(seq 1 50); do pid_alive "$pid" || break; sleep 0.2; done
            pid_alive "$pid" && kill -KILL "$pid" 2>/dev/null
        fi
    fi
    # Only ever remove a directory this script made.
    if [[ -n $dir && -d $dir && $dir == /tmp/dg-pg.* ]]; then
        rm -rf -- "$dir"
    fi
    env_drop PG
    say "pg: stopped${pid:+ (pid $pid)}"
}

# in_bench_range ADDR: true for a dotted IPv4 address inside 198.18.0.0/15
in_bench_range() {
    local IFS=. o
    # shellcheck disable=SC2206
    local -a q=($1)
    [[ $1 =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}$ && ${#q[@]} == 4 ]] || return 1
    for o in "${q[@]}"; do ((10#$o <= 255)) || return 1; done
    ((10#${q[0]} == 198 && (10#${q[1]} == 18 || 10#${q[1]} == 19)))
}

# pg_listen: the listen_addresses value: 127.0.0.1 and DG_PG_LISTEN_EXTRA's addresses, each
# checked to be inside 198.18.0.0/15 (fails naming the first that is not).
pg_listen() {
    local out=127.0.0.1 a
    local IFS=,
    for a in ${DG_PG_LISTEN_EXTRA:-}; do
        a=${a// /}
        [[ -n $a ]] || continue
        if ! in_bench_range "$a"; then
            say "pg: DG_PG_LISTEN_EXTRA: '$a' is not an address inside 198.18.0.0/15 (the test hosts' range); refused"
            return 1
        fi
        out+=",$a"
    done
    echo "$out"
}

pg_start() {
    local pid listen
    pid=$(env_get DG_PG_PID)
    if pid_alive "$pid"; then
        say "pg: already running (pid $pid); $ENV_FILE is current"
        return 0
    fi
    env_drop PG # a stale record from a run that died
    listen=$(pg_listen) || return 1
    need_packages "$PG_BIN/initdb" $PG_PACKAGES || return 1
    id postgres >/dev/null 2>&1 || { ((EUID != 0)) || die "pg: no 'postgres' user"; }

    local dir data log port
    dir=$(mktemp -d /tmp/dg-pg.XXXXXX) || return 1
    data=$dir/data
    log=$dir/postgres.log
    ((EUID == 0)) && chown postgres: "$dir"
    # From here on a failure must undo what was made.
    env_put DG_PG_DIR "$dir"
    env_put DG_PG_DATADIR "$data"

    if ! as_user postgres "$PG_BIN/initdb" -D "$data" -U postgres -E UTF8 --no-locale \
        --auth-local=trust --auth-host=scram-sha-256 >"$dir/initdb.log" 2>&1; then
        cat "$dir/initdb.log" >&2
        pg_stop
        die "pg: initdb failed"
    fi
    # the namespace hosts reach the server over their veth: the password as from 127.0.0.1
    if [[ $listen != 127.0.0.1 ]]; then
        echo "host all all 198.18.0.0/15 scram-sha-256" | as_user postgres tee -a "$data/pg_hba.conf" >/dev/null
    fi

    local tries=0 started=0
    while ((tries++ < 5)); do
        port=$(free_port $((PORT_FIRST + 10 * (tries - 1)))) || break
        # the last setting wins: rewrite ours at each attempt
        {
            echo "# dbgauge test server"
            echo "listen_addresses = '$listen'"
            echo "port = $port"
            echo "unix_socket_directories = '$data'"
            echo "password_encryption = 'scram-sha-256'"
            echo "max_connections = 100"
        } | as_user postgres tee "$data/dbgauge.conf" >/dev/null
        grep -q "^include = 'dbgauge.conf'" "$data/postgresql.conf" ||
            echo "include = 'dbgauge.conf'" | as_user postgres tee -a "$data/postgresql.conf" >/dev/null
        local before=0
        [[ -f $log ]] && before=$(wc -l <"$log")
        if as_user postgres "$PG_BIN/pg_ctl" -D "$data" -l "$log" -w -t 60 start >/dev/null 2>&1; then
            # With several listen addresses the postmaster starts when one of them binds: a
            # port taken on 127.0.0.1 since free_port looked would leave our clients talking
            # to whoever took it. Every address must be ours.
            if ! tail -n +$((before + 1)) "$log" | grep -q 'could not bind\|could not create listen socket'; then
                started=1
                break
            fi
            as_user postgres "$PG_BIN/pg_ctl" -D "$data" -m immediate -w -t 30 stop >/dev/null 2>&1
        fi
        say "pg: start on port $port failed, trying another"
        tail -n 5 "$log" >&2
    done
    if ((!started)); then
        pg_stop
        die "pg: could not start the server (log was in $log)"
    fi
    pid=$(head -n 1 "$data/postmaster.pid")
    env_put DG_PG_PID "$pid"
    env_put DG_PG_PORT "$port"
    env_put DG_PG_LISTEN "$listen"

    local psql=("$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$data" -p "$port" -U postgres -d postgres)
    if ! as_user postgres "${psql[@]}" -c "CREATE ROLE $PG_USER_NAME LOGIN PASSWORD '$PG_PASSWORD'" ||
        ! as_user postgres "${psql[@]}" -c "CREATE DATABASE dbgauge OWNER $PG_USER_NAME"; then
        pg_stop
        die "pg: could not create the role and database"
    fi
    env_put DG_PG_URL "postgres://$PG_USER_NAME@127.0.0.1:$port/dbgauge"
    env_put DG_PG_PASSWORD "$PG_PASSWORD"
    # superuser over the unix socket (trust), for tests that need ALTER SYSTEM
    env_put DG_PG_ADMIN_URL "postgresql:///postgres?host=$data&port=$port&user=postgres"
    say "pg: PostgreSQL $("$PG_BIN/postgres" -V | awk '{print $3}') on ${listen//,/ and }:$port, pid $pid, data $data"
}

# Stops the recorded server at once (no checkpoint, as a power cut would).
pg_crash() {
    local pid data
    pid=$(env_get DG_PG_PID)
    data=$(env_get DG_PG_DATADIR)
    pid_alive "$pid" || die "pg: no running server recorded in $ENV_FILE"
    as_user postgres "$PG_BIN/pg_ctl" -D "$data" -m immediate -w -t 30 stop >/dev/null 2>&1 ||
        die "pg: pg_ctl stop failed"
    say "pg: crashed (pid $pid)"
}

# Starts the recorded server again on its data and port (after pg_crash).
pg_revive() {
    local pid data dir
    data=$(env_get DG_PG_DATADIR)
    dir=$(env_get DG_PG_DIR)
    as_user postgres "$PG_BIN/pg_ctl" -D "$data" -l "$dir/postgres.log" -w -t 60 start >/dev/null 2>&1 ||
        die "pg: pg_ctl start failed (log in $dir/postgres.log)"
    pid=$(head -n 1 "$data/postmaster.pid")
    env_set DG_PG_PID "$pid"
    say "pg: started again, pid $pid"
}

pg_restart() { pg_crash && pg_revive; }

# ---- MariaDB -------------------------------------------------------------------------------

# Starts mariadbd on dir's data and port $2 in the background; sets pid and returns 0 once it
# answers, 1 (the process stopped) when it does not.
my_launch() {
    local dir=$1 port=$2 ready=0
    # small buffer pool and redo log for a 2-core test box; performance_schema on (about
    # 0.2 s and 80 MB more at start) so tests can tell dbgauge's connections apart by their
    # program_name attribute, as PostgreSQL's application_name does
    mariadbd --no-defaults --datadir="$dir/data" --tmpdir="$dir/tmp" --user=mysql --bind-address=127.0.0.1 \
        --port="$port" --socket="$dir/sock" --pid-file="$dir/mariadbd.pid" --local-infile=1 \
        --innodb-buffer-pool-size=256M --innodb-log-file-size=64M --performance-schema=ON \
        --innodb-flush-log-at-trx-commit=2 --max-connections=200 \
        --log-error="$dir/mariadbd.log" >/dev/null 2>&1 &
    pid=$!
    # Ready when it answers and its pid file names it: not another server on the same port.
    for _ in $(seq 1 150); do
        pid_alive "$pid" || break
        if [[ $(cat "$dir/mariadbd.pid" 2>/dev/null) == "$pid" ]] &&
            env -u MYSQL_PWD mariadb -h127.0.0.1 -P"$port" -uroot -e 'select 1' >/dev/null 2>&1; then
            ready=1
            break
        fi
        sleep 0.2
    done
    ((ready)) && return 0
    pid_alive "$pid" && { kill -TERM "$pid"; wait "$pid" 2>/dev/null; }
    return 1
}

# Kills the recorded server (SIGKILL, as a crash would).
my_crash() {
    local pid
    pid=$(env_get DG_MY_PID)
    pid_alive "$pid" && [[ $(cat "/proc/$pid/comm" 2>/dev/null) == mariadbd ]] ||
        die "mariadb: no running server recorded in $ENV_FILE"
    kill -KILL "$pid"
    for _ in $(seq 1 100); do pid_alive "$pid" || break; sleep 0.1; done
    say "mariadb: crashed (pid $pid)"
}

# Starts the recorded server again on its data and port (after my_crash).
my_revive() {
    local pid dir port
    dir=$(env_get DG_MY_DIR)
    port=$(env_get DG_MY_PORT)
    port_busy "$port" && die "mariadb: something already listens on 127.0.0.1:$port"
    my_launch "$dir" "$port" || die "mariadb: start on port $port failed (log in $dir/mariadbd.log)"
    env_set DG_MY_PID "$pid"
    say "mariadb: started again, pid $pid"
}

my_restart() { my_crash && my_revive; }

my_stop() {
    local dir pid
    dir=$(env_get DG_MY_DIR)
    pid=$(env_get DG_MY_PID)
    if [[ -z $dir && -z $pid ]]; then
        say "mariadb: nothing recorded in $ENV_FILE"
        return 0
    fi
    # Stop the recorded server itself, by PID; only a mariadbd we started.
    if pid_alive "$pid" && [[ $(cat "/proc/$pid/comm" 2>/dev/null) == mariadbd ]]; then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 1 100); do pid_alive "$pid" || break; sleep 0.2; done
        pid_alive "$pid" && kill -KILL "$pid" 2>/dev/null
    fi
    # Only ever remove a directory this script made.
    if [[ -n $dir && -d $dir && $dir == /tmp/dg-my.* ]]; then
        rm -rf -- "$dir"
    fi
    env_drop MY
    say "mariadb: stopped${pid:+ (pid $pid)}"
}

my_start() {
    local pid
    pid=$(env_get DG_MY_PID)
    if pid_alive "$pid"; then
        say "mariadb: already running (pid $pid); $ENV_FILE is current"
        return 0
    fi
    env_drop MY # a stale record from a run that died
    need_packages /usr/sbin/mariadbd $MY_PACKAGES || return 1
    id mysql >/dev/null 2>&1 || { ((EUID != 0)) || die "mariadb: no 'mysql' user"; }

    local dir data log port
    dir=$(mktemp -d /tmp/dg-my.XXXXXX) || return 1
    data=$dir/data
    log=$dir/mariadbd.log
    # Each server's own tmpdir: a mariadbd that starts deletes every #sql file in its tmpdir,
    # and in a shared /tmp those of another server's mariadb-install-db were its system tables
    # in the making (two lanes starting at once: "Unknown table 'mysql.tmp_user_sys'")
    mkdir -p "$dir/tmp"
    ((EUID == 0)) && chown mysql: "$dir" "$dir/tmp"
    # From here on a failure must undo what was made.
    env_put DG_MY_DIR "$dir"
    env_put DG_MY_DATADIR "$data"

    if ! mariadb-install-db --no-defaults --datadir="$data" --tmpdir="$dir/tmp" --user=mysql \
        --auth-root-authentication-method=normal >"$dir/install-db.log" 2>&1; then
        cat "$dir/install-db.log" >&2
        my_stop
        die "mariadb: mariadb-install-db failed"
    fi

    local tries=0 started=0
    while ((tries++ < 5)); do
        port=$(free_port $((MY_PORT_FIRST + 10 * (tries - 1)))) || break
        if my_launch "$dir" "$port"; then
            started=1
            break
        fi
        say "mariadb: start on port $port failed, trying another"
        tail -n 5 "$log" >&2
    done
    if ((!started)); then
        my_stop
        die "mariadb: could not start the server (log was in $log)"
    fi
    env_put DG_MY_PID "$pid"
    env_put DG_MY_PORT "$port"

    # the anonymous accounts mariadb-install-db makes would shadow ours from localhost
    if ! env -u MYSQL_PWD mariadb -h127.0.0.1 -P"$port" -uroot -e "DROP USER IF EXISTS ''@'localhost', ''@'$(hostname)';
        CREATE USER '$MY_USER_NAME'@'%' IDENTIFIED BY '$MY_PASSWORD';
        CREATE DATABASE dbgauge; GRANT ALL ON dbgauge.* TO '$MY_USER_NAME'@'%';
        GRANT PROCESS, RELOAD ON *.* TO '$MY_USER_NAME'@'%'"; then
        my_stop
        die "mariadb: could not create the user and database"
    fi
    env_put DG_MY_URL "mysql://$MY_USER_NAME@127.0.0.1:$port/dbgauge"
    env_put DG_MY_PASSWORD "$MY_PASSWORD"
    # root without a password over TCP, for tests that need SET GLOBAL
    env_put DG_MY_ADMIN_URL "mysql://root@127.0.0.1:$port/mysql"
    say "mariadb: $(mariadbd --version | awk '{print $3}') on 127.0.0.1:$port, pid $pid, data $data"
}

# the replicated servers: pgr_* and gal_*
# shellcheck source=tests/servers-ha.sh
. "$ROOT/tests/servers-ha.sh"

# ---- dispatch ------------------------------------------------------------------------------

servers_for() {
    case ${1:-all} in
    pg | postgres | postgresql) echo pg ;;
    my | mariadb | mysql) echo my ;;
    pgrep | pg-standby | pgr) echo pgr ;;
    galera | gal) echo gal ;;
    all) echo pg my ;;
    *) die "unknown server '$1' (known: pg, mariadb, pgrep, galera)" ;;
    esac
}

usage() {
    echo "usage: $0 start|stop [pg|mariadb|pgrep|galera|all] | restart|crash|revive pg|mariadb" >&2
    echo "       $0 restart|crash|revive pgrep [primary|standby1|standby2] | promote pgrep [standby1|standby2]" >&2
    echo "       $0 sync pgrep on|off|NAMES | walrcv-stop|walrcv-cont|walrcv-kill pgrep [standby1|standby2]" >&2
    echo "       $0 restart|crash|revive galera 1|2|3 | status" >&2
    exit 2
}

cmd=${1:-}
case $cmd in
start)
    list=$(servers_for "${2:-all}") || exit 2 # (servers_for dies in its subshell only)
    for s in $list; do "${s}_start" || exit 1; done
    say "env: source $ENV_FILE"
    ;;
stop)
    list=$(servers_for "${2:-all}") || exit 2
    rc=0
    for s in $list; do "${s}_stop" || rc=1; done
    exit $rc
    ;;
restart | crash | revive)
    case $(servers_for "${2:-}") in
    pg) "pg_$cmd" ;;
    my) "my_$cmd" ;;
    pgr) "pgr_$cmd" "${3:-primary}" ;;
    gal) "gal_$cmd" "${3:-}" ;;
    *) die "$cmd takes one server: pg, mariadb, pgrep MEMBER or galera NODE" ;;
    esac
    ;;
promote | sync | walrcv-stop | walrcv-cont | walrcv-kill)
    [[ $(servers_for "${2:-}") == pgr ]] || die "$cmd is for pgrep only"
    case $cmd in
    promote) pgr_promote "${3:-standby1}" ;;
    sync) pgr_sync "${3:-on}" ;;
    walrcv-stop) pgr_walrcv stop "${3:-standby1}" ;;
    walrcv-cont) pgr_walrcv cont "${3:-standby1}" ;;
    walrcv-kill) pgr_walrcv kill "${3:-standby1}" ;;
    esac
    ;;
status)
    [[ -f $ENV_FILE ]] || { say "no servers recorded ($ENV_FILE)"; exit 0; }
    grep -v PASSWORD "$ENV_FILE"
    pid=$(env_get DG_PG_PID)
    [[ -n $pid ]] && { pid_alive "$pid" && say "pg: running (pid $pid)" || say "pg: dead (pid $pid)"; }
    pid=$(env_get DG_MY_PID)
    [[ -n $pid ]] && { pid_alive "$pid" && say "mariadb: running (pid $pid)" || say "mariadb: dead (pid $pid)"; }
    pgr_status
    gal_status_all
    exit 0
    ;;
*)
    usage
    ;;
esac
