#!/usr/bin/env bash
# recipes.sh — every recipe of recipes/ runs for real, shortened: its job file copied with the
# target(s) pointed at this test's own small databases (SQLite files here; for pg-memory a
# PostgreSQL of its own from tests/servers.sh), no warm-up, 1 s windows, 50 transactions per
# user, but the swept lists exactly as the recipe has them, so each has the recipe's steps
# (counted by `experiment --dry-run` on the recipe itself). ha-compare's run.sh runs with tiny
# sizes. Then scripts/gallery.sh renders every recipe's charts as PNG from these results, and
# each PNG is checked (a PNG, not blank, at most 300 KB); so are gallery.sh's own failures.
# DG_TEST_KEEP_CACHES=1 turns the recipes' drop_caches=1 off (it empties the whole host's page
# cache: not on a machine shared with someone measuring).
. "$(dirname "$0")/../lib.sh"

RES=$T_TMP/r.db
# the copies live in $T_TMP/recipes/NAME/job.ini: the path stored with each experiment ends in
# recipes/NAME/job.ini, which is how gallery.sh finds a recipe's latest experiment
REC=$T_TMP/recipes
PG_CTL=/usr/lib/postgresql/15/bin/pg_ctl
export DG_SERVERS_ENV=$T_TMP/servers.env
trap '[[ -f $DG_SERVERS_ENV ]] && "$DG_ROOT/tests/servers.sh" stop all >/dev/null 2>&1; [[ -n ${DG_KEEP_TMP:-} ]] || rm -rf "$T_TMP"' EXIT
DROP=1
[[ ${DG_TEST_KEEP_CACHES:-} == 1 ]] && DROP=0

# shorten NAME KEY=VALUE...: recipes/NAME/job.ini copied to $REC/NAME/job.ini with each KEY's
# value replaced where the file sets it (added to [global] where it does not); the rest, the
# swept lists included, as the recipe has it
shorten() {
    local name=$1
    shift
    mkdir -p "$REC/$name"
    python3 - "$DG_ROOT/recipes/$name/job.ini" "$REC/$name/job.ini" "$@" <<'EOF'
import re, sys
src, dst, over = sys.argv[1], sys.argv[2], dict(a.split("=", 1) for a in sys.argv[3:])
out, seen, at = [], set(), None
for line in open(src):
    m = re.match(r"([a-z_]+)=", line)
    if m and m.group(1) in over:
        line = f"{m.group(1)}={over[m.group(1)]}\n"
        seen.add(m.group(1))
    out.append(line)
    if line.strip() == "[global]":
        at = len(out)
out[at:at] = [f"{k}={v}\n" for k, v in over.items() if k not in seen]
open(dst, "w").write("".join(out))
EOF
}

# run_recipe NAME: the shortened copy run; its steps checked against the recipe's own plan
run_recipe() {
    local name=$1 t0=$SECONDS
    run_dg "$T_TMP/$name.json" "$T_TMP/$name.err" experiment "$REC/$name/job.ini" --json --results "$RES"
    check_exit "$name: the shortened recipe runs and exits 0" 0
    [[ $RC == 0 ]] || sed 's/^/# /' "$T_TMP/$name.err" | tail -n 15
    echo "# $name: $((SECONDS - t0)) s"
    "$DG" experiment "$DG_ROOT/recipes/$name/job.ini" --dry-run --results "$T_TMP/none.db" >"$T_TMP/$name.plan" 2>&1
    steps_check "$name" "$T_TMP/$name.plan" "$T_TMP/$name.json" | relay
}

