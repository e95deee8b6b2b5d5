# shellcheck shell=bash
# suites.sh — what tests/run.sh knows of its suites (sourced by it, never run): which suites
# each flavor runs, which servers a suite needs, the command that runs it, each flavor's
# build and environment, and the order the pool takes them in. Knows nothing of lanes.
# Expects ROOT, POOL, use_pg, use_my and fuzz_secs from run.sh.

# shellcheck source=tests/fuzz/lib.sh
. "$ROOT/tests/fuzz/lib.sh" # DG_FUZZ_TARGETS, dg_fuzz_build

# unit_tests: every unit test program the build makes (tests/meson.build): each
# tests/unit/test_*.c but the conformance suite, and the fuzz targets' corpus replays
unit_tests() {
    local f t
    for f in "$ROOT"/tests/unit/test_*.c; do
        t=${f##*/}
        t=${t%.c}
        [[ $t == test_conformance ]] || echo "unit/$t"
    done
    for t in $DG_FUZZ_TARGETS; do echo "unit/test_fuzz_$t"; done
}

conformance_suites() {
    echo conformance/sqlite conformance/pgsql conformance/mysql
    echo conformance/odbc-sqlite conformance/odbc-pgsql conformance/odbc-mariadb
}

# e2e_suites: every end-to-end script but runner (tests/run.sh's own test: it runs the release
# build's pool, so only the release flavors run it)
e2e_suites() {
    local s
    for s in "$ROOT"/tests/e2e/*.sh; do
        s=${s##*/}
        [[ $s == runner.sh ]] || echo "e2e/${s%.sh}"
    done
}

# suites_of FLAVOR: the suites FLAVOR runs, one a line
suites_of() {
    case $1 in
    release) unit_tests; conformance_suites; e2e_suites; echo e2e/runner ;;
    asan) unit_tests; conformance_suites; e2e_suites ;;
    quick) unit_tests; conformance_suites; echo e2e/cli e2e/runner ;;
    # beside asan, which runs the unit tests and conformance suites too (measured: 95 s of a
    # 2-core pool's time for the same checks again)
    smoke) echo e2e/cli e2e/runner ;;
    # TSan: every unit test that starts a thread and the SQLite suites that drive the runner's
    # threads (workers, reporter, monitor, the three load models, Ctrl-C, checkpoints kept
    # while workers run, --live's server threads). test_hist starts no thread (and takes 57 s
    # under TSan); e2e/progress's runs sit in tmux panes, whose server outlives the suite's
    # report collection.
    tsan) unit_tests | grep -vx unit/test_hist
        echo conformance/sqlite e2e/sqlite e2e/loadmodels e2e/stress e2e/checkpoint e2e/live ;;
    fuzz) for t in $DG_FUZZ_TARGETS; do echo "fuzz/$t"; done; echo fuzz/self-check ;;
    # each against a dbgauge that does nothing: must fail (tests/can-fail.sh). Not layers (it
    # checks the source tree; its own bad tree shows it failing) nor ha_servers (it checks
    # tests/servers.sh's replicated servers, not dbgauge)
    can-fail) e2e_suites | grep -vx -e e2e/layers -e e2e/ha_servers ;;
    esac
}

# builds_of FLAVOR...: the builds those flavors need, the one with the most suites first
builds_of() {
    local f b
    for b in asan release tsan fuzz; do
        for f in "$@"; do
            [[ $(build_of "$f") == "$b" ]] && { echo "$b"; break; }
        done
    done
}

build_of() { case $1 in quick | smoke | can-fail) echo release ;; *) echo "$1" ;; esac; }

build_dir() {
    case $1 in
    release) echo "$ROOT/build" ;;
    asan) echo "$ROOT/build-asan" ;;
    tsan) echo "$ROOT/build-tsan" ;;
    fuzz) echo "${DG_FUZZ_BUILD:-$ROOT/build-fuzz}" ;;
    esac
}

