#!/usr/bin/env bash
# golden.sh — the SQL dbgauge would send to engines no test can start here (Microsoft SQL
# Server), printed by `dbgauge tpcc sql DIALECT` and compared with tests/golden/DIALECT/.
# A difference fails; `tests/e2e/golden.sh --update` rewrites the files (review the diff!).
. "$(dirname "$0")/../lib.sh"

update=0
[[ ${1:-} == --update ]] && update=1
for d in mssql; do
    want=$DG_ROOT/tests/golden/$d/tpcc.sql
    run_dg "$T_TMP/$d.sql" "$T_TMP/$d.err" tpcc sql "$d"
    check_exit "$d: dbgauge tpcc sql $d exits 0" 0
    if [[ $update == 1 ]]; then
        mkdir -p "$(dirname "$want")" && cp "$T_TMP/$d.sql" "$want"
        echo "# updated $want"
    fi
    if [[ ! -f $want ]]; then
        not_ok "$d: golden file" "$want is missing (tests/e2e/golden.sh --update makes it)"
    elif diff -u "$want" "$T_TMP/$d.sql" >"$T_TMP/$d.diff"; then
        ok "$d: TPC-C SQL matches $(basename "$(dirname "$want")")/$(basename "$want")"
    else
        not_ok "$d: TPC-C SQL differs from the golden file" "$(head -c 600 "$T_TMP/$d.diff")"
    fi
    # the T-SQL shapes that must be there (and the PostgreSQL ones that must not)
    for pat in 'TOP \(1\)' 'WITH \(UPDLOCK, ROWLOCK\)' 'OUTPUT inserted\.' 'DATETIME2' 'PRIMARY KEY CLUSTERED' \
        'SET NOCOUNT ON' 'CREATE OR ALTER PROCEDURE dbgauge_new_order' 'EXEC dbgauge_delivery'; do
        if grep -Eq "$pat" "$T_TMP/$d.sql"; then ok "$d: has /$pat/"; else not_ok "$d: has /$pat/" "missing"; fi
    done
    for pat in ' LIMIT ' 'FOR UPDATE' 'RETURNING' ' TIMESTAMP' 'ANALYZE'; do
        if grep -q -- "$pat" "$T_TMP/$d.sql"; then not_ok "$d: no '$pat'" "$(grep -m1 -- "$pat" "$T_TMP/$d.sql")"; else ok "$d: no '$pat'"; fi
    done
done
expect_exit "tpcc sql with an unknown dialect exits 2" 2 tpcc sql oracle
finish