# steps_check NAME PLAN JSON: as many steps as the recipe's plan, each with the plan's swept
# values, complete, with non-zero figures (NOPM and TPM; rows/s and MB/s for stress)
steps_check() {
    python3 - "$@" <<'EOF'
import json, re, sys
name, plan, doc = sys.argv[1], open(sys.argv[2]).read(), sys.argv[3]
def say(c, what): print(("ok" if c else "not ok") + f" - {name}: {what}")
want = [json.loads(m) for m in re.findall(r"^step \d+/\d+ \[[^\]]*\] (\{.*\})$", plan, re.M)]
try:
    steps = json.load(open(doc))["steps"]
except Exception as e:
    say(False, f"the experiment's JSON: {e}")
    sys.exit()
say(len(want) > 0 and len(steps) == len(want), f"{len(steps)} steps, as the recipe's {len(want)}")
say(len(steps) == len(want) and all(all(str(s.get(k)) == v for k, v in w.items() if k != "section") for s, w in zip(steps, want)),
    "each step has the recipe's swept values: " + ", ".join(",".join(v for k, v in w.items()) for w in want))
bad = [(s["step"], s["status"]) for s in steps if s["status"] != "complete"]
say(steps and not bad, "every step complete" + (f": not {bad}" if bad else ""))
if steps and steps[0]["workload"] == "stress":
    figs = [(s.get("rows_per_s") or 0, s.get("mb_per_s") or 0) for s in steps]
    say(steps and all(a > 0 and b > 0 for a, b in figs), f"every step has rows/s and MB/s: {[(round(a), round(b, 1)) for a, b in figs]}")
else:
    figs = [(s.get("nopm") or 0, s.get("tpm") or 0) for s in steps]
    say(steps and all(a > 0 and b > 0 for a, b in figs), f"every step has NOPM and TPM: {figs}")
EOF
}

# ---- the databases: one TPC-C warehouse loaded once and copied, a small stress table ---------
check "a 1-warehouse SQLite database (sqlite_tpcc)" sqlite_tpcc "$T_TMP/tpcc.db"
for f in sqlite vus db1 db2 db3 db4; do cp "$T_TMP/tpcc.db" "$T_TMP/$f.db"; done
expect_exit "stress prepare 20000 rows into SQLite" 0 stress prepare --target "sqlite:$T_TMP/stress.db" --rows 20000

# ---- the SQLite recipes ----------------------------------------------------------------------
# Under AddressSanitizer dbgauge's own memory (the allocator's quarantine of freed blocks, 256 MB
# by default, and its shadow) is charged to the cgroup it puts itself in with SQLite: at the
# recipe's 256M the kernel's OOM killer ends it (exit 137). The cap is kept, larger.
CAP=()
[[ -n ${ASAN_OPTIONS:-} ]] && CAP=(mem_cap=2G)
shorten sqlite-memory "target=sqlite:$T_TMP/sqlite.db" warmup=0s duration=1s drop_caches=$DROP "${CAP[@]}"
run_recipe sqlite-memory
# mem_cap kept: as root it is a memory cgroup; either way each step says what became of it
python3 - "$T_TMP/sqlite-memory.json" <<'EOF' | relay
import json, sys
try: st = json.load(open(sys.argv[1]))["steps"]
except Exception: st = []
said = [[x for x in s["summary"].get("memory", {}).get("applied", []) + s["summary"].get("memory", {}).get("not_applied", [])
         if x.startswith("mem_cap")] for s in st]
print(("ok" if st and all(said) else "not ok") + f" - sqlite-memory: each step records its mem_cap: {said[:1]}")
EOF

shorten vus-fixed-txns "target=sqlite:$T_TMP/vus.db" txns_per_vu=50
run_recipe vus-fixed-txns

shorten read-stress-threads "target=sqlite:$T_TMP/stress.db" warmup=0s duration=1s
run_recipe read-stress-threads

shorten four-databases "targets=sqlite:$T_TMP/db1.db,sqlite:$T_TMP/db2.db,sqlite:$T_TMP/db3.db,sqlite:$T_TMP/db4.db" warmup=0s duration=1s
run_recipe four-databases

