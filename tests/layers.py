#!/usr/bin/env python3
"""layers.py — checks the rules of docs/architecture.md on a source tree: who may include
whom, no engine header outside drivers/ (and the store's own SQLite), no <mpi.h> outside
dist/, no driver slot called nor field read outside core/driver.c and drivers/, no thread in
a workload, no include cycle among a layer's modules, no function longer than the limit.
Prints one `ok -`/`not ok -` line per rule; exit 1 when a rule is broken. Reads files only.
usage: layers.py SRC_DIR [--max-function-lines N]"""
import os
import re
import sys

ENGINE_HEADERS = {"sqlite3.h", "libpq-fe.h", "mysql.h", "sql.h", "sqlext.h", "sqltypes.h", "errmsg.h"}
LAYERS = ("core", "drivers", "workloads", "results", "report", "dist", "live", "cmd")
# Which layers a layer's files may include (besides its own and system headers).
MAY_INCLUDE = {
    "core": set(),
    "drivers": {"core"},
    "workloads": {"core"},
    "results": {"core"},
    "report": {"core", "results"},
    "dist": {"core"},
    "live": {"core", "report"},
    "cmd": {"core", "results", "report", "workloads", "dist", "live"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def sources(root):
    for d, _, files in os.walk(root):
        for f in sorted(files):
            if f.endswith((".c", ".h")):
                p = os.path.join(d, f)
                yield os.path.relpath(p, root), p


def layer_of(rel):
    top = rel.split(os.sep)[0]
    return top if top in LAYERS else None


def includes(path):
    with open(path, encoding="utf-8", errors="replace") as fh:
        for n, line in enumerate(fh, 1):
            m = INCLUDE.match(line)
            if m:
                yield n, m.group(1), m.group(2)


def check_layers(root):
    bad = []
    for rel, path in sources(root):
        layer = layer_of(rel)
        if layer is None:
            continue
        for n, kind, inc in includes(path):
            base = os.path.basename(inc)
            if kind == "<" and base == "mpi.h" and layer != "dist":
                bad.append(f"{rel}:{n}: <mpi.h> outside src/dist/")
                continue
            if kind == "<" and base in ENGINE_HEADERS:
                store_sqlite = layer == "results" and base == "sqlite3.h"
                if layer != "drivers" and not store_sqlite:
                    bad.append(f"{rel}:{n}: engine header <{inc}> outside src/drivers/")
                continue
            if kind != '"':
                continue
            target = inc.split("/")[0]
            if target in LAYERS and target != layer and target not in MAY_INCLUDE[layer]:
                bad.append(f"{rel}:{n}: {layer}/ may not include {inc}")
    return bad


# A member of struct dg_driver reached through a pointer or value named drv (t.drv->caps,
# h->drv->exec(...), drv.name) or through the registry's table (dg_drivers[i]->name).
DRIVER_MEMBER = re.compile(r"\b(?:drv|dg_drivers\s*\[[^]]*\])\s*(?:->|\.)\s*([A-Za-z_]\w*)(\s*\()?")


def check_raw_slots(root):
    """Outside drivers/ and core/driver.[ch] (which declares the struct and its dg_* wrappers)
    no member of a driver is called or read: dg_driver_name, dg_driver_caps,
    dg_driver_dialect, dg_driver_has and the connection wrappers say what they hold."""
    bad = []
    for rel, path in sources(root):
        if layer_of(rel) == "drivers" or rel == os.path.join("core", "driver.c") or rel == os.path.join("core", "driver.h"):
            continue
        with open(path, encoding="utf-8", errors="replace") as fh:
            for n, line in enumerate(fh, 1):
                m = DRIVER_MEMBER.search(line)
                if m:
                    what = "slot called" if m.group(2) else f"field read ({m.group(1)})"
                    bad.append(f"{rel}:{n}: a driver {what} directly: {line.strip()[:80]}")
    return bad


def check_threads(root):
    bad = []
    for rel, path in sources(root):
        if layer_of(rel) not in ("workloads", "drivers", "report", "results"):
            continue
        for n, kind, inc in includes(path):
            if inc == "pthread.h":
                bad.append(f"{rel}:{n}: {layer_of(rel)}/ starts or locks threads itself (use core/pool.h)")
    return bad


def module_of(rel):
    """x.c, x.h and x_internal.h (a module's private header) are one module."""
    m = os.path.splitext(rel)[0]
    return m[: -len("_internal")] if m.endswith("_internal") else m


def check_cycles(root):
    """Within each layer, the modules (x.c + x.h) and their include edges must form no cycle."""
    edges = {}
    for rel, path in sources(root):
        m = module_of(rel)
        edges.setdefault(m, set())
        for _, kind, inc in includes(path):
            if kind == '"':
                other = module_of(inc)
                if other != m and layer_of(inc) == layer_of(rel) and layer_of(rel):
                    edges[m].add(other)
    bad, state = [], {}

    def visit(m, stack):
        state[m] = 1
        stack.append(m)
        for o in sorted(edges.get(m, ())):
            if state.get(o) == 1:
                cyc = stack[stack.index(o):] + [o]
                bad.append("include cycle: " + " -> ".join(cyc))
            elif o in edges and not state.get(o):
                visit(o, stack)
        stack.pop()
        state[m] = 2

    for m in sorted(edges):
        if not state.get(m):
            visit(m, [])
    return bad


SIGNATURE = re.compile(r"^[A-Za-z_][A-Za-z0-9_ \*]*\b([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def check_function_length(root, limit):
    """A function: a signature at column 0, its body from a `{` alone at column 0 to the next
    `}` at column 0 (the project's one style)."""
    bad = []
    for rel, path in sources(root):
        if not rel.endswith(".c"):
            continue
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().split("\n")
        name, start = None, None
        for i, line in enumerate(lines):
            if start is None:
                m = SIGNATURE.match(line)
                if m and not line.rstrip().endswith(";"):
                    name = m.group(1)
                if line == "{" and name:
                    start = i
            elif line.startswith("}"):
                length = i - start - 1
                if length > limit:
                    bad.append(f"{rel}:{start + 1}: {name} is {length} lines (limit {limit})")
                name, start = None, None
    return bad


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = argv[1]
    limit = 120
    if "--max-function-lines" in argv:
        limit = int(argv[argv.index("--max-function-lines") + 1])
    rules = [
        ("layers include only what they may, engine headers only in drivers/", check_layers(root)),
        ("no driver slot called or field read outside drivers/ and core/driver.c", check_raw_slots(root)),
        ("no thread started or locked in workloads/, drivers/, results/, report/", check_threads(root)),
        ("no include cycle among the modules of a layer", check_cycles(root)),
        (f"no function longer than {limit} lines", check_function_length(root, limit)),
    ]
    failed = 0
    for name, bad in rules:
        if bad:
            failed += 1
            print(f"not ok - {name}: {len(bad)} place(s)")
            for b in bad[:40]:
                print(f"    {b}")
        else:
            print(f"ok - {name}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
