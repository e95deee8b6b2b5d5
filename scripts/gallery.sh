#!/usr/bin/env bash
# gallery.sh — each recipe's charts as PNG images, from dbgauge's own HTML report drawn in
# headless Chromium (report.js shows one chart alone for `#chart=ID`).
#
#   scripts/gallery.sh [--results FILE] [--out DIR] [RECIPE...]
#
# RECIPE: a folder of recipes/ (default: all of them). For each, the latest experiment in FILE
# (default ./recipes-results.db) whose stored file ends in recipes/RECIPE/job.ini is rendered
# with `dbgauge report exp:ID`, and each of its charts is written as recipes/RECIPE/NAME.png
# (with --out DIR: DIR/RECIPE/NAME.png): throughput.png, latency.png, storage.png, and for a
# figure charted apart its name (stress: rows-s.png); a step that drove several targets at once
# adds targets-throughput.png and targets-latency.png from its run's report. ha-compare has
# no job file: its
# run.sh labels its experiments, so the latest "ha-compare reads-single" and "... reads-standby"
# are compared (`dbgauge compare exp:A exp:B`) into reads-*.png, "writes-single", "-async",
# "-sync" into writes-pg-*.png and "writes-mariadb", "-galera" into writes-mariadb-*.png; runs
# labelled "ha-compare failover NAME", when there are any, give failover-NAME.png (their
# throughput per second with the outage shaded; run.sh failover is optional here).
#
# Each PNG must be at most 300 KB (else it fails). A recipe without its experiment is said on
# stderr and the others go on; the exit status is then 1. Bad arguments exit 2.
# Environment: DG_BIN (default build/dbgauge), CHROMIUM (default /usr/bin/chromium),
# DG_BROWSER (what takes the screenshots, default scripts/browser.py: its command line),
# DG_GALLERY_SIZE=WxH (the window, default 1000x560).
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DG=${DG_BIN:-$ROOT/build/dbgauge}
export CHROMIUM=${CHROMIUM:-/usr/bin/chromium} # scripts/browser.py starts it
BROWSER=${DG_BROWSER:-$ROOT/scripts/browser.py}
SIZE=${DG_GALLERY_SIZE:-1000x560}
MAX_BYTES=$((300 * 1024))
RESULTS=./recipes-results.db
OUT=""
RECIPES=()

usage() { echo "usage: scripts/gallery.sh [--results FILE] [--out DIR] [RECIPE...]" >&2; }
bad() { echo "gallery.sh: $*" >&2; usage; exit 2; }

while [[ $# -gt 0 ]]; do
    case $1 in
    --results | --out)
        [[ $# -ge 2 && -n $2 ]] || bad "$1: needs a value"
        if [[ $1 == --results ]]; then RESULTS=$2; else OUT=$2; fi
        shift 2 ;;
    --results=* | --out=*) bad "$1: give the value apart (${1%%=*} VALUE)" ;;
    -h | --help) usage; exit 0 ;;
    -*) bad "$1: unknown option" ;;
    *)
        # a recipe is a folder of recipes/ with a job file or a run.sh: nothing else is looked up
        [[ $1 =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ && (-f $ROOT/recipes/$1/job.ini || -f $ROOT/recipes/$1/run.sh) ]] ||
            bad "$1: no such recipe (a folder of recipes/)"
        RECIPES+=("$1")
        shift ;;
    esac
