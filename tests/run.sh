#!/usr/bin/env bash
# run.sh — the one test command: builds dbgauge, starts the test servers, runs the unit
# tests, the driver conformance suite on every engine built and the end-to-end scripts, then
# stops the servers and prints `N passed, N failed`. Exit 0 only if nothing failed.
#   tests/run.sh [--sanitize | --tsan] [--quick] [--no-pg] [--no-my] [--only NAME]
# --tsan: ThreadSanitizer build (build-tsan), the suites that need no server (see tsan_suite).
# --quick: the unit tests, every conformance suite and the command line end-to-end script:
#   what tests/check.sh runs on the release build before the whole suite under ASan.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
args=("$@") # for a re-exec without address randomisation (--tsan, below)

sanitize=0
tsan=0
quick=0
use_pg=1
use_my=1
only=""
while [[ $# -gt 0 ]]; do
    case $1 in
    --sanitize) sanitize=1 ;;
    --tsan) tsan=1 ;;
    --quick) quick=1 ;;
    --no-pg) use_pg=0 ;;
    --no-my) use_my=0 ;;
    --only) only=$2; shift ;;
    *) echo "usage: tests/run.sh [--sanitize | --tsan] [--quick] [--no-pg] [--no-my] [--only NAME]" >&2; exit 2 ;;
    esac
    shift
done
if [[ $sanitize == 1 && $tsan == 1 ]]; then
    echo "tests/run.sh: --sanitize and --tsan build apart (ASan and TSan cannot share a binary); run one, then the other" >&2
    exit 2
fi
# --tsan runs what needs no server: it implies --no-pg --no-my
[[ $tsan == 1 ]] && use_pg=0 use_my=0
OUT=$ROOT/tests/out

scripts/deps.sh test || exit 1
werror=-Dwerror=true
if [[ $sanitize == 1 ]]; then
    BUILD=$ROOT/build-asan
    opts="-Db_sanitize=address,undefined -Dbuildtype=debugoptimized -Db_lundef=false"
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
elif [[ $tsan == 1 ]]; then
    # gcc's ThreadSanitizer (libtsan2 comes with gcc on Debian 12). Open MPI stays linked, as
    # in the plain build: it is quiet unless mpirun starts the process (tests/tsan.supp).
    BUILD=$ROOT/build-tsan
    opts="-Db_sanitize=thread -Dbuildtype=debugoptimized -Db_lundef=false"
    # Each report goes to its own file (log_path.PID), so run_suite sees a race in any process
    # a suite starts, even one whose exit status the suite ignores; halt_on_error ends that
    # process at its first report (exit 66).
    TSAN_DIR=$OUT/tsan
    rm -rf "$TSAN_DIR"
    mkdir -p "$TSAN_DIR"
    export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$ROOT/tests/tsan.supp log_path=$TSAN_DIR/report"
else
    BUILD=$ROOT/build
    opts="-Dbuildtype=release" # as `make` builds it: the binary users run
fi
build_start=$SECONDS
if [[ ! -f $BUILD/build.ninja ]]; then
    meson setup "$BUILD" $werror $opts >/dev/null || { echo "not ok - build: meson setup failed"; echo "0 passed, 1 failed"; exit 1; }
fi
if ! ninja -C "$BUILD" >"$ROOT/tests/out.build.log" 2>&1; then
    cat "$ROOT/tests/out.build.log"
    echo "not ok - build: ninja failed"
    echo "0 passed, 1 failed"
    exit 1
fi
echo "# build ($(basename "$BUILD"), setup and ninja): $((SECONDS - build_start)) s"
export DG_BIN=$BUILD/dbgauge
if [[ $tsan == 1 ]]; then
    # gcc 12's TSan maps its shadow at fixed addresses and dies at start ("FATAL:
    # ThreadSanitizer: unexpected memory mapping") where the kernel randomises mmap with more
    # bits than it allows for (seen with vm.mmap_rnd_bits 32; 28 runs). Then the whole suite
    # runs again under `setarch -R` (no address randomisation for this process and all it
    # starts; nothing changes system-wide, unlike lowering the sysctl).
    probe=$(TSAN_OPTIONS= "$DG_BIN" --version 2>&1 >/dev/null)
    if [[ $probe == *ThreadSanitizer* ]]; then
        if [[ -z ${DG_TSAN_NO_ASLR:-} ]] && setarch "$(uname -m)" -R true 2>/dev/null; then
            echo "# tsan: $(head -n 1 <<<"$probe") (vm.mmap_rnd_bits $(cat /proc/sys/vm/mmap_rnd_bits 2>/dev/null)): again under setarch -R"
            DG_TSAN_NO_ASLR=1 exec setarch "$(uname -m)" -R bash "$ROOT/tests/run.sh" "${args[@]}"
        fi
        echo "not ok - tsan: ThreadSanitizer cannot start here: $(head -n 1 <<<"$probe") (as root: sysctl -w vm.mmap_rnd_bits=28)"
        echo "0 passed, 1 failed"
        exit 1
    fi
