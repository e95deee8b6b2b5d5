#!/usr/bin/env bash
# check.sh — `make check`: the release build (warnings as errors) with its unit tests, every
# conformance suite and the command line end-to-end script (tests/run.sh --quick),
# then every suite again on the AddressSanitizer + UBSan build (tests/run.sh --sanitize): the
# behaviour checks and the memory checks in one pass over the long end-to-end scripts, which
# spend their time waiting on servers, outages and timed windows, not in dbgauge's code.
# Ends with one `N passed, N failed` line over both. Options go to both runs
# (--no-pg, --no-my, --only NAME).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=tests/out
mkdir -p "$OUT"

tests/run.sh --quick "$@" 2>&1 | tee "$OUT/check-release.log"
release=${PIPESTATUS[0]}
tests/run.sh --sanitize "$@" 2>&1 | tee "$OUT/check-asan.log"
asan=${PIPESTATUS[0]}

p=0 f=0
for log in "$OUT/check-release.log" "$OUT/check-asan.log"; do
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
    if [[ -z $line ]]; then f=$((f + 1)); continue; fi # that run ended without its summary
    p=$((p + ${line%% *}))
    line=${line#*, }
    f=$((f + ${line%% *}))
done
((release == 0 && asan == 0)) || ((f > 0)) || f=1
echo "# check: release build exit $release, sanitizer build exit $asan"
echo "$p passed, $f failed"
((release == 0 && asan == 0))
