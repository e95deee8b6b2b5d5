#!/usr/bin/env bash
# demo.sh — the README's first command: a 1-warehouse TPC-C on embedded SQLite, loaded
# afresh into demo/tpcc.db, 10 s warm-up then 1 minute measured, stored in demo/.
set -euo pipefail
DG=${1:-build/dbgauge}
mkdir -p demo
"$DG" tpcc load --target sqlite:demo/tpcc.db --warehouses 1 --drop
"$DG" tpcc run --target sqlite:demo/tpcc.db --vus 2 --warmup 10s --duration 1m \
    --results demo/dbgauge-results.db --label demo
# The consistency conditions after the run: one line (`tpcc check` alone prints each one).
"$DG" tpcc check --target sqlite:demo/tpcc.db | tail -n 1
