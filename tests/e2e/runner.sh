#!/usr/bin/env bash
# runner.sh — the test runner's own promises (tests/run.sh, its pool in tests/lanes.sh): an
# --only that selects nothing exits 2 naming it, a bad option exits 2, a suite's exact name
# takes that suite alone, a unit test alone starts no server, a suite over its time limit is
# stopped and fails the run, a waiting lane takes the suites that mostly wait, then the
# background ones at nice 10, and the
# time table and summary come last. Runs tests/run.sh on
# the release build that the pool built already, in a folder of its own.
. "$(dirname "$0")/../lib.sh"

RUN=$DG_ROOT/tests/run.sh
export DG_TEST_OUT=$T_TMP/out
runner() { "$RUN" "$@" >"$T_TMP/out.txt" 2>"$T_TMP/err.txt"; RC=$? T_DG_ERR=$T_TMP/err.txt; }

runner --quick --only no-such-suite-anywhere
check_exit "--only that matches nothing exits 2" 2
check "... naming the pattern" grep -q "only no-such-suite-anywhere: no suite" "$T_TMP/err.txt"
runner --jobs 0
check "--jobs 0 exits 2 naming the option" test "$RC/$(grep -c "jobs '0'" "$T_TMP/err.txt")" = 2/1
runner --frobnicate
check "an unknown option exits 2 with the usage" test "$RC/$(grep -c '^usage: tests/run.sh' "$T_TMP/err.txt")" = 2/1
runner --list --sanitize --only e2e/mpi
check "a suite's exact name takes it alone (e2e/mpi, not e2e/mpi_hosts)" test "$(tr '\n' ' ' <"$T_TMP/out.txt")" = "asan:e2e/mpi "
runner --list --sanitize --only mpi
check "any other pattern takes every suite it is part of" test "$(tr '\n' ' ' <"$T_TMP/out.txt")" = "asan:e2e/mpi asan:e2e/mpi_hosts "
# make check's pool: the release build's smoke suites beside asan's every one, none twice
runner --list --smoke --sanitize --only e2e/cli --only e2e/runner --only unit/test_sched
check "--smoke is the release build's e2e/cli and e2e/runner; asan has the rest" test "$(tr '\n' ' ' <"$T_TMP/out.txt")" = "smoke:e2e/cli smoke:e2e/runner asan:unit/test_sched asan:e2e/cli "
runner --list --smoke --release
check "--smoke with --release exits 2 (it is part of it)" test "$RC/$(grep -c -- '--smoke is part of --release' "$T_TMP/err.txt")" = 2/1

runner --quick --only unit/test_sched --jobs 1
check_exit "one unit test alone passes (exit 0)" 0
check "... and starts no server (no server log in its lane)" test ! -s "$DG_TEST_OUT/pool/lane1/servers.log"
# every check of test_sched and the build job's two, then the table, then the summary
check "... its lines, then the time table, then the summary last" \
    test "$(grep -c '^  ok - ' "$T_TMP/out.txt")/$(grep -c '^# time table' "$T_TMP/out.txt")/$(tail -n 1 "$T_TMP/out.txt" | grep -cE '^[0-9]+ passed, 0 failed$')" = "$(($(grep -c '^ok - ' <("$DG_ROOT/build/tests/test_sched")) + 2))/1/1"

# a waiting lane (the one past --jobs) takes the suites that mostly wait, the other lanes every
# other job; with --wait-lanes 0 there is none
DG_WAITING_SUITES=unit/test_sched runner --quick --only unit/test_sched --only unit/test_secret --jobs 1
check "--wait-lanes 1 (the default): the waiting suite on lane 2, the other and the build on lane 1" test \
    "$RC:$(grep -oE '(test_sched|test_secret|build:release) +\[[0-9]+' "$T_TMP/out.txt" | tr -s ' [' ' ' | LC_ALL=C sort | tr '\n' ' ')" = \
    "0:build:release 1 test_sched 2 test_secret 1 "
DG_WAITING_SUITES=unit/test_sched runner --quick --only unit/test_sched --only unit/test_secret --jobs 1 --wait-lanes 0
check "--wait-lanes 0: every job on the one lane" test \
    "$RC:$(grep -oE '(test_sched|test_secret|build:release) +\[[0-9]+' "$T_TMP/out.txt" | tr -s ' [' ' ' | LC_ALL=C sort | tr '\n' ' ')" = \
    "0:build:release 1 test_sched 1 test_secret 1 "
# the order lanes take jobs in (lanes.sh pop_job), on a queue of one suite of each class:
# a busy lane takes a background suite only when nothing else of its own is ready; a waiting
# lane takes the waiting suites, then the background ones, and runs those at nice 10
pops=$(ROOT=$DG_ROOT POOL=$T_TMP/popq OUT=$T_TMP use_pg=1 use_my=1 fuzz_secs=1 bash -c '
    . "$ROOT/tests/suites.sh"; . "$ROOT/tests/lanes.sh"
    mkdir -p "$POOL"; : >"$POOL/built.asan"
    printf "%s\n" asan:e2e/load asan:e2e/crash tsan:e2e/live asan:e2e/ha_servers asan:e2e/install >"$POOL/queue"
    POOL_WAIT_LANES=1
    take() { LANE_WAITS=$1; pop_job; echo "${JOB:-none}/$?/$(job_nice "${JOB:-none}")"; }
    take ""; take waits; take waits; take ""; take ""; take waits
    printf "%s\n" asan:e2e/load asan:e2e/crash >"$POOL/queue"; POOL_WAIT_LANES=0
    take ""' 2>&1 | tr '\n' ' ')
check "pop_job: busy lane crash, waiting lane ha_servers then load (nice 10), busy lane install; tsan's unbuilt suite waits; --wait-lanes 0 takes the queue in order" \
    test "$pops" = "asan:e2e/crash/0/0 asan:e2e/ha_servers/0/0 asan:e2e/load/0/10 asan:e2e/install/0/0 none/2/0 none/1/0 asan:e2e/load/0/0 "
runner --wait-lanes 5
check "--wait-lanes 5 exits 2 naming the option" test "$RC/$(grep -c "wait-lanes '5'" "$T_TMP/err.txt")" = 2/1

DG_SUITE_TIMEOUT=1 runner --quick --only unit/test_hist --jobs 1
check_exit "a suite over DG_SUITE_TIMEOUT is stopped and fails the run (exit 1)" 1
check "... saying so" grep -q "not ok - quick:unit/test_hist: stopped after 1 s" "$T_TMP/out.txt"
finish
