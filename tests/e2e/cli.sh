#!/usr/bin/env bash
# cli.sh — the command line's contract: help, and bad input that exits 2 with a message
# naming the problem. Needs no database server.
. "$(dirname "$0")/../lib.sh"

expect_exit "dbgauge --help exits 0" 0 --help
cp "$T_TMP/last.out" "$T_TMP/overview.out"
for h in help --help; do
    expect_exit "dbgauge help $h exits 0" 0 help $h
    check "help $h prints the overview" cmp -s "$T_TMP/last.out" "$T_TMP/overview.out"
done
# The targets the overview and the manual page name: mysql:// and odbc:, and every scheme
# this build knows (the parser lists them when it refuses one).
targets=$(sed -n '/^targets:/,/^$/p' "$T_TMP/overview.out")
for s in mysql:// odbc:; do
    grep -qF "  $s" <<<"$targets" && ok "--help names $s targets" || not_ok "--help names $s targets" "$targets"
done
known=$("$DG" tpcc check --target nosuch:x 2>&1 | sed -n 's/.*(known: \(.*\))$/\1/p' | tr -d ,)
check "a refused scheme names those the build knows" test -n "$known"
man_targets=$("$DG" help --man | sed -n '/^\.SH TARGETS/,/^\.SH EXIT/p')
for s in $known; do
    grep -qE "(^|[ (])$s:" <<<"$targets" && ok "--help names the $s: scheme" || not_ok "--help names the $s: scheme" "$targets"
    grep -qE "(^|[ (])$s:" <<<"$man_targets" && ok "the page's TARGETS names the $s: scheme" ||
        not_ok "the page's TARGETS names the $s: scheme" "$man_targets"