# ---- pg-memory: a PostgreSQL of this test's own, restarted by dbgauge at each step -------------
if [[ -n ${DG_NO_PG:-} ]]; then # a check that needs a server fails rather than skips
    not_ok "pg-memory" "needs PostgreSQL: not run with --no-pg"
elif ! "$DG_ROOT/tests/servers.sh" start pg >"$T_TMP/servers.log" 2>&1; then
    not_ok "pg-memory: tests/servers.sh start pg" "$(tail -n 5 "$T_TMP/servers.log")"
else
    # shellcheck disable=SC1090
    . "$DG_SERVERS_ENV"
    # ALTER SYSTEM needs a superuser: the test server's own role becomes one (over the admin
    # socket, trust); its password goes to dbgauge in PGPASSWORD, never on the command line
    psql "$DG_PG_ADMIN_URL" -XqAtc "ALTER ROLE dbgauge SUPERUSER" >/dev/null 2>"$T_TMP/psql.err"
    check "pg-memory: the test server's role is a superuser" test $? = 0
    export PGPASSWORD=$DG_PG_PASSWORD
    expect_exit "pg-memory: load 1 warehouse into PostgreSQL" 0 tpcc load --target "$DG_PG_URL" --warehouses 1
    # db_memory 512M..16M and mem_cap=768M as the recipe has them: they fit the test server
    shorten pg-memory "target=$DG_PG_URL" warmup=0s duration=1s "pg_datadir=$DG_PG_DATADIR" "pg_ctl=$PG_CTL" drop_caches=$DROP
    run_recipe pg-memory
    python3 - "$T_TMP/pg-memory.json" <<'EOF' | relay
import json, sys
try: st = json.load(open(sys.argv[1]))["steps"]
except Exception: st = []
sb = [s["summary"]["settings"].get("shared_buffers") for s in st]
print(("ok" if sb == ["512MB", "256MB", "128MB", "64MB", "32MB", "16MB"] else "not ok") +
      f" - pg-memory: each step ran with its shared_buffers (restarted): {sb}")
EOF
    unset PGPASSWORD
    "$DG_ROOT/tests/servers.sh" stop pg >/dev/null 2>&1
fi

# ---- mariadb-memory: the suite's MariaDB, a database of this test's own, its pool put back -----
if [[ -n ${DG_NO_MY:-} || -z ${DG_MY_PORT:-} ]]; then # a check that needs a server fails rather than skips
    not_ok "mariadb-memory" "needs MariaDB (tests/run.sh starts it; not with --no-my)"
else
    # SET GLOBAL needs SUPER: root over TCP without a password (tests/servers.sh's admin account)
    my() { env -u MYSQL_PWD mariadb -h127.0.0.1 -P"$DG_MY_PORT" -uroot -NBe "$1"; }
    pool=$(my "SELECT @@innodb_buffer_pool_size")
    my "DROP DATABASE IF EXISTS dg_recipes; CREATE DATABASE dg_recipes"
    MY_URL="mysql://root@127.0.0.1:$DG_MY_PORT/dg_recipes"
    expect_exit "mariadb-memory: load 1 warehouse into MariaDB" 0 tpcc load --target "$MY_URL" --warehouses 1 --jobs 2
    shorten mariadb-memory "target=$MY_URL" warmup=0s duration=1s
    run_recipe mariadb-memory
    python3 - "$T_TMP/mariadb-memory.json" <<'EOF' | relay
import json, sys
try: st = json.load(open(sys.argv[1]))["steps"]
except Exception: st = []
bp = [int(s["summary"]["settings"].get("innodb_buffer_pool_size", 0)) >> 20 for s in st]
fm = {s["summary"]["settings"].get("innodb_flush_method") for s in st}
print(("ok" if bp == [512, 256, 128, 64, 32, 16] else "not ok") +
      f" - mariadb-memory: each step ran with its buffer pool (MiB, resized live): {bp}")
