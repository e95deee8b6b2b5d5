#!/usr/bin/env bash
# make-seeds.sh — made the results-database seeds of corpus/resultsdb/ once, with dbgauge
# itself: short real SQLite runs of each kind a report reads (a TPC-C run with a fault, two
# targets at once with --rate, a stress sweep (a group), an experiment of two steps), then
# made small (3 acknowledged writes per run kept, 512-byte pages, VACUUM) and split into one
# file per kind; and the schema-8 fixture cut to two runs, so opening it migrates. Kept to
# say how the seeds were made; tests never run it. Needs the sqlite3 shell.
#   tests/fuzz/make-seeds.sh DBGAUGE OUT_DIR
set -euo pipefail
DG=$1
OUT=$2
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
T=$(mktemp -d /tmp/dg-seeds.XXXXXX)
trap 'rm -rf "$T"' EXIT
RES=$T/all.db
"$DG" tpcc load --warehouses 1 --target "sqlite:$T/tpcc.db" >/dev/null
"$DG" tpcc run --target "sqlite:$T/tpcc.db" --duration 2s --vus 1 --results "$RES" --label "seed run" \
    --fault "1s:true" >/dev/null
cp "$T/tpcc.db" "$T/tpcc2.db"
"$DG" tpcc run --target "sqlite:$T/tpcc.db" --target "sqlite:$T/tpcc2.db" --duration 2s --vus 2 --rate 50 \
    --results "$RES" >/dev/null
"$DG" stress prepare --rows 200 --target "sqlite:$T/s.db" >/dev/null
"$DG" stress --threads 1,2 --iterations 2 --target "sqlite:$T/s.db" --results "$RES" >/dev/null
printf '[global]\nworkload=tpcc\ntarget=sqlite:%s\nvus=1,2\ntxns_per_vu=50\n' "$T/tpcc.db" >"$T/exp.ini"
"$DG" experiment "$T/exp.ini" --results "$RES" --label seedexp >/dev/null
# runs 1 (fault), 2 (two targets), 3-4 (group), 5-6 (experiment 1)
sqlite3 "$RES" "DELETE FROM run_ack WHERE rowid NOT IN (SELECT rowid FROM run_ack a WHERE
    (SELECT COUNT(*) FROM run_ack b WHERE b.run_id = a.run_id AND b.rowid < a.rowid) < 3);
    PRAGMA page_size=512; VACUUM;"
mkdir -p "$OUT"
cp "$RES" "$OUT/seed-all.db"
keep() {
    cp "$RES" "$OUT/$1"
    sqlite3 "$OUT/$1" "PRAGMA foreign_keys=ON; DELETE FROM run WHERE id NOT IN ($2);
        DELETE FROM experiment WHERE id NOT IN (SELECT experiment_id FROM run WHERE experiment_id IS NOT NULL); VACUUM;"
}
keep seed-tpcc.db 1
keep seed-targets.db 2
keep seed-group.db 3,4
keep seed-exp.db 5,6
"$DG" runs --results "$T/empty.db" >/dev/null
sqlite3 "$T/empty.db" "PRAGMA page_size=512; VACUUM;"
cp "$T/empty.db" "$OUT/seed-empty.db"
sqlite3 "$OUT/seed-schema8.db" <"$ROOT/tests/fixtures/results-schema8.sql"
sqlite3 "$OUT/seed-schema8.db" "PRAGMA foreign_keys=ON;
    DELETE FROM run WHERE id NOT IN (1, (SELECT MIN(id) FROM run WHERE group_id > 0));
    DELETE FROM experiment; PRAGMA page_size=512; VACUUM;"
sqlite3 "$OUT/foreign.db" "PRAGMA page_size=512; CREATE TABLE t(x); INSERT INTO t VALUES (1);"
printf 'this is not an SQLite file\n' >"$OUT/not-sqlite.txt"
: >"$OUT/empty"
