# shellcheck shell=bash
# lanes.sh — the pool of tests/run.sh (sourced by it, never run): N lanes take jobs from one
# queue (a build, or FLAVOR:SUITE once its build is done), one job at a time each. A lane has
# servers of its own: tests/servers.sh with the lane's env file and its own thousand ports
# (DG_PORT_BASE), started when its first job needs them, checked before each job, stopped when
# the lane ends. A job sees only the servers it declares (suites.sh suite_needs). Each job's
# lines are printed whole when it ends; the time table and the summary come last.
# Expects ROOT, POOL, OUT and the functions of tests/suites.sh.

SUITE_TIMEOUT=${DG_SUITE_TIMEOUT:-900} # seconds one suite may take before it is stopped

# job_parts JOB: J_FLAVOR and J_SUITE of JOB (FLAVOR:SUITE, build:BUILD; a #N suffix from
# --repeat is dropped)
job_parts() {
    local j=${1%%#*}
    J_FLAVOR=${j%%:*}
    J_SUITE=${j#*:}
}

job_file() { local j=${1//\//_}; echo "${j//:/_}"; } # asan:e2e/crash -> asan_e2e_crash

# job_ready JOB: a build while no other build goes on (one build has both cores; the other
# lanes start on what is built meanwhile), or a suite whose build is over (built or failed).
# Reads pop_job's snapshot of the pool's markers (POP_BUILDING, POP_DONE), not the files: a
# build ending while the queue is read must not make the jobs after some line ready and
# those before it not (the queue was once taken from its middle that way).
job_ready() {
    job_parts "$1"
    [[ $J_FLAVOR == build ]] && { ((!POP_BUILDING)); return; }
    [[ " $POP_DONE " == *" $(build_of "$J_FLAVOR") "* ]]
}

# pop_job: takes the first ready job off the queue into JOB. When the pool has waiting lanes,
# those take the jobs that mostly wait (suites.sh job_class: waits), then the background
# ones; the other lanes take every other job, and a background one only when
# none of those is ready. Returns 0 with a job, 1 when the queue holds none for this lane,
# 2 when none of those is ready yet.
pop_job() {
    local lock line found="" rc=1 mine=0 lines=() own=busy want
    exec {lock}>"$POOL/queue.lock"
    flock "$lock"
    mapfile -t lines <"$POOL/queue"
    # the markers once, for the whole queue (job_ready); `building` first: a build ends by
    # writing built.B, then removing it
    POP_BUILDING=0
    [[ -e $POOL/building ]] && POP_BUILDING=1
    POP_DONE=""
    for line in "$POOL"/built.* "$POOL"/failed.*; do [[ -e $line ]] && POP_DONE+=" ${line##*.}"; done
    # pass 1: this lane's own class; pass 2: the background jobs
    [[ -n $LANE_WAITS ]] && own=waits
    for want in "$own" background; do
        for line in "${lines[@]}"; do
            job_class "$line"
            [[ $J_CLASS == "$want" ]] || continue
            mine=1
            job_ready "$line" && { found=$line; break 2; }
        done
    done
    if [[ -n $found ]]; then
        for line in "${lines[@]}"; do [[ $line == "$found" ]] || echo "$line"; done >"$POOL/queue.next"
        mv "$POOL/queue.next" "$POOL/queue"
        rc=0
    elif ((mine)); then
        rc=2
    fi
    [[ $found == build:* ]] && : >"$POOL/building" # under the queue's lock: no second build starts
    flock -u "$lock"
    exec {lock}>&-
    JOB=$found
    return $rc
}

# job_nice JOB: the niceness this lane runs JOB at: 10 for a background job on a waiting lane
# (its servers too), 0 otherwise
job_nice() {
    job_class "$1"
    if [[ -n $LANE_WAITS && $J_CLASS == background ]]; then echo 10; else echo 0; fi
}

# ---- a lane's servers ---------------------------------------------------------------------

server_tag() { case $1 in pg) echo PG ;; my) echo MY ;; esac; }
server_name() { case $1 in pg) echo pg ;; my) echo mariadb ;; esac; }