done
[[ -f $RESULTS ]] || bad "--results: no such file: $RESULTS"
[[ $SIZE =~ ^[0-9]+x[0-9]+$ ]] || bad "DG_GALLERY_SIZE: '$SIZE' is not WxH"
[[ -x $DG ]] || { echo "gallery.sh: no $DG; build first (meson setup build && ninja -C build)" >&2; exit 1; }
[[ -x $CHROMIUM ]] || { echo "gallery.sh: no $CHROMIUM (scripts/deps.sh test installs chromium)" >&2; exit 1; }
[[ -x $BROWSER ]] || { echo "gallery.sh: no $BROWSER" >&2; exit 1; }
command -v sqlite3 >/dev/null || { echo "gallery.sh: no sqlite3 (apt-get install sqlite3)" >&2; exit 1; }
if [[ ${#RECIPES[@]} == 0 ]]; then
    for d in "$ROOT"/recipes/*/; do
        d=${d%/}
        [[ -f $d/job.ini || -f $d/run.sh ]] && RECIPES+=("$(basename "$d")")
    done
fi

TMP=$(mktemp -d /tmp/dg-gallery.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
FAILED=0

# sql QUERY: one value from the results database (read only)
sql() { sqlite3 -readonly -batch -noheader "file:$RESULTS?mode=ro" "$1" 2>/dev/null; }

# latest_by_file NAME: the latest experiment with steps whose file ends in recipes/NAME/job.ini
latest_by_file() {
    local suffix="recipes/$1/job.ini" # NAME is [A-Za-z0-9._-]: safe inside the quotes
    sql "SELECT id FROM experiment WHERE (file = '$suffix' OR substr(file, -length('/$suffix')) = '/$suffix')
         AND EXISTS (SELECT 1 FROM run WHERE experiment_id = experiment.id) ORDER BY id DESC LIMIT 1"
}

# latest_by_label LABEL: the latest experiment with steps labelled LABEL (a fixed text of ours)
latest_by_label() {
    sql "SELECT id FROM experiment WHERE label = '$1'
         AND EXISTS (SELECT 1 FROM run WHERE experiment_id = experiment.id) ORDER BY id DESC LIMIT 1"
}

# chart_names HTML: "ID NAME" per chart of the page, NAME the file name it is saved under
chart_names() {
    python3 - "$1" <<'EOF'
import html, json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
kinds = {"tput": "throughput", "lat": "latency", "disk": "storage"}
cmp_kinds = {"0": "throughput", "1": None, "2": "latency", "3": "storage"}
for cid, data in re.findall(r'<figure class="chart" id="([^"]+)">.*?<script type="application/json" class="chart-data">(.*?)</script>',
                            page, re.S):
    cid = html.unescape(cid)
    m = re.fullmatch(r"(?:exp|run)\d+-(\w+)", cid) or re.fullmatch(r"cmpexp-(\d+)-\d+", cid)
    name = (kinds.get(m.group(1)) if cid.startswith(("exp", "run")) else cmp_kinds.get(m.group(1))) if m else None
    if name is None:  # a figure charted apart (stress: MB/s): its series' name
        d = json.loads(data)
        name = (d["series"][0]["name"] if d.get("series") else cid)
    print(cid, re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "chart")
EOF
}

# shot HTML ID PNG: the chart ID of the page alone, as PNG: queued, and taken with every other
# in one headless Chromium at the end (take_shots), since each start of one costs about 1.5 s of
# CPU and a page in a running one a tenth of that
shot() {
    rm -f "$3"
    printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$TMP/shots"
}

# take_shots: every queued chart in one scripts/browser.py (a page is taken once report.js has
# drawn it); each PNG checked: a PNG, at most 300 KB
take_shots() {
    local html id png size jobs=()
    [[ -s $TMP/shots ]] || return 0
    while IFS=$'\t' read -r html id png; do jobs+=("shot:$SIZE:file://$html#chart=$id:$png"); done <"$TMP/shots"
    "$BROWSER" "${jobs[@]}" >"$TMP/browser.log" 2>&1
    while IFS=$'\t' read -r html id png; do
        if [[ ! -s $png || $(head -c 8 "$png" | od -An -tx1 | tr -d ' \n') != 89504e470d0a1a0a ]]; then
            echo "gallery.sh: $png: chromium wrote no PNG of chart $id: $( (grep -F " $png:" "$TMP/browser.log" || tail -n 2 "$TMP/browser.log") | tail -n 1)" >&2
            FAILED=1
            continue
        fi
        size=$(stat -c %s "$png")
        if ((size > MAX_BYTES)); then
            echo "gallery.sh: $png: $size bytes, over the 300 KB allowed" >&2
            FAILED=1
            continue
        fi
        echo "wrote $png ($((size / 1024)) KB)"
    done <"$TMP/shots"
}

# page HTML DBGAUGE-ARGS...: `dbgauge ARGS` (a report or comparison) written as HTML; a failure
# is said and counted
page() {
    local html=$1
    shift
    "$DG" "$@" --results "$RESULTS" -o "$html" >/dev/null 2>"$TMP/dg.err" && return 0
    echo "gallery.sh: dbgauge $* failed: $(tail -n 2 "$TMP/dg.err")" >&2
    FAILED=1
    return 1
}

# render DIR PREFIX DBGAUGE-ARGS...: a report (or comparison) as HTML, each chart as DIR/PREFIXNAME.png
render() {
    local dir=$1 prefix=$2 html id name
    shift 2
    html=$TMP/page-$RANDOM$RANDOM.html
    page "$html" "$@" || return 1
    mkdir -p "$dir" || { FAILED=1; return 1; }
    local n=0
    while read -r id name; do
        shot "$html" "$id" "$dir/$prefix$name.png"
        n=$((n + 1))
    done < <(chart_names "$html")
    if ((n == 0)); then
        echo "gallery.sh: dbgauge $* has no chart" >&2
        FAILED=1
    fi
}

# missing RECIPE WHAT: a recipe whose results are not there
missing() {
    echo "gallery.sh: $1: no $2 in $RESULTS" >&2
    FAILED=1
}

# compare_labels DIR PREFIX RECIPE LABEL...: the latest experiment of each label side by side
compare_labels() {
    local dir=$1 prefix=$2 recipe=$3 l w id ids=()
    shift 3
    for l in "$@"; do
        w=${l#ha-compare }
        w=${w%%-*} # reads or writes: run.sh's argument
        id=$(latest_by_label "$l")
        [[ -n $id ]] || { missing "$recipe" "experiment labelled '$l' (recipes/ha-compare/run.sh $w makes it)"; return 1; }
        ids+=("exp:$id")
    done
    echo "$recipe: ${ids[*]} ($*)"
    render "$dir" "$prefix" compare "${ids[@]}"
}

ha_compare() {
    local dir=$1 run name
    compare_labels "$dir" reads- ha-compare "ha-compare reads-single" "ha-compare reads-standby"
    compare_labels "$dir" writes-pg- ha-compare "ha-compare writes-single" "ha-compare writes-async" "ha-compare writes-sync"
    compare_labels "$dir" writes-mariadb- ha-compare "ha-compare writes-mariadb" "ha-compare writes-galera"
    # failover runs: optional (run.sh failover needs minutes and Galera); the latest of each
    while IFS='|' read -r run name; do
        [[ $name =~ ^[a-z0-9-]+$ ]] || continue
        echo "ha-compare: run $run (ha-compare failover $name)"
        local html=$TMP/run$run.html
        page "$html" report "$run" || continue
        mkdir -p "$dir" && shot "$html" "run$run-tput" "$dir/failover-$name.png"
    done < <(sql "SELECT max(id), substr(label, 21) FROM run WHERE label LIKE 'ha-compare failover %'
                  GROUP BY label ORDER BY label")
}

# targets_charts DIR EXP: a step that drove several targets at once (targets=) has each
# target's NOPM and latency charted in its run's report: targets-throughput.png and
# targets-latency.png (-stepN before .png when the experiment has more than one step). Only
# the runs with more than one target (run_target) are rendered to look.
targets_charts() {
    local dir=$1 exp=$2 run step n suffix html
    n=$(sql "SELECT count(*) FROM run WHERE experiment_id = $exp")
    while IFS='|' read -r run step; do
        [[ $run =~ ^[0-9]+$ ]] || continue
        html=$TMP/run$run.html
        page "$html" report "$run" || continue
        grep -q "id=\"run$run-tnopm\"" "$html" || continue
        suffix=""
        ((n > 1)) && suffix=-step$step
        shot "$html" "run$run-tnopm" "$dir/targets-throughput$suffix.png"
        shot "$html" "run$run-tlat" "$dir/targets-latency$suffix.png"
    done < <(sql "SELECT id, experiment_step FROM run WHERE experiment_id = $exp
                  AND (SELECT count(*) FROM run_target WHERE run_id = run.id) > 1 ORDER BY experiment_step")
}

for r in "${RECIPES[@]}"; do
    dir=${OUT:+$OUT/$r}
    dir=${dir:-$ROOT/recipes/$r}
    if [[ $r == ha-compare ]]; then
        ha_compare "$dir"
        continue
    fi
    id=$(latest_by_file "$r")
    if [[ -z $id ]]; then
        missing "$r" "experiment of recipes/$r/job.ini (dbgauge experiment recipes/$r/job.ini --results $RESULTS)"
        continue
    fi
    echo "$r: exp:$id"
    render "$dir" "" report "exp:$id"
    targets_charts "$dir" "$id"
done
take_shots
exit $FAILED