# suite_turned_off SUITE: prints why SUITE does not run under --no-pg / --no-my, or fails.
# Suites that cover several engines leave out the ones turned off (DG_NO_PG, DG_NO_MY);
# these need the one turned off, or start servers of that engine themselves.
suite_turned_off() {
    if [[ $use_pg == 0 ]]; then
        case $1 in
        e2e/pgsql | e2e/crash | e2e/replication | e2e/mpi_hosts | e2e/failover | conformance/pgsql | conformance/odbc-pgsql)
            echo "--no-pg"; return 0 ;;
        esac
    fi
    if [[ $use_my == 0 ]]; then
        case $1 in
        e2e/mysql | e2e/mysql_experiment | e2e/crash | e2e/galera | conformance/mysql | conformance/odbc-mariadb)
            echo "--no-my"; return 0 ;;
        esac
    fi
    if [[ $use_pg == 0 && $use_my == 0 ]]; then
        case $1 in e2e/ha_servers | e2e/limits) echo "--no-pg --no-my"; return 0 ;; esac
    fi
    return 1
}

# suite_needs FLAVOR SUITE: the lane's servers SUITE uses (pg, my), those turned on. Suites
# that start servers of their own (failover, galera, ha_servers, replication, mpi_hosts) are
# not here; a suite missing here fails on its own need_server check, whatever lane it is in.
suite_needs() {
    local want=""
    [[ $1 == tsan || $1 == fuzz ]] && return 0 # TSan runs no server suite
    case $2 in
    conformance/pgsql | conformance/odbc-pgsql | e2e/pgsql | e2e/experiment | e2e/monitor | \
        e2e/report | e2e/stress | e2e/targets) want="pg" ;;
    conformance/mysql | conformance/odbc-mariadb | e2e/mysql | e2e/mysql_experiment | e2e/recipes) want="my" ;;
    e2e/audit | e2e/crash | e2e/limits | e2e/load | e2e/odbc | e2e/oltp) want="pg my" ;;
    esac
    [[ $use_pg == 0 ]] && want=${want//pg/}
    [[ $use_my == 0 ]] && want=${want//my/}
    echo $want
}

# WAITING_SUITES: suites whose time is mostly waiting, with little CPU of its own or of the
# servers it drives, and no check on how fast something happens: tests/lanes.sh's waiting
# lane takes these beside the busy lanes, so they run with two CPU-bound suites beside them.
# Measured with process accounting (every process, servers too), alone on the machine:
# ha_servers' replicated servers started, checked and stopped, 57 s for 14 s of CPU. Not
# test_outage (26 s for 1 s): its checks time the recovery after an outage, and beside two
# busy lanes under TSan one found no second back at 90% of the throughput before it. Not
# galera or replication: their clusters kept a core busy (221 CPU s in 228 s for the two).
# DG_WAITING_SUITES replaces the list (e2e/runner's own test).
WAITING_SUITES=${DG_WAITING_SUITES-e2e/ha_servers}

# BACKGROUND_SUITES: suites that keep a core busy but checks only what it computes, never
# how fast: no window whose figures it judges, no outage, no browser deadline, no wait that
# starvation could outlast (load's 60 s wait for its first marks is the longest). A waiting
# lane with no waiting suite left takes these and runs them at nice 10 (tests/lanes.sh
# job_nice), its servers too: they use the CPU the busy lanes leave while their suites wait
# (one CI: 2,200 of 3,000 CPU s used, make check 1,499 s), and take about a tenth of a core
# from the busy lanes' timed checks when those want both cores. The busy lanes take them too,
# at normal priority, when nothing else of theirs is ready. Not report or recipes (Chromium
# must draw a page within 10 s), not pgsql, mysql, oltp or sqlite (their windows' figures are
# judged). DG_BACKGROUND_SUITES replaces the list (e2e/runner's own test).
BACKGROUND_SUITES=${DG_BACKGROUND_SUITES-e2e/load e2e/odbc e2e/install e2e/audit e2e/targets e2e/experiment e2e/schema8 e2e/hostile_store e2e/cli}

# job_class JOB: sets J_CLASS to waits (WAITING_SUITES), background (BACKGROUND_SUITES) or
# busy; every job is busy in a pool without waiting lanes. A variable, not output: pop_job
# asks it of every line of the queue, and a fork each would cost.
job_class() {
    local j=${1%%#*}
    j=" ${j#*:} "
    if ((${POOL_WAIT_LANES:-0} == 0)); then J_CLASS=busy
    elif [[ " $WAITING_SUITES " == *"$j"* ]]; then J_CLASS=waits
    elif [[ " $BACKGROUND_SUITES " == *"$j"* ]]; then J_CLASS=background
    else J_CLASS=busy; fi
}

# by_expected_secs: the jobs on stdin (FLAVOR:SUITE, maybe #N), longest first by the seconds
# each took in the run tests/suite-times.tsv was taken from (a suite not there counts as long,
# so it starts early); one awk for them all
by_expected_secs() {
    awk 'NR == FNR { secs[$2] = $1; next }
         { j = $0; sub(/#[0-9]+$/, "", j); print ((j in secs) ? secs[j] : 300), $0 }' \
        "$ROOT/tests/suite-times.tsv" - | sort -k1,1nr -s | cut -d' ' -f2
}

# flavor_env FLAVOR JOBDIR: exports what FLAVOR's suites run with (in the job's subshell)
flavor_env() {
    local b
    b=$(build_dir "$(build_of "$1")")
    export DG_BIN=$b/dbgauge
    case $1 in
    asan)
        export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
        export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
        ;;
    tsan)
        # each report to a file of its own in the job's folder (log_path.PID), so a race in
        # any process the suite starts is seen, even one whose exit status it ignores;
        # halt_on_error ends that process at its first report (exit 66)
        mkdir -p "$2/tsan"
        export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$ROOT/tests/tsan.supp log_path=$2/tsan/report"
        export DG_NO_PG=1 DG_NO_MY=1
        ;;
    fuzz) export DG_FUZZ_PREBUILT=1 ;;
    esac
}

# odbc_so PACKAGE FILE: the driver library PACKAGE installs
odbc_so() { dpkg -L "$1" 2>/dev/null | grep -m1 "/$2\$"; }

# suite_cmd FLAVOR SUITE JOBDIR: sets CMD to the command that runs SUITE (in the job's
# subshell, after flavor_env and the lane's servers' variables); prints why and fails when
# it cannot be run.
suite_cmd() {
    local flavor=$1 suite=$2 dir=$3 b so
    b=$(build_dir "$(build_of "$flavor")")
    case $suite in
    unit/*) CMD=("$b/tests/${suite#unit/}") ;;
    conformance/sqlite) CMD=("$b/tests/test_conformance" "sqlite:$dir/conformance.db") ;;
    conformance/pgsql)
        # the password rides in the URL here so the suite also checks it never leaks;
        # DG_CONF_RESTART: the suite stops and starts the server once (a connection loss)
        CMD=(env "DG_CONF_RESTART=tests/servers.sh restart pg" "$b/tests/test_conformance"
            "postgres://dbgauge:$DG_PG_PASSWORD@127.0.0.1:$DG_PG_PORT/dbgauge") ;;
    conformance/mysql)
        CMD=(env "DG_CONF_RESTART=tests/servers.sh restart mariadb" "$b/tests/test_conformance"
            "mysql://dbgauge:$DG_MY_PASSWORD@127.0.0.1:$DG_MY_PORT/dbgauge") ;;
    conformance/odbc-*)
        # the same suite through unixODBC's drivers (DSN-less strings naming the library)
        grep -q "DG_HAVE_ODBC 1" "$b/dg_config.h" 2>/dev/null ||
            { echo "the ODBC driver is not built (unixodbc-dev missing?)"; return 1; }
        case $suite in
        conformance/odbc-sqlite)
            so=$(odbc_so libsqliteodbc libsqlite3odbc.so)
            CMD=("$b/tests/test_conformance" "odbc:Driver=$so;Database=$dir/conformance.db;Timeout=2000") ;;
        conformance/odbc-pgsql)
            so=$(odbc_so odbc-postgresql psqlodbcw.so)
            CMD=(env "DG_CONF_RESTART=tests/servers.sh restart pg" "$b/tests/test_conformance"
                "odbc:Driver=$so;Server=127.0.0.1;Port=$DG_PG_PORT;Database=dbgauge;UID=dbgauge;PWD=$DG_PG_PASSWORD") ;;
        conformance/odbc-mariadb)
            so=$(odbc_so odbc-mariadb libmaodbc.so)
            CMD=(env "DG_CONF_RESTART=tests/servers.sh restart mariadb" "$b/tests/test_conformance"
                "odbc:Driver=$so;Server=127.0.0.1;Port=$DG_MY_PORT;Database=dbgauge;UID=dbgauge;PWD=$DG_MY_PASSWORD") ;;
        esac ;;
    e2e/*) if [[ $flavor == can-fail ]]; then CMD=("$ROOT/tests/can-fail.sh" "$suite"); else CMD=(bash "$ROOT/tests/$suite.sh"); fi ;;
    fuzz/self-check) CMD=("$ROOT/tests/fuzz/smoke.sh" "$fuzz_secs" --self-check-only) ;;
    fuzz/*) CMD=("$ROOT/tests/fuzz/smoke.sh" "$fuzz_secs" --only "${suite#fuzz/}" --no-self-check) ;;
    *) echo "no such suite"; return 1 ;;
    esac
    # gcc 12's TSan dies at start where the kernel randomises mmap with more bits than it
    # allows for (the build job found out): such a suite runs without address randomisation,
    # for its processes only (nothing system-wide changes)
    if [[ $flavor == tsan && -e $POOL/tsan.setarch ]]; then
        CMD=(setarch "$(uname -m)" -R "${CMD[@]}")
    fi
    return 0
}

# build_run BUILD: builds BUILD (a job's body: prints ok / not ok lines)
build_run() {
    local b=$1 dir opts=() t0=$SECONDS
    dir=$(build_dir "$b")
    case $b in
    release) opts=(-Dbuildtype=release) ;; # as `make` builds it: the binary users run
    asan) opts=(-Db_sanitize=address,undefined -Dbuildtype=debugoptimized -Db_lundef=false) ;;
    # gcc's ThreadSanitizer (libtsan2 comes with gcc on Debian 12). Open MPI stays linked, as
    # in the plain build: it is quiet unless mpirun starts the process (tests/tsan.supp).
    tsan) opts=(-Db_sanitize=thread -Dbuildtype=debugoptimized -Db_lundef=false) ;;
    fuzz)
        if dg_fuzz_build; then echo "ok - build/fuzz: clang, libFuzzer, ASan + UBSan ($((SECONDS - t0)) s)"; return 0; fi
        echo "not ok - build/fuzz: see $DG_FUZZ_BUILD/fuzz-build.log"
        return 1 ;;
    esac
    if [[ ! -f $dir/build.ninja ]] && ! meson setup "$dir" -Dwerror=true "${opts[@]}"; then
        echo "not ok - build/$b: meson setup failed"
        return 1
    fi
    if ! ninja -C "$dir"; then
        echo "not ok - build/$b: ninja failed"
        return 1
    fi
    echo "ok - build/$b: meson setup and ninja, warnings as errors ($((SECONDS - t0)) s)"
    build_has_every_test "$b" "$dir" || return 1
    [[ $b == tsan ]] && tsan_probe "$dir"
    return 0
}

# build_has_every_test BUILD DIR: the unit test programs the build made are the ones the
# pool runs (a test added to meson.build but not found here would never run)
build_has_every_test() {
    local built want extra
    built=$(cd "$2/tests" && for t in test_*; do [[ -x $t && -f $t && $t != test_conformance ]] && echo "unit/$t"; done | sort)
    want=$(unit_tests | sort)
    extra=$(comm -23 <(echo "$built") <(echo "$want") | tr '\n' ' ')
    if [[ -n $extra ]]; then
        echo "not ok - build/$1: test programs the pool does not know: $extra(tests/suites.sh unit_tests)"
        return 1
    fi
    extra=$(comm -13 <(echo "$built") <(echo "$want") | tr '\n' ' ')
    if [[ -n $extra ]]; then
        echo "not ok - build/$1: no program for $extra"
        return 1
    fi
    echo "ok - build/$1: every unit test program is in the pool's list"
}

# tsan_probe DIR: whether TSan can start here; where it can only without address
# randomisation (gcc 12, vm.mmap_rnd_bits 32: "FATAL: ThreadSanitizer: unexpected memory
# mapping"), marks the pool so its suites run under setarch -R
tsan_probe() {
    local probe
    probe=$(TSAN_OPTIONS= "$1/dbgauge" --version 2>&1 >/dev/null)
    [[ $probe == *ThreadSanitizer* ]] || return 0
    if setarch "$(uname -m)" -R true 2>/dev/null &&
        [[ $(TSAN_OPTIONS= setarch "$(uname -m)" -R "$1/dbgauge" --version 2>&1 >/dev/null) != *ThreadSanitizer* ]]; then
        echo "# tsan: $(head -n 1 <<<"$probe") (vm.mmap_rnd_bits $(cat /proc/sys/vm/mmap_rnd_bits 2>/dev/null)): its suites run under setarch -R"
        : >"$POOL/tsan.setarch"
        return 0
    fi
    echo "not ok - build/tsan: ThreadSanitizer cannot start here: $(head -n 1 <<<"$probe") (as root: sysctl -w vm.mmap_rnd_bits=28)"
    return 1
}
