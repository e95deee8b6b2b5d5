#!/usr/bin/env bash
# can-fail.sh — shows that an end-to-end suite can fail: runs tests/e2e/NAME.sh with dbgauge
# replaced by a program that does nothing and exits 0 (or, with --crash, one that aborts), and
# passes only when the suite then reports at least one `not ok`. A suite that passes against
# such a binary checks nothing of dbgauge. tests/run.sh --can-fail runs it for every suite.
#   tests/can-fail.sh [--crash] e2e/NAME
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mode=silent
[[ ${1:-} == --crash ]] && { mode=crash; shift; }
suite=${1:-}
[[ $suite == e2e/* && -f $ROOT/tests/$suite.sh ]] || { echo "usage: tests/can-fail.sh [--crash] e2e/NAME" >&2; exit 2; }
dir=$(mktemp -d /tmp/dg-canfail.XXXXXX)
trap 'rm -rf "$dir"' EXIT
case $mode in
silent) printf '#!/bin/sh\nexit 0\n' >"$dir/dbgauge" ;;
crash) printf '#!/bin/sh\nkill -ABRT $$\n' >"$dir/dbgauge" ;;
esac
chmod +x "$dir/dbgauge"
DG_BIN=$dir/dbgauge bash "$ROOT/tests/$suite.sh" >"$dir/out" 2>&1 </dev/null
n=$(grep -c '^not ok - ' "$dir/out")
if ((n > 0)); then
    echo "ok - $suite fails against a dbgauge that $([[ $mode == crash ]] && echo aborts || echo does nothing) ($n checks failed; the first: $(grep -m1 '^not ok - ' "$dir/out" | cut -c8-160))"
else
    echo "not ok - $suite passes against a dbgauge that $([[ $mode == crash ]] && echo aborts || echo does nothing): it checks nothing of dbgauge ($(grep -c '^ok - ' "$dir/out") checks passed)"
fi
