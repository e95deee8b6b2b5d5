# lib.sh — shared by the end-to-end test scripts: `ok`/`not ok` lines, assertions on exit
# codes, output and JSON, and a scratch directory removed at exit. Sourced, never run.
# Each script prints one line per check; tests/run.sh counts them.
set -uo pipefail
# `python3 ... | relay` counts in this shell: the last command of a pipeline runs here, not in
# a subshell whose counts would be lost (scripts run without job control, as lastpipe needs)
shopt -s lastpipe

DG_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DG=${DG_BIN:-$DG_ROOT/build/dbgauge}
T_PASSED=0
T_FAILED=0
# each test file works in its own temporary directory, removed at exit unless DG_KEEP_TMP is set
T_TMP=$(mktemp -d /tmp/dg-test.XXXXXX)
T_MEM=
# where a suite keeps what a person looks at afterwards (reports, screenshots): tests/out when
# run alone, the job's own folder in a pool (tests/lanes.sh), so two suites that write the same
# name (a flavor's and another's, a soak's repeats) never write one file at once
T_OUT=${DG_TEST_ARTIFACTS:-$DG_ROOT/tests/out}
mkdir -p "$T_OUT"
trap '[[ -n ${DG_KEEP_TMP:-} ]] || rm -rf "$T_TMP" ${T_MEM:+"$T_MEM"}' EXIT

# mem_tmp: sets T_MEM, a scratch directory in memory (tmpfs, /dev/shm) for a timing check on an
# embedded database: beside another job's disk writes the kernel holds back this one's writes
# (measured: SQLite at 100 arrivals/s on disk beside `dd conv=fsync` started 783 of 1,001 over
# 100 ms late; in /dev/shm, none). Falls back to T_TMP where /dev/shm is not writable.
mem_tmp() {
    [[ -n $T_MEM ]] || T_MEM=$(mktemp -d /dev/shm/dg-test.XXXXXX 2>/dev/null) || T_MEM=$(mktemp -d "$T_TMP/mem.XXXXXX")
}

ok() { echo "ok - $1"; T_PASSED=$((T_PASSED + 1)); }
not_ok() { echo "not ok - $1: $2"; T_FAILED=$((T_FAILED + 1)); }

# check NAME CONDITION-COMMAND... : passes when the command succeeds
check() {
    local name=$1
    shift
    if "$@"; then ok "$name"; else not_ok "$name" "failed: $*"; fi
}

# run_dg OUT ERR ARGS...: runs dbgauge, stdout to OUT, stderr to ERR; sets RC (and T_DG_ERR
# to ERR, for check_exit)
run_dg() {
    local out=$1 err=$2
    shift 2
    local t0=${EPOCHREALTIME/./}
    "$DG" "$@" >"$out" 2>"$err" </dev/null
    RC=$?
    T_DG_ERR=$err
    # DG_TEST_TIMES=FILE: each command's wall time (ms) and its first words, to find slow steps
    [[ -n ${DG_TEST_TIMES:-} ]] && echo "$(((${EPOCHREALTIME/./} - t0) / 1000)) ${BASH_SOURCE[1]##*/}:${BASH_LINENO[0]} $1 ${2:-}" >>"$DG_TEST_TIMES"
    return 0
}

# check_exit NAME WANT-RC: the last run_dg exited WANT-RC. A failure names the exit status and
# why dbgauge said it failed (its last "dbgauge ..." line on stderr, else the last line), so
# the summary at the end of a CI log tells what happened without the run's files.
check_exit() {
    [[ $RC == "$2" ]] && { ok "$1"; return; }
    local why
    why=$(grep -a '^dbgauge ' "${T_DG_ERR:-/dev/null}" 2>/dev/null | tail -n 1)
    [[ -n $why ]] || why=$(grep -av '^[[:space:]]*$' "${T_DG_ERR:-/dev/null}" 2>/dev/null | tail -n 1)
    not_ok "$1" "exit $RC, wanted $2; stderr: ${why:0:240}"
}