done
expect_exit "dbgauge tpcc --help exits 0" 0 tpcc --help
grep -q -- "--txns-per-vu" "$T_TMP/last.out" && ok "tpcc --help lists --txns-per-vu" || not_ok "tpcc --help lists --txns-per-vu" "missing"
cp "$T_TMP/last.out" "$T_TMP/tpcc-help.out"
expect_exit "dbgauge help tpcc exits 0" 0 help tpcc
check "help tpcc prints what tpcc --help prints" cmp -s "$T_TMP/last.out" "$T_TMP/tpcc-help.out"
"$DG" tpcc run --help >"$T_TMP/run-help.out" 2>&1
expect_exit "dbgauge help tpcc run exits 0" 0 help tpcc run
check "help tpcc run prints what tpcc run --help prints" cmp -s "$T_TMP/last.out" "$T_TMP/run-help.out"
expect_exit "help of an unknown command exits 2" 2 help nosuch
expect_stderr "... naming it" "unknown command 'nosuch'"
expect_exit "help with too many words exits 2" 2 help tpcc run now please
expect_exit "no command exits 2" 2
expect_exit "unknown command exits 2" 2 frobnicate
expect_stderr "unknown command is named" "frobnicate"
expect_exit "unknown option exits 2" 2 tpcc run --bogus
expect_stderr "unknown option is named" "'--bogus'"
expect_exit "option of another subcommand exits 2" 2 tpcc check --vus 3
expect_stderr "misplaced option is named" "--vus"
expect_exit "bad duration exits 2" 2 tpcc run --duration 5x
expect_stderr "bad duration names option and value" "--duration: '5x'"
expect_exit "missing option value exits 2" 2 tpcc run --vus
expect_stderr "missing value names the option" "--vus"
expect_exit "vus 0 exits 2" 2 tpcc run --vus 0
expect_exit "txns-per-vu with duration exits 2" 2 tpcc run --txns-per-vu 5 --duration 10s
expect_exit "unknown scheme exits 2" 2 tpcc run --target mysqlx://h/db
expect_stderr "unknown scheme is named" "mysqlx"
expect_exit "target without scheme exits 2" 2 tpcc check --target just-a-file.db
expect_stderr "target without scheme is explained" "no scheme"
expect_exit "bad SQLite URL parameter exits 2" 2 tpcc check --target "sqlite:$T_TMP/x.db?synchronus=off"
expect_stderr "bad SQLite parameter is named" "synchronus"
expect_exit "missing database file exits 2" 2 tpcc run --target "sqlite:$T_TMP/none/x.db" --results "$T_TMP/r.db"
expect_stderr "missing database file is named" "$T_TMP/none/x.db"
sqlite3 "$T_TMP/empty.db" "CREATE TABLE t (x)"
expect_exit "database without TPC-C tables exits 2" 2 tpcc run --target "sqlite:$T_TMP/empty.db" --results "$T_TMP/r.db"
expect_stderr "missing tables point to tpcc load" "tpcc load"
expect_exit "check of a database without tables exits 2" 2 tpcc check --target "sqlite:$T_TMP/empty.db"
expect_exit "a results path that is not a results database exits 2" 2 runs --results "$T_TMP/empty.db"
expect_stderr "foreign results file is explained" "not a dbgauge results database"
expect_exit "runs show of an unknown id exits 2" 2 runs show 999 --results "$T_TMP/r.db"
expect_exit "runs show of a bad id exits 2" 2 runs show abc --results "$T_TMP/r.db"
expect_exit "empty results list exits 0" 0 runs --results "$T_TMP/r2.db"
expect_exit "mode procedures on SQLite exits 2" 2 tpcc run --target "sqlite:$T_TMP/empty.db" --mode procedures --results "$T_TMP/r.db"
expect_exit "bad isolation exits 2" 2 tpcc run --isolation chaos
expect_stderr "bad isolation is named" "chaos"
expect_exit "stress --help exits 0" 0 stress --help
expect_exit "stress option of prepare exits 2" 2 stress --rows 5
expect_stderr "misplaced stress option is named" "--rows"
expect_exit "stress --threads 0 exits 2" 2 stress --threads 0
expect_exit "stress --threads 1,x exits 2" 2 stress --threads 1,x
expect_stderr "bad thread count is named" "'x'"
expect_exit "stress --iterations with --duration exits 2" 2 stress --iterations 3 --duration 5s
expect_exit "stress --query with --query-file exits 2" 2 stress --query "SELECT 1" --query-file x.sql
expect_exit "stress --query-file that does not exist exits 2" 2 stress --query-file "$T_TMP/none.sql" --target "sqlite:$T_TMP/empty.db"
expect_stderr "missing query file is named" "none.sql"
expect_exit "stress --warmup without --duration exits 2" 2 stress --warmup 5s
expect_exit "stress prepare --row-bytes 10 exits 2" 2 stress prepare --row-bytes 10
# faults: bad specs exit 2 naming what was wrong, before anything runs
T="sqlite:$T_TMP/never.db"
expect_exit "--fault without a command exits 2" 2 tpcc run --target "$T" --duration 5s --fault "3s:"
expect_stderr "... saying so" "no command after the offset"
expect_exit "--fault without an offset exits 2" 2 tpcc run --target "$T" --duration 5s --fault "pg_ctl stop"
expect_stderr "... showing the form" "expected OFFSET:COMMAND"
expect_exit "--fault with a negative offset exits 2" 2 tpcc run --target "$T" --duration 5s --fault "-1s:true"
expect_stderr "... saying so" "negative"
expect_exit "--fault past the window's end exits 2" 2 tpcc run --target "$T" --duration 5s --fault "5s:true"
expect_stderr "... naming the window" "past the end of the 5s measured window"
expect_exit "--latency-limit without --rate exits 2" 2 tpcc run --target "$T" --duration 5s --latency-limit 1s
expect_stderr "... saying so" "goes with --rate"
check "no database was made by a refused run" test ! -e "$T_TMP/never.db"
# a fault's command is stored and printed with its password redacted
sqlite_tpcc "$T_TMP/f.db"
run_dg "$T_TMP/fault.json" "$T_TMP/fault.err" tpcc run --target "sqlite:$T_TMP/f.db" --duration 2s --json \
    --results "$T_TMP/f-results.db" --fault "1s:PGPASSWORD=zz-fault-9 true postgres://u:zz-fault-9@h/db" \
    --fault "1s:: sshpass -p zz-fault-9 ssh h; : tool --password zz-fault-9 --port 5"
check_exit "a fault's run exits 0" 0
check "the fault is in the run's JSON" test "$(json_get "$T_TMP/fault.json" faults.0.exit_status 2>/dev/null)" = 0
check "... and the sshpass one, its command shown without the password" test \
    "$(json_get "$T_TMP/fault.json" faults.1.command 2>/dev/null)" = ": sshpass -p *** ssh h; : tool --password *** --port 5"
