#!/usr/bin/env bash
# layers.sh — the architecture's rules (docs/architecture.md) hold on src/: who includes whom,
# engine headers only in drivers/, no driver slot called nor field read outside drivers/ and
# core/driver.c, no thread in a workload, no include cycle in a layer, no function over 120
# lines. And the checker itself catches each broken rule in a small bad tree made here.
. "$(dirname "$0")/../lib.sh"

check_py() { python3 "$DG_ROOT/tests/layers.py" "$@"; }

check_py "$DG_ROOT/src" >"$T_TMP/src.out" 2>&1
rc=$?
sed 's/^/  /' "$T_TMP/src.out" | grep -v '^  ok - ' || true
check "src/ keeps every rule of docs/architecture.md (tests/layers.py src exits 0)" test "$rc" = 0

# A tree that breaks each rule once.
bad=$T_TMP/bad
mkdir -p "$bad/core" "$bad/workloads/w" "$bad/report" "$bad/cmd" "$bad/drivers"
cat >"$bad/core/a.c" <<'C'
#include <libpq-fe.h>
#include "report/x.h"
C
cat >"$bad/workloads/w/w.c" <<'C'
#include <pthread.h>
#include "results/store.h"
static int f(struct dg_conn_h *h)
{
    return h->drv->exec(h->c, "SELECT 1", 0);
}
C
cat >"$bad/cmd/fields.c" <<'C'
static int g(struct dg_target t, const struct dg_target *p)
{
    int a = t.drv->caps & 1;
    int b = !p->drv->replication;
    return a + b + dg_drivers[0]->name[0];
}
C
printf '#include "report/y.h"\n' >"$bad/report/x.c"
printf '#include "report/x.h"\n' >"$bad/report/y.c"
{
    echo "static int long_one(void)"
    echo "{"
    for i in $(seq 1 121); do echo "    i += $i;"; done
    echo "}"
} >"$bad/cmd/long.c"
check_py "$bad" >"$T_TMP/bad.out" 2>&1
rc=$?
check "the checker fails on a bad tree (exit 1)" test "$rc" = 1
check "it finds an engine header in core/" grep -q 'core/a.c:1: engine header <libpq-fe.h>' "$T_TMP/bad.out"
check "it finds core/ including report/" grep -q 'core/a.c:2: core/ may not include report/x.h' "$T_TMP/bad.out"
check "it finds a workload including results/" grep -q 'workloads/w/w.c:2: workloads/ may not include results/store.h' "$T_TMP/bad.out"
check "it finds a driver slot called from a workload" grep -q 'workloads/w/w.c:5: a driver slot called directly' "$T_TMP/bad.out"
check "it finds a driver field read through a target (t.drv->caps)" grep -q 'cmd/fields.c:3: a driver field read (caps) directly' "$T_TMP/bad.out"
check "it finds one through a pointer (p->drv->replication)" grep -q 'cmd/fields.c:4: a driver field read (replication) directly' "$T_TMP/bad.out"
check "it finds one through the registry (dg_drivers[0]->name)" grep -q 'cmd/fields.c:5: a driver field read (name) directly' "$T_TMP/bad.out"
check "it finds a workload starting threads" grep -q 'workloads/w/w.c:1: workloads/ starts or locks threads' "$T_TMP/bad.out"
check "it finds the include cycle report/x -> report/y -> report/x" grep -q 'include cycle: report/x -> report/y -> report/x' "$T_TMP/bad.out"
check "it finds the 121-line function" grep -q 'cmd/long.c:2: long_one is 121 lines (limit 120)' "$T_TMP/bad.out"
{
    echo "static int fits(void)"
    echo "{"
    for i in $(seq 1 120); do echo "    i += $i;"; done
    echo "}"
} >"$bad/cmd/long.c"
check_py "$bad" >"$T_TMP/bad2.out" 2>&1
check "a 120-line function is within the limit" sh -c "! grep -q 'fits is' '$T_TMP/bad2.out'"

echo "$T_PASSED passed, $T_FAILED failed"
[[ $T_FAILED == 0 ]]