print(("ok" if fm == {"O_DIRECT"} else "not ok") + f" - mariadb-memory: around the page cache (innodb_flush_method {fm})")
EOF
    # the pool as it was, for the suites after this one
    my "DROP DATABASE dg_recipes; SET GLOBAL innodb_buffer_pool_size = $pool"
fi

# ---- ha-compare: run.sh with tiny sizes (it starts and stops servers of its own) -------------
ha() { # ha WHAT: recipes/ha-compare/run.sh WHAT into this test's results
    local t0=$SECONDS
    RESULTS=$RES ROWS=2000 ITER=2 TXNS=20 W=1 DG_BIN=$DG "$DG_ROOT/recipes/ha-compare/run.sh" "$1" \
        >"$T_TMP/ha-$1.out" 2>"$T_TMP/ha-$1.err" </dev/null
    RC=$? T_DG_ERR=$T_TMP/ha-$1.err
    echo "# ha-compare $1: $((SECONDS - t0)) s"
}
# `writes` does not fit this suite: alone, at its smallest (TXNS=20 W=1), it took 2 min 32 s on
# the 2-core machine (a primary with a standby, MariaDB and a 3-node Galera cluster started, four
# loads, 30 steps). Only `reads` runs, unless DG_TEST_HA_WRITES=1; failover (minutes of windows
# and Galera's restart) never here.
HA_WRITES=${DG_TEST_HA_WRITES:-0}
if [[ -n ${DG_NO_PG:-} ]]; then
    not_ok "ha-compare" "needs PostgreSQL: not run with --no-pg"
else
    ha reads
    check_exit "ha-compare reads: run.sh exits 0" 0
    [[ $RC == 0 ]] || sed 's/^/# /' "$T_TMP/ha-reads.err" | tail -n 15
    check "ha-compare reads: prints the comparison of its two experiments" \
        grep -Eq "^== read stress: a single server \(exp:[0-9]+\) against the synchronous standby read from \(exp:[0-9]+\)" "$T_TMP/ha-reads.out"
    check "ha-compare reads: stored complete: 2 experiments of 6 steps" test \
        "$(sqlite3 "$RES" "SELECT group_concat(status || '/' || nsteps) FROM experiment WHERE label LIKE 'ha-compare reads-%'")" = "complete/6,complete/6"
    # compare's charts name each side by its experiment and label (the images' legends say which is which)
    a=$(sqlite3 "$RES" "SELECT max(id) FROM experiment WHERE label = 'ha-compare reads-single'")
    b=$(sqlite3 "$RES" "SELECT max(id) FROM experiment WHERE label = 'ha-compare reads-standby'")
    "$DG" compare "exp:${a:-0}" "exp:${b:-0}" --results "$RES" -o "$T_TMP/cmp.html" >/dev/null 2>&1
    check "ha-compare reads: compare's chart names its sides by label" test \
        "$(grep -o "\"name\":\"experiment [0-9]*: ha-compare reads-s[a-z]*\"" "$T_TMP/cmp.html" | sort -u | wc -l)" = 2
    if [[ $HA_WRITES == 1 ]]; then
        ha writes
        check_exit "ha-compare writes: run.sh exits 0" 0
        [[ $RC == 0 ]] || sed 's/^/# /' "$T_TMP/ha-writes.err" | tail -n 15
        check "ha-compare writes: stored complete: 5 experiments of 6 steps" test \
            "$(sqlite3 "$RES" "SELECT count(*) FROM experiment WHERE label LIKE 'ha-compare writes-%' AND status = 'complete' AND nsteps = 6")" = 5
    fi
fi