# lane_servers_up SERVER...: each (pg, my) running for this lane: started when it is not, or
# started again when the last job left it dead. Sets SERVER_ERR and fails when one won't start.
lane_servers_up() {
    local s pid
    for s in "$@"; do
        pid=$(sed -n "s/^export DG_$(server_tag "$s")_PID='\(.*\)'\$/\1/p" "$LANE_ENV" 2>/dev/null | tail -n 1)
        [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null && continue
        [[ -n $pid ]] && DG_SERVERS_ENV=$LANE_ENV "$ROOT/tests/servers.sh" stop "$(server_name "$s")" >>"$LANE_DIR/servers.log" 2>&1
        if ! DG_SERVERS_ENV=$LANE_ENV nice -n "${JOB_NICE:-0}" "$ROOT/tests/servers.sh" start "$(server_name "$s")" >>"$LANE_DIR/servers.log" 2>&1; then
            SERVER_ERR="$(server_name "$s") did not start: $(tail -n 3 "$LANE_DIR/servers.log" | tr '\n' ' ')"
            return 1
        fi
    done
}

lane_servers_down() {
    [[ -f $LANE_ENV ]] && DG_SERVERS_ENV=$LANE_ENV "$ROOT/tests/servers.sh" stop all >>"$LANE_DIR/servers.log" 2>&1
    return 0
}

# job_env_write FILE SERVER...: FILE gets the lane's lines of those servers only
job_env_write() {
    local file=$1 s
    shift
    : >"$file"
    for s in "$@"; do grep "^export DG_$(server_tag "$s")_" "$LANE_ENV" >>"$file" 2>/dev/null; done
    return 0
}

# job_env_merge FILE SERVER...: what the job's servers.sh calls wrote of those servers (a
# restart's new pid, a stop) replaces the lane's lines of them
job_env_merge() {
    local file=$1 s tag
    shift
    for s in "$@"; do
        tag=$(server_tag "$s")
        { grep -v "^export DG_${tag}_" "$LANE_ENV" 2>/dev/null; grep "^export DG_${tag}_" "$file" 2>/dev/null; } >"$LANE_ENV.next"
        mv "$LANE_ENV.next" "$LANE_ENV"
    done
}

# ---- one job --------------------------------------------------------------------------------

# job_block JOB LOG RC SECS WHY: the job's lines and its summary, printed whole (under a lock:
# lanes never interleave), and its row in the results; JOB_FAILED: its count of failures
job_block() {
    local job=$1 log=$2 rc=$3 secs=$4 why=$5 p f extra="" lock t at=$((SECONDS - $4 - POOL_T0)) cpu
    cpu=$(awk 'NF == 2 && $1 ~ /^[0-9.]+$/ { printf "%d", $1 + $2 }' "$POOL/$(job_file "$job").cpu" 2>/dev/null)
    p=$(grep -c '^ok - ' "$log" 2>/dev/null)
    f=$(grep -c '^not ok - ' "$log" 2>/dev/null)
    p=${p:-0} f=${f:-0}
    if [[ -n $why ]]; then
        extra="  not ok - $job: $why"$'\n'
        f=$((f + 1))
    elif ((rc == 124 || rc == 137)); then
        extra="  not ok - $job: stopped after $SUITE_TIMEOUT s (DG_SUITE_TIMEOUT); last lines:"$'\n'$(tail -n 15 "$log" | sed 's/^/    /')$'\n'
        f=$((f + 1))
    elif ((p == 0 && f == 0)); then
        extra="  not ok - $job: ran no check"$'\n'
        f=1
    elif ((rc != 0 && f == 0)); then # a crash or an exit without a `not ok` line
        extra="  not ok - $job: exited $rc; last lines:"$'\n'$(tail -n 15 "$log" | sed 's/^/    /')$'\n'
        f=1
    fi
    # TSan: a race in any process the suite started fails it, whatever its checks said
    t=$(find "$POOL/jobs/$(job_file "$job")/tsan" -name 'report.*' 2>/dev/null | sort | head -n 1)
    if [[ -n $t ]]; then
        extra+="  not ok - $job: ThreadSanitizer reported ($(dirname "$t")); the first:"$'\n'$(head -n 40 "$t" | sed 's/^/    /')$'\n'
        f=$((f + 1))
    fi
    exec {lock}>"$POOL/print.lock"
    flock "$lock"
    {
        echo "# --- $job"
        grep -E '^(ok|not ok|skip) - ' "$log" 2>/dev/null | sed 's/^/  /'
        printf '%s' "$extra"
        echo "# $job: $p passed, $f failed ($secs s, lane $LANE)"
    }
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$job" "$p" "$f" "$secs" "$LANE" "$at" "${cpu:--}" "${JOB_NICE:-0}" >>"$POOL/results"
    # every failure again, by job, for the report's end (CI logs are often read from the tail)
    {
        grep -E '^not ok - ' "$log" 2>/dev/null | sed "s|^not ok - |not ok - $job: |"
        printf '%s' "$extra" | grep -E '^  not ok - ' | sed 's/^  //'
    } >>"$POOL/failures"
    flock -u "$lock"
    exec {lock}>&-
    JOB_FAILED=$f
}

# run_job JOB: runs one job in the background (so a signal to the lane reaches it) and reports it
run_job() {
    local job=$1 t0=$SECONDS rc=0 why="" dir log b needs=()
    job_parts "$job"
    JOB_NICE=$(job_nice "$job")
    dir=$POOL/jobs/$(job_file "$job")
    log=$POOL/$(job_file "$job").log
    mkdir -p "$dir"
    if [[ $J_FLAVOR == build ]]; then
        (build_run "$J_SUITE") >"$log" 2>&1 </dev/null &
        JOB_PID=$!
        wait "$JOB_PID" || rc=$?
        if ((rc == 0)); then : >"$POOL/built.$J_SUITE"; else : >"$POOL/failed.$J_SUITE"; fi
        rm -f "$POOL/building"
        ((rc != 0)) && ! grep -q '^not ok - ' "$log" && tail -n 40 "$log"
        job_block "$job" "$log" "$rc" $((SECONDS - t0)) ""
        ((rc == 0)) && rm -rf "$dir"
        return
    fi
    b=$(build_of "$J_FLAVOR")
    if [[ -e $POOL/failed.$b ]]; then
        why="not run: the $b build failed"
    else
        read -ra needs <<<"$(suite_needs "$J_FLAVOR" "$J_SUITE")"
        lane_servers_up "${needs[@]}" || why=$SERVER_ERR
    fi
    if [[ -z $why ]]; then
        job_env_write "$dir/servers.env" "${needs[@]}"
        (
            flavor_env "$J_FLAVOR" "$dir"
            # shellcheck disable=SC1091
            . "$dir/servers.env"
            export DG_SERVERS_ENV=$dir/servers.env
            # its reports and screenshots, kept after the pool (tests/lib.sh T_OUT)
            export DG_TEST_ARTIFACTS=$POOL/artifacts/$(job_file "$job")
            suite_cmd "$J_FLAVOR" "$J_SUITE" "$dir" || exit 97
            # /usr/bin/time: the CPU the suite's own processes used (servers apart), for the table
            exec nice -n "$JOB_NICE" /usr/bin/time -o "$POOL/$(job_file "$job").cpu" -f '%U %S' timeout -k 30 "$SUITE_TIMEOUT" "${CMD[@]}"
        ) >"$log" 2>&1 </dev/null &
        JOB_PID=$!
        wait "$JOB_PID" || rc=$?
        ((rc > 128 && rc != 137)) && [[ -n ${LANE_STOP:-} ]] && why="stopped (the run was interrupted)"
        ((rc == 97)) && why="cannot run: $(tail -n 1 "$log")"
        job_env_merge "$dir/servers.env" "${needs[@]}"
    fi
    JOB_PID=""
    job_block "$job" "$log" "$rc" $((SECONDS - t0)) "$why"
    # a passing job's scratch files go; a failing one's stay for a look
    ((JOB_FAILED == 0)) && rm -rf "$dir"
    return 0
}

# lane_main K [waits]: lane K's loop, until the queue is empty (for a waiting lane: of jobs
# that mostly wait) or the lane is told to stop
lane_main() {
    LANE=$1
    LANE_WAITS=${2:-}
    LANE_DIR=$POOL/lane$LANE
    LANE_ENV=$LANE_DIR/servers.env
    LANE_STOP=""
    JOB_PID=""
    mkdir -p "$LANE_DIR"
    export DG_PORT_BASE=$((20000 + 1000 * (LANE - 1)))
    trap 'lane_servers_down' EXIT
    trap 'LANE_STOP=1; [[ -n $JOB_PID ]] && kill -TERM "$JOB_PID" 2>/dev/null' TERM INT
    local rc
    while [[ -z $LANE_STOP ]]; do
        pop_job
        rc=$?
        ((rc == 1)) && break
        if ((rc == 2)); then sleep 0.5; continue; fi
        echo "$((SECONDS - POOL_T0)) $JOB" >>"$LANE_DIR/jobs" # what the lane took, when
        run_job "$JOB"
    done
}

# lanes_run N W: N lanes, and W waiting lanes that take the jobs that mostly wait (suites.sh
# job_class waits: servers starting and being checked) while the N take every other, until the queue
# is empty. A suite that waits leaves its core idle: run beside the N busy lanes, the cores
# stay busy, and at most N suites that keep a core busy run at once. Ctrl-C or SIGTERM stops
# every lane (each stops its job and its servers).
lanes_run() {
    local k pids=()
    POOL_T0=$SECONDS # the jobs' start times in the results are seconds from here
    POOL_WAIT_LANES=$2
    for ((k = 1; k <= $1 + $2; k++)); do
        if ((k <= $1)); then lane_main "$k" & else lane_main "$k" waits & fi
        pids+=($!)
    done
    trap 'kill -TERM "${pids[@]}" 2>/dev/null' INT TERM
    while ! wait "${pids[@]}"; do
        local alive=0
        for k in "${pids[@]}"; do kill -0 "$k" 2>/dev/null && alive=1; done
        ((alive)) || break
    done
    trap - INT TERM
}

# lanes_report WALL BUDGET: what never ran, the time table longest first, the totals against
# the budget, and `N passed, N failed`. Returns 0 only if nothing failed.
lanes_report() {
    local wall=$1 budget=$2 passed=0 failed=0 job p f secs lane sum=0 line
    while IFS= read -r line; do
        [[ -n $line ]] || continue
        echo "not ok - $line: never ran (its lane stopped)"
        failed=$((failed + 1))
    done <"$POOL/queue"
    while IFS=$'\t' read -r job p f secs lane _; do
        passed=$((passed + p))
        failed=$((failed + f))
        sum=$((sum + secs))
    done <"$POOL/results"
    # the times of this run, in tests/suite-times.tsv's form (copy it there to reorder the pool)
    awk -F'\t' '{ sub(/#[0-9]+$/, "", $1); print $4, $1 }' "$POOL/results" | sort -k1,1nr >"$OUT/times.tsv"
    echo "# time table: each job's wall time, longest first (CPU s of its own processes) [lane, started at second, niceness if not 0]"
    sort -t$'\t' -k4,4nr "$POOL/results" |
        awk -F'\t' '{ printf "#   %5d s  (%4s)  %-34s [%s, %d%s]%s\n", $4, $7, $1, $5, $6, ($8 > 0 ? ", nice " $8 : ""), ($3 > 0 ? "  FAILED" : "") }'
    echo "# per flavor (sum of its jobs' wall times):$(awk -F'\t' '{ split($1, a, ":"); s[a[1]] += $4 } END { for (k in s) printf " %s %d s,", k, s[k] }' "$POOL/results" | sed 's/,$//')"
    echo "# wall $wall s for $sum s of jobs on $(ls -d "$POOL"/lane* 2>/dev/null | wc -l) lane(s)"
    if [[ -n $budget ]]; then
        if ((wall <= budget)); then
            echo "# budget $budget s: within it ($((100 * wall / budget))% used)"
        else
            echo "# budget $budget s: OVER it by $((wall - budget)) s"
        fi
    fi
    if [[ -s $POOL/failures ]]; then
        echo "# the failures again ($(wc -l <"$POOL/failures")), the first line of each:"
        cut -c1-300 "$POOL/failures"
    fi
    if ((passed == 0)); then
        echo "not ok - suite: no check passed at all"
        failed=$((failed + 1))
    fi
    echo "$passed passed, $failed failed"
    ((failed == 0))
}