# expect_exit NAME WANT-RC ARGS...: dbgauge ARGS must exit WANT-RC; stderr kept in $T_TMP/last.err
expect_exit() {
    local name=$1 want=$2
    shift 2
    run_dg "$T_TMP/last.out" "$T_TMP/last.err" "$@"
    if [[ $RC == "$want" ]]; then ok "$name"; else
        not_ok "$name" "exit $RC, wanted $want; stderr: $(head -c 300 "$T_TMP/last.err")"
    fi
}

# expect_stderr NAME PATTERN: the last command's stderr matches the extended regex
expect_stderr() {
    if grep -Eq -- "$2" "$T_TMP/last.err"; then ok "$1"; else
        not_ok "$1" "stderr lacks /$2/: $(head -c 300 "$T_TMP/last.err")"
    fi
}

# jq_num FILE EXPR: a number from a JSON file (python3 is on every Debian machine we use)
# sum_field FILE FIELD: FIELD (dotted, e.g. retry_causes.deadlock) summed over the
# transaction types of a run's JSON document.
sum_field() {
    python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
def get(v):
    for k in sys.argv[2].split("."): v=v[k]
    return v
print(sum(get(v) for v in d["transactions"].values()))' "$1" "$2"
}

json_get() {
    python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    d=d[int(k)] if isinstance(d,list) else d[k]
print(d)' "$1" "$2"
}

# sqlite_fixture DB NAME ARGS...: DB is the SQLite file `dbgauge ARGS... --target sqlite:FILE`
# makes (a load, a prepare), for a suite whose subject is what runs on it, not how it was made.
# In a pool (DG_FIXTURES, made by tests/run.sh) the first suite to ask makes NAME once, under a
# lock the other lanes wait on, and every suite gets a copy of the file: a 1-warehouse TPC-C
# load is 3-4 s of CPU under ASan and about 10 under TSan (sixteen suites need one), a 1M-row
# stress table 4 s and 21 s. Alone, it is made in DB. 0 when DB is ready; the maker's stderr
# is in $T_TMP/fixture.err. The maker is the pool's release binary once built (a fixture is
# data: the sanitizers' time goes to what runs on it), else the suite's own.
sqlite_fixture() {
    local db=$1 name=$2 maker=$DG
    shift 2
    if [[ -z ${DG_FIXTURES:-} ]]; then
        "$DG" "$@" --target "sqlite:$db" >"$T_TMP/fixture.out" 2>"$T_TMP/fixture.err"
        return
    fi
    [[ -n ${DG_FIXTURE_MAKER:-} && -e $DG_FIXTURES/../built.release ]] && maker=$DG_FIXTURE_MAKER
    local f=$DG_FIXTURES/$name.db
    (
        flock 9 || exit 1
        [[ -s $f ]] && exit 0
        rm -f "$f.new"*
        # one that failed leaves no file behind: the next suite to ask tries again
        "$maker" "$@" --target "sqlite:$f.new" >"$T_TMP/fixture.out" 2>"$T_TMP/fixture.err" &&
            [[ ! -e $f.new-wal ]] && mv "$f.new" "$f"
    ) 9>"$f.lock" && cp "$f" "$db"
}

# sqlite_tpcc DB [W [SEED]]: DB holds a complete `tpcc load` of W warehouses (default 1) with
# SEED (default 1); e2e/load, e2e/sqlite and e2e/progress load for themselves.
sqlite_tpcc() {
    local w=${2:-1} seed=${3:-1}
    sqlite_fixture "$1" "tpcc-w$w-s$seed" tpcc load --warehouses "$w" --seed "$seed" --progress=none
}

# wait_for SECONDS COMMAND...: polls COMMAND every 0.2 s until it succeeds; 1 on timeout.
wait_for() {
    local deadline=$((SECONDS + $1))
    shift
    until "$@"; do
        ((SECONDS < deadline)) || return 1
        sleep 0.2
    done
}

# num_cmp NAME A OP B: numeric comparison with awk (OP one of < <= == >= > !=)
num_cmp() {
    if awk -v a="$2" -v b="$4" "BEGIN { exit !(a $3 b) }"; then ok "$1"; else
        not_ok "$1" "$2 $3 $4 is false"
    fi
}

