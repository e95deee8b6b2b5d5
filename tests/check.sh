#!/usr/bin/env bash
# check.sh — `make check`, the README's test command and what CI runs after installing the
# packages: one pool of lanes (tests/run.sh) over the release build's smoke suites (e2e/cli and
# the runner's own test), every suite on the AddressSanitizer + UBSan build (behaviour and
# memory in one pass over the long end-to-end scripts, which spend their time waiting on
# servers, outages and timed windows), the ThreadSanitizer suites and the fuzz smoke test
# (each target 5 s; bench/fuzz.sh runs them long). Ends with the time table against its
# 20-minute budget and one `N passed, N failed` line. Options go to tests/run.sh (--no-pg,
# --no-my, --only PATTERN, --jobs N).
cd "$(dirname "$0")/.." || exit 2
exec tests/run.sh --smoke --sanitize --tsan --fuzz=5 --budget 1200 "$@"