# ---- report.js: #chart=ID shows that chart alone; without the hash the whole report ----------
EXP=$(sqlite3 "$RES" "SELECT max(id) FROM experiment WHERE file LIKE '%/sqlite-memory/job.ini'" 2>/dev/null)
"$DG" report "exp:${EXP:-0}" --results "$RES" -o "$T_TMP/sm.html" >/dev/null 2>&1
nfig=$(grep -o '<figure class="chart" id=' "$T_TMP/sm.html" | wc -l)
# the page three ways, as Chromium leaves it after its scripts, and the whole page's screenshot
# for the PNG checks below: one browser (scripts/browser.py)
mkdir -p "$T_TMP/broken"
URL=file://$T_TMP/sm.html
"$DG_ROOT/scripts/browser.py" "dom:1000x560:$URL:$T_TMP/all.dom" "dom:1000x560:$URL#chart=exp${EXP:-0}-lat:$T_TMP/one.dom" \
    "dom:1000x560:$URL#chart=nosuch:$T_TMP/bad.dom" "shot:1000x560:$URL:$T_TMP/broken/page.png" >"$T_TMP/browser.log" 2>&1
check "browser.py: the three DOMs and the screenshot taken" test "$(grep -c '^ok ' "$T_TMP/browser.log")" = 4
check "report.js: without a hash every chart of the report is there and drawn ($nfig)" \
    grep -q "data-charts=\"$nfig/$nfig\"" "$T_TMP/all.dom"
check "report.js: #chart=ID leaves that one chart alone in the page, drawn, without its table" test \
    "$(grep -o '<figure class="chart" id=' "$T_TMP/one.dom" | wc -l) $(grep -c "id=\"exp${EXP:-0}-lat\"" "$T_TMP/one.dom") $(grep -c '<header\|<h2\|<details' "$T_TMP/one.dom") $(grep -c 'data-charts="1/1"' "$T_TMP/one.dom")" = "1 1 0 1"
check "report.js: #chart= of no chart says so in data-errors" grep -q 'data-errors="[^"]*#chart=nosuch: no such chart' "$T_TMP/bad.dom"