run_dg "$T_TMP/fault-runs.json" "$T_TMP/fault-runs.err" runs --json --results "$T_TMP/f-results.db"
run_dg "$T_TMP/fault-show.json" "$T_TMP/fault-show.err" runs show 1 --json --results "$T_TMP/f-results.db"
show_rc=$RC
run_dg "$T_TMP/fault-report.out" "$T_TMP/fault-report.err" report 1 --results "$T_TMP/f-results.db" -o "$T_TMP/fault.html"
check "runs show and report of the run exit 0" test "$show_rc$RC" = 00
if grep -q zz-fault-9 "$T_TMP"/fault*.json "$T_TMP"/fault*.err "$T_TMP/fault.html" || sqlite3 "$T_TMP/f-results.db" .dump | grep -q zz-fault-9; then
    not_ok "the faults' password is in no output, report nor the store (runs, runs show, report)" "found zz-fault-9"
else ok "the faults' password is in no output, report nor the store (runs, runs show, report)"; fi
# The page's compare section lists only options compare takes: each, with a value, on a stored
# run compared with itself exits 0 (--format is report's: compare refuses it).
page_opts() { # page_opts CMD: the options the page's section for CMD lists
    "$DG" help --man | sed -n "/^\.SS \"dbgauge $1\"/,/^\.S[SH]/p" | sed -n 's/^\\fB\\-\\-\([a-z-]*\)\\fR.*/\1/p'
}
opts=$(page_opts compare)
check "the page lists compare's options" test -n "$opts"
for o in $opts; do
    case $o in
    help) continue ;;
    results) v=$T_TMP/f-results.db ;;
    output) v=$T_TMP/cmp.html ;;
    *) v=x ;;
    esac
    expect_exit "compare takes --$o, which the page lists under it" 0 compare 1 1 --results "$T_TMP/f-results.db" --$o "$v"
done
expect_exit "compare refuses --format (report's)" 2 compare 1 1 --results "$T_TMP/f-results.db" --format csv
expect_stderr "... naming it" "'--format'"

# Foreign text in a message: never a raw control byte, never more than one line, the file and
# line named (issue 17). one_clean_line: the last stderr is one line of printable text.
one_clean_line() {
    [[ $(wc -l <"$T_TMP/last.err") == 1 ]] && ! LC_ALL=C grep -q '[[:cntrl:]]' <(tr -d '\n' <"$T_TMP/last.err")
}
# a binary job file: escape sequences (a title, a screen clear, a colour), a bell, ELF magic
printf '[global]\nworkload=tpcc\nlabel=\x1b]0;owned\x07\x1b[2J\nvus=\x1b[31m4\x7fELF\x02\x01\n' >"$T_TMP/bin.ini"
expect_exit "a binary job file exits 2" 2 experiment --dry-run "$T_TMP/bin.ini"
check "... its message is one line without control bytes" one_clean_line
expect_stderr "... naming the file and line, the bytes escaped" "bin.ini:4: key 'vus': --vus: '\\\\x1b\\[31m4\\\\x7fELF\\\\x02\\\\x01'"
head -c 600 "$DG" >"$T_TMP/elf.ini"
expect_exit "an executable given as a job file exits 2" 2 experiment --dry-run "$T_TMP/elf.ini"
check "... its message is one line without control bytes" one_clean_line
expect_stderr "... naming the file and line" "elf.ini:[0-9]+: "
printf '[global]\nworkload=tpcc\nlabel=%0210d\n' 0 >"$T_TMP/long.ini"
expect_exit "a job file line longer than 198 characters exits 2" 2 experiment --dry-run "$T_TMP/long.ini"
expect_stderr "... naming its line" "long.ini:3: the line is longer than 198 characters"
expect_exit "a target URL with control bytes exits 2" 2 tpcc check --target $'postgres://u@h\x1b[2J:54x2/db\nmore'
check "... its message is one line without control bytes" one_clean_line
expect_stderr "... naming the bad part, escaped" "port '54x2' of host 'h\\\\x1b\\[2J'"
expect_exit "a SQLite path with control bytes exits 2" 2 tpcc run --target $'sqlite:/nonexistent/\x1b[31mx.db' --results "$T_TMP/r.db"
check "... its message is one line without control bytes" one_clean_line
expect_exit "an option value with a newline exits 2" 2 tpcc run --duration $'5s\nrm -rf /' --results "$T_TMP/r.db"
check "... its message is one line, cut at the newline" one_clean_line
expect_stderr "... the value cut and marked" "--duration: '5s\\.\\.\\.' is not a duration"
finish