# need_server VAR NAME WHAT: sources the harness's env file (tests/servers.sh) unless VAR is
# set already; when VAR is still unset, says `not ok - NAME: WHAT (VAR unset)` and exits 1:
# a script that needs a server never skips silently.
need_server() {
    local env=${DG_SERVERS_ENV:-$DG_ROOT/tests/out/servers.env}
    # shellcheck disable=SC1090
    [[ -z ${!1:-} && -f $env ]] && . "$env"
    [[ -n ${!1:-} ]] && return 0
    not_ok "$2" "$3 ($1 unset)"
    finish
    exit 1
}

# relay: turns `ok - ...` / `not ok - ...` lines on stdin (from a python check) into checks
relay() { while read -r l; do case $l in "ok - "*) ok "${l#ok - }" ;; *) not_ok "${l#not ok - }" "" ;; esac; done; }

# mpi_rank_pid PATTERN RANK: the pid of a process whose command line matches PATTERN (pgrep -f)
# and whose environment says it is Open MPI rank RANK
mpi_rank_pid() {
    local p
    for p in $(pgrep -f "$1"); do
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2" && { echo "$p"; return 0; }
    done
    return 1
}

# mpi_env: what every test under mpirun needs: root allowed (the CI runs as root), no X probe
# by hwloc, TCP only over the loopback (a test that makes hosts names its own networks after
# this). In the sanitizer build LeakSanitizer needs whole stacks to tell the memory Open MPI
# keeps until exit (tests/lsan-mpi.supp) from dbgauge's: the slow unwinder, 5 times slower.
# So ranks run with leak detection off, and a test puts `with_mpi_leaks` before the runs
# whose leaks it checks (ASan's other checks and UBSan stay on everywhere).
mpi_env() {
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 HWLOC_COMPONENTS=-gl
    export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl_tcp_if_include=lo
    export OMPI_MCA_oob_tcp_disable_ipv6_family=1 OMPI_MCA_btl_tcp_disable_family=6
    DG_MPI_LEAK_OPTS=""
    if [[ -n ${ASAN_OPTIONS:-} ]]; then
        DG_MPI_LEAK_OPTS=$ASAN_OPTIONS:detect_leaks=1:fast_unwind_on_malloc=0
        export ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0
        export OMPI_MCA_mca_base_component_disable_dlclose=1 PMIX_MCA_mca_base_component_disable_dlclose=1
        export LSAN_OPTIONS=suppressions=$DG_ROOT/tests/lsan-mpi.supp:print_suppressions=0
    fi
}
# with_mpi_leaks COMMAND...: COMMAND with leak detection on in the sanitizer build
with_mpi_leaks() {
    if [[ -n ${DG_MPI_LEAK_OPTS:-} ]]; then ASAN_OPTIONS=$DG_MPI_LEAK_OPTS "$@"; else "$@"; fi
}

# read_only_target TARGET WHY: on a target that takes no writes (WHY: what dbgauge says of it),
# a tpcc run is refused before its window (exit 2, saying why) and a query stress of its
# 1,000-row table reads 2 x 1,000 rows. Files in $T_TMP/ro*; RES is the results file.
read_only_target() {
    local tgt=$1 why=$2
    run_dg "$T_TMP/ro.json" "$T_TMP/ro.err" tpcc run --target "$tgt" --vus 2 --duration 3s --results "$RES" --json
    check_exit "read-only: a tpcc run on it is refused (exit 2)" 2
    check "... before its window, saying why" test "$(grep -c "TPC-C on" "$T_TMP/ro.err")/$(grep -c -F \
        "takes no writes: $why; a TPC-C run writes" "$T_TMP/ro.err")" = 0/1
    run_dg "$T_TMP/ro-stress.json" "$T_TMP/ro-stress.err" stress --target "$tgt" --iterations 2 --results "$RES" --json
    check "read-only: a query stress on it runs (exit 0) and reads its 2 x 1,000 rows" \
        test "$RC/$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["steps"][0]["rows"])' "$T_TMP/ro-stress.json" 2>&1)" = 0/2000
}

finish() {
    echo "# $(basename "$0"): $T_PASSED passed, $T_FAILED failed"
    [[ $T_FAILED == 0 ]]
}