# ---- PNG checks, and that they fail on what they must ---------------------------------------
# png_verdict FILE...: "FILE ok" or "FILE bad: WHY" per file: a PNG (its signature and
# chunks), over 2 KB, at most 300 KB, not blank (a blank page's rows are all alike: a chart has
# a hundred different ones or more) and white in its top row (the chart alone: a whole report
# begins with its dark header)
png_verdict() {
    python3 - "$@" <<'EOF'
import struct, sys, zlib
def verdict(p):
    b = open(p, "rb").read()
    if b[:8] != b"\x89PNG\r\n\x1a\n": return "not a PNG (signature)"
    if len(b) <= 2048: return f"{len(b)} bytes: not over 2 KB"
    if len(b) > 300 * 1024: return f"{len(b)} bytes: over 300 KB"
    pos, idat, w = 8, b"", 0
    while pos + 8 <= len(b):
        n, t = struct.unpack(">I4s", b[pos:pos + 8]); d = b[pos + 8:pos + 8 + n]; pos += 12 + n
        if t == b"IHDR": w, h, depth, ct = struct.unpack(">IIBB", d[:10])
        elif t == b"IDAT": idat += d
    if not w or depth != 8 or ct not in (2, 6): return "no 8-bit RGB(A) IHDR"
    try: raw = zlib.decompress(idat)
    except zlib.error as e: return f"its image data: {e}"
    bpp = 3 if ct == 2 else 4; stride = 1 + w * bpp
    if len(raw) != h * stride: return "image data of the wrong size"
    rows = len({raw[i * stride:(i + 1) * stride] for i in range(h)})
    if rows < 60: return f"blank: {rows} different rows"
    f, x, top = raw[0], raw[1:stride], bytearray(w * bpp)  # the first row unfiltered (no row above)
    for i in range(len(x)):
        a = top[i - bpp] if i >= bpp else 0
        top[i] = (x[i] + (a if f in (1, 4) else a // 2 if f == 3 else 0)) & 255
    if any(v != 255 for k, v in enumerate(top) if ct == 2 or k % 4 != 3): return "its top row is not white"
    return None
for p in sys.argv[1:]:
    try: why = verdict(p)
    except Exception as e: why = f"unreadable: {e}"
    print(p, "ok" if why is None else "bad: " + why)
EOF
}
# made on purpose: blank (white), oversized (noise), tiny, not a PNG, the whole report page
python3 - "$T_TMP/broken" <<'EOF'
import os, struct, sys, zlib
d = sys.argv[1]; os.makedirs(d, exist_ok=True)
def png(path, w, h, row):
    ch = lambda t, x: struct.pack(">I", len(x)) + t + x + struct.pack(">I", zlib.crc32(t + x))
    data = b"".join(b"\0" + row(y) for y in range(h))
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + ch(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
                           ch(b"IDAT", zlib.compress(data, 9)) + ch(b"IEND", b""))
png(f"{d}/blank.png", 1000, 560, lambda y: b"\xff" * 3000)
png(f"{d}/noise.png", 600, 600, lambda y: os.urandom(1800))
png(f"{d}/tiny.png", 1, 1, lambda y: b"\xff\xff\xff")
open(f"{d}/text.png", "w").write("not a picture\n" * 400)
EOF
png_verdict "$T_TMP"/broken/*.png >"$T_TMP/broken.txt"
for want in "blank.png bad: blank" "noise.png bad: .* over 300 KB" "tiny.png bad: .* not over 2 KB" \
    "text.png bad: not a PNG" "page.png bad: its top row is not white"; do
    check "the PNG check rejects ${want%% *} (${want#* bad: })" grep -q "/$want" "$T_TMP/broken.txt"
done

# ---- scripts/gallery.sh on this test's results -----------------------------------------------
t0=$SECONDS
GALLERY=() # every recipe; with --no-pg those that ran
[[ -n ${DG_NO_PG:-} ]] && GALLERY=(sqlite-memory vus-fixed-txns read-stress-threads four-databases)
"$DG_ROOT/scripts/gallery.sh" --results "$RES" --out "$T_TMP/png" "${GALLERY[@]}" >"$T_TMP/gallery.out" 2>"$T_TMP/gallery.err"
RC=$? T_DG_ERR=$T_TMP/gallery.err
echo "# gallery.sh: $((SECONDS - t0)) s, $(grep -c '^wrote ' "$T_TMP/gallery.out") PNGs"
if [[ $HA_WRITES == 1 || -n ${DG_NO_PG:-} ]]; then
    check_exit "gallery.sh exits 0" 0
else # ha-compare writes was not run here: its three comparisons are said missing, nothing else
    check "gallery.sh exits 1, ha-compare's writes alone missing" test "$RC:$(grep -vc "ha-compare: no experiment labelled 'ha-compare writes-" "$T_TMP/gallery.err")" = "1:0"
fi
sed 's/^/# /' "$T_TMP/gallery.err" | head -n 10
for d in "$DG_ROOT"/recipes/*/; do
    r=$(basename "$d")
    [[ -n ${DG_NO_PG:-} && ($r == pg-memory || $r == ha-compare) ]] && continue
    pngs=("$T_TMP/png/$r"/*.png)
    if [[ ! -e ${pngs[0]} ]]; then not_ok "gallery: $r has its charts as PNG" "none in $T_TMP/png/$r"; continue; fi
    png_verdict "${pngs[@]}" >"$T_TMP/verdict.txt"
    if grep -q " bad: " "$T_TMP/verdict.txt"; then
        not_ok "gallery: $r's ${#pngs[@]} PNGs are charts (PNG, not blank, 2-300 KB)" "$(grep ' bad: ' "$T_TMP/verdict.txt" | head -n 3)"
    else
        ok "gallery: $r's ${#pngs[@]} PNGs are charts (PNG, not blank, 2-300 KB): $(cd "$T_TMP/png/$r" && echo *.png)"
    fi
done
check "gallery: four-databases' one step, of four targets at once, has each target's charts" \
    test -s "$T_TMP/png/four-databases/targets-throughput.png" -a -s "$T_TMP/png/four-databases/targets-latency.png"
check "gallery.sh prints each PNG it wrote" test "$(grep -c '^wrote .*\.png' "$T_TMP/gallery.out")" = "$(find "$T_TMP/png" -name '*.png' | wc -l)"

# ---- gallery.sh's own failures ----------------------------------------------------------------
gal() { # gal ARGS...: gallery.sh, its output in gal.out and gal.err; sets RC
    "$DG_ROOT/scripts/gallery.sh" "$@" >"$T_TMP/gal.out" 2>"$T_TMP/gal.err"
    RC=$? T_DG_ERR=$T_TMP/gal.err
}
gal --bogus
check "gallery.sh: an unknown option exits 2 naming it" test "$RC:$(grep -c -- '--bogus' "$T_TMP/gal.err")" = "2:1"
gal --results "$RES" no-such-recipe
check "gallery.sh: an unknown recipe exits 2 naming it" test "$RC:$(grep -c 'no-such-recipe' "$T_TMP/gal.err")" = "2:1"
gal --results "$T_TMP/none.db"
check "gallery.sh: a missing results file exits 2 naming it" test "$RC:$(grep -c 'none.db' "$T_TMP/gal.err")" = "2:1"
gal --results
check "gallery.sh: --results without a value exits 2 naming it" test "$RC:$(grep -c -- '--results: needs a value' "$T_TMP/gal.err")" = "2:1"
# a screenshot tool (scripts/browser.py's command line: shot:WxH:URL:FILE...) that writes each
# FILE as FAKE says: the PNG of $FAKE_PNG, a big one, or nothing
cat >"$T_TMP/fake-browser" <<'EOF'
#!/bin/sh
for a; do out=${a##*:}; case $FAKE in png) cp "$FAKE_PNG" "$out" ;; big) cp "$FAKE_BIG" "$out" ;; esac; done
EOF
chmod +x "$T_TMP/fake-browser"
export FAKE_PNG=$T_TMP/png/vus-fixed-txns/throughput.png FAKE_BIG=$T_TMP/broken/noise.png
n_vus=$(grep -c '^wrote .*/vus-fixed-txns/' "$T_TMP/gallery.out") # its charts: 3, or 2 without disk traffic
n_rst=$(grep -c '^wrote .*/read-stress-threads/' "$T_TMP/gallery.out")
FAKE=big DG_BROWSER=$T_TMP/fake-browser gal --results "$RES" --out "$T_TMP/fake" vus-fixed-txns
check "gallery.sh: a PNG over 300 KB fails it (exit 1, said)" test "$RC:$(grep -c 'over the 300 KB' "$T_TMP/gal.err")" = "1:$n_vus"
FAKE=none DG_BROWSER=$T_TMP/fake-browser gal --results "$RES" --out "$T_TMP/fake" vus-fixed-txns
check "gallery.sh: no screenshot fails it (exit 1, said)" test "$RC:$(grep -c 'wrote no PNG' "$T_TMP/gal.err")" = "1:$n_vus"
# a recipe without its experiment: said, the others go on, exit 1
cp "$RES" "$T_TMP/partial.db"
sqlite3 "$T_TMP/partial.db" "UPDATE experiment SET file = 'elsewhere.ini' WHERE file LIKE '%/sqlite-memory/job.ini'"
FAKE=png DG_BROWSER=$T_TMP/fake-browser gal --results "$T_TMP/partial.db" --out "$T_TMP/fake" sqlite-memory read-stress-threads
check "gallery.sh: a recipe without its experiment is said, the next one done, exit 1" test \
    "$RC:$(grep -c 'sqlite-memory: no experiment of recipes/sqlite-memory/job.ini' "$T_TMP/gal.err"):$(grep -c '^wrote .*/read-stress-threads/' "$T_TMP/gal.out")" = "1:1:$n_rst"
finish