fi
# e2e scripts that cover several engines leave out the ones turned off here
[[ $use_pg == 0 ]] && export DG_NO_PG=1
[[ $use_my == 0 ]] && export DG_NO_MY=1

mkdir -p "$OUT"
# One env file per run: a second run in the same checkout starts its own servers, and its
# exit trap stops only those (servers.sh stops what its env file lists).
export DG_SERVERS_ENV=$OUT/servers.$$.env
if [[ $use_pg == 1 ]]; then
    trap 'tests/servers.sh stop all >/dev/null 2>&1' EXIT
    if tests/servers.sh start pg >"$OUT/servers.log" 2>&1; then
        # shellcheck disable=SC1090
        . "$DG_SERVERS_ENV"
    else
        cat "$OUT/servers.log"
        echo "not ok - servers: PostgreSQL did not start"
    fi
fi
if [[ $use_my == 1 ]]; then
    trap 'tests/servers.sh stop all >/dev/null 2>&1' EXIT
    if tests/servers.sh start mariadb >"$OUT/servers-my.log" 2>&1; then
        # shellcheck disable=SC1090
        . "$DG_SERVERS_ENV"
    else
        cat "$OUT/servers-my.log"
        echo "not ok - servers: MariaDB did not start"
    fi
fi

passed=0
failed=0
# tsan_suite NAME: whether --tsan runs suite NAME: every unit test that starts a thread and
# the SQLite suites that drive the runner's threads (workers, reporter, monitor, the three load
# models, Ctrl-C, and the checkpoints the main thread keeps while the workers run, and --live's
# server threads reading what the reporter publishes). e2e/progress is left out: its
# runs sit in tmux panes, whose server outlives the suite's TSan report collection.
tsan_suite() {
    case $1 in
    # test_hist starts no thread, so TSan has nothing to find in it, and its million-sample
    # checks take about 57 s under TSan (3 s in the release build)
    unit/test_hist) return 1 ;;
    unit/* | conformance/sqlite | e2e/sqlite | e2e/loadmodels | e2e/stress | e2e/checkpoint | e2e/live) return 0 ;;
    esac
    return 1
}
# quick_suite NAME: whether --quick runs suite NAME
quick_suite() {
    case $1 in
    unit/* | conformance/* | e2e/cli) return 0 ;;
    esac
    return 1
}
# tsan_reports NAME: with --tsan, the reports written while suite NAME ran: moved to
# $TSAN_DIR/NAME/, the first shown; returns 1 when there was one.
tsan_reports() {
    [[ $tsan == 1 ]] || return 0
    local files=("$TSAN_DIR"/report.*)
    [[ -e ${files[0]} ]] || return 0
    local dir=$TSAN_DIR/${1//\//_}
    mkdir -p "$dir"
    mv "${files[@]}" "$dir/"
    echo "  not ok - $1: ThreadSanitizer reported in ${#files[@]} process(es) (tests/out/tsan/${1//\//_}/); the first:"
    head -n 40 "$dir/$(basename "${files[0]}")" | sed 's/^/    /'
    return 1
}
# run_suite NAME COMMAND...: runs a suite, shows its lines, adds its ok / not ok lines up.
run_suite() {
    local name=$1 log="$OUT/${1//\//_}.log"
    shift
    [[ -n $only && $name != *"$only"* ]] && return 0
    [[ $tsan == 1 ]] && ! tsan_suite "$name" && return 0
    [[ $quick == 1 ]] && ! quick_suite "$name" && return 0
    echo "# --- $name"
    local start=$SECONDS
    "$@" >"$log" 2>&1
    local rc=$?
    grep -E '^(ok|not ok|skip) - ' "$log" | sed 's/^/  /'
    local p f
    p=$(grep -c '^ok - ' "$log")
    f=$(grep -c '^not ok - ' "$log")
    p=${p:-0} f=${f:-0}
    tsan_reports "$name" || f=$((f + 1)) # a race fails the suite whatever its checks said
    if [[ $p == 0 && $f == 0 ]]; then
        echo "  not ok - $name: ran no check"
        f=1
    elif [[ $rc != 0 && $f == 0 ]]; then # a crash or an exit without a `not ok` line
        echo "  not ok - $name: exited $rc; last lines:"
        tail -n 15 "$log" | sed 's/^/    /'
        f=1
    fi
    echo "# $name: $p passed, $f failed ($((SECONDS - start)) s)"
    passed=$((passed + p))
    failed=$((failed + f))
}

for t in "$BUILD"/tests/test_*; do
    [[ -f $t && -x $t && $(basename "$t") != test_conformance ]] || continue
    run_suite "unit/$(basename "$t")" "$t"
done
conf_db=$(mktemp -u /tmp/dg-conformance.XXXXXX.db)
run_suite conformance/sqlite "$BUILD/tests/test_conformance" "sqlite:$conf_db"
rm -f "$conf_db"*
if [[ $use_pg == 1 ]]; then
    if [[ -n ${DG_PG_URL:-} ]]; then
        # The password rides in the URL here so the suite also checks it never leaks.
        # DG_CONF_RESTART: the suite stops and starts the server once (a connection loss check)
        run_suite conformance/pgsql env DG_CONF_RESTART="tests/servers.sh restart pg" \
            "$BUILD/tests/test_conformance" "postgres://dbgauge:$DG_PG_PASSWORD@127.0.0.1:$DG_PG_PORT/dbgauge"
    else
        echo "not ok - conformance/pgsql: no PostgreSQL server"
        failed=$((failed + 1))
    fi
fi
if [[ $use_my == 1 ]]; then
    if [[ -n ${DG_MY_URL:-} ]]; then
        run_suite conformance/mysql env DG_CONF_RESTART="tests/servers.sh restart mariadb" \
            "$BUILD/tests/test_conformance" "mysql://dbgauge:$DG_MY_PASSWORD@127.0.0.1:$DG_MY_PORT/dbgauge"
    else
        echo "not ok - conformance/mysql: no MariaDB server"
        failed=$((failed + 1))
    fi
fi
# ODBC: the same suite through unixODBC's drivers (DSN-less strings naming the driver library).
odbc_so() { dpkg -L "$1" 2>/dev/null | grep -m1 "/$2\$"; }
if [[ $tsan == 1 ]]; then
    : # ODBC's suites need a server but for sqliteodbc's, and --tsan runs none of them
elif grep -q "DG_HAVE_ODBC 1" "$BUILD/dg_config.h" 2>/dev/null; then
    so=$(odbc_so libsqliteodbc libsqlite3odbc.so)
    conf_db=$(mktemp -u /tmp/dg-conformance-odbc.XXXXXX.db)
    run_suite conformance/odbc-sqlite "$BUILD/tests/test_conformance" "odbc:Driver=$so;Database=$conf_db;Timeout=2000"
    rm -f "$conf_db"*
    if [[ $use_pg == 1 && -n ${DG_PG_PORT:-} ]]; then
        so=$(odbc_so odbc-postgresql psqlodbcw.so)
        run_suite conformance/odbc-pgsql env DG_CONF_RESTART="tests/servers.sh restart pg" "$BUILD/tests/test_conformance" \
            "odbc:Driver=$so;Server=127.0.0.1;Port=$DG_PG_PORT;Database=dbgauge;UID=dbgauge;PWD=$DG_PG_PASSWORD"
    fi
    if [[ -n ${DG_MY_PORT:-} ]]; then
        so=$(odbc_so odbc-mariadb libmaodbc.so)
        run_suite conformance/odbc-mariadb env DG_CONF_RESTART="tests/servers.sh restart mariadb" "$BUILD/tests/test_conformance" \
            "odbc:Driver=$so;Server=127.0.0.1;Port=$DG_MY_PORT;Database=dbgauge;UID=dbgauge;PWD=${DG_MY_PASSWORD:-}"
    elif [[ -z $only || conformance/odbc-mariadb == *"$only"* ]]; then
        echo "not ok - conformance/odbc-mariadb: no MariaDB server (DG_MY_PORT unset)"
        failed=$((failed + 1))
    fi
elif [[ -z $only || conformance/odbc == *"$only"* ]]; then
    echo "not ok - conformance/odbc: the ODBC driver is not built (unixodbc-dev missing?)"
    failed=$((failed + 1))
fi
for s in tests/e2e/*.sh; do
    name=e2e/$(basename "$s" .sh)
    [[ $tsan == 1 ]] && ! tsan_suite "$name" && continue
    [[ $quick == 1 ]] && ! quick_suite "$name" && continue
    if [[ $use_pg == 0 && ($name == e2e/pgsql || $name == e2e/crash || $name == e2e/replication || $name == e2e/mpi_hosts) ]]; then
        echo "# $name: not run (--no-pg)"
        continue
    fi
    if [[ $use_my == 0 && ($name == e2e/mysql* || $name == e2e/crash || $name == e2e/galera) ]]; then
        echo "# $name: not run (--no-my)"
        continue
    fi
    # ha_servers starts servers of its own and limits tests both engines: each leaves out the
    # engines turned off here (DG_NO_PG, DG_NO_MY); with both off they would check nothing
    if [[ $use_pg == 0 && $use_my == 0 && ($name == e2e/ha_servers || $name == e2e/limits) ]]; then
        echo "# $name: not run (--no-pg --no-my)"
        continue
    fi
    run_suite "$name" bash "$s"
done

if [[ $passed == 0 && -z $only ]]; then
    echo "not ok - suite: no check passed at all"
    failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[[ $failed == 0 ]]
