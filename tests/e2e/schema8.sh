#!/usr/bin/env bash
# schema8.sh — an old results database renders as it did: loads the schema-8 fixture
# (tests/fixtures/results-schema8.sql: tpcc closed, think-time scaled and unscaled, --rate,
# two targets, two stress sweeps, a tpcc+stress experiment, two tpcc experiments), lets this
# binary migrate it, renders every view and compares each file byte for byte with what the
# schema-8 binary wrote (tests/fixtures/schema8-out/). The files that changed on purpose
# (schema 9: stress runs show their own figures, not NOPM 0 and TPM 0; schema 10: empty
# outages and faults in the JSON, an in_doubt CSV column, the charts' span glue) must differ exactly as
# tests/fixtures/schema8-changes.diff says, no more, no less. Reads the fixtures, never
# rewrites them (DG_SCHEMA8_WRITE_DIFF=1 writes the diff after a reviewed change).
. "$(dirname "$0")/../lib.sh"

FIX=$DG_ROOT/tests/fixtures
RES=$T_TMP/results.db
check "the schema-8 dump loads" sqlite3 "$RES" ".read $FIX/results-schema8.sql"
check "it is schema 8 before this binary opens it" test "$(sqlite3 "$RES" 'PRAGMA user_version')" = 8
bash "$FIX/schema8-render.sh" "$DG" "$RES" "$T_TMP/out"
check "the store migrated it to this binary's schema" test "$(sqlite3 "$RES" 'PRAGMA user_version')" -gt 8
check "every rendering of the fixture was made again" \
    test "$(ls "$FIX/schema8-out" | wc -l)" = "$(ls "$T_TMP/out" | wc -l)"
n=0
: >"$T_TMP/changes.diff"
for f in "$FIX"/schema8-out/*; do
    b=$(basename "$f")
    if cmp -s "$f" "$T_TMP/out/$b"; then
        n=$((n + 1))
    else
        diff -u --label "schema8/$b" --label "now/$b" "$f" "$T_TMP/out/$b" >>"$T_TMP/changes.diff"
    fi
done
check "$n renderings byte for byte as the schema-8 binary made them" test "$n" -gt 0
[[ -n ${DG_SCHEMA8_WRITE_DIFF:-} ]] && cp "$T_TMP/changes.diff" "$FIX/schema8-changes.diff"
nchanged=$(grep -c '^--- schema8/' "$T_TMP/changes.diff")
if cmp -s "$T_TMP/changes.diff" "$FIX/schema8-changes.diff"; then
    ok "the other $nchanged renderings differ exactly as schema8-changes.diff says"
else
    not_ok "renderings differ from schema 8 only as schema8-changes.diff says" \
        "$(diff "$FIX/schema8-changes.diff" "$T_TMP/changes.diff" | head -n 12 | tr '\n' ' ' | cut -c1-600)"
fi
finish
