#!/usr/bin/env bash
# install.sh — what `meson install` puts in place (the binary, the manual page, the bash
# completion, the docs) and the Debian package: built from a copy of the tree, installed, the
# README's demo run with it on SQLite, removed. The page and the completion are made by the
# binary from its option tables (src/cmd/docgen.c); here they are held against what --help
# and the option parser say, so a table and the page cannot drift apart, and each check is
# first shown to fail on a broken copy. Needs man-db, dpkg-dev and debhelper (scripts/deps.sh
# test); the package part needs root.
. "$(dirname "$0")/../lib.sh"

BUILD=$(dirname "$DG")

# --- meson install ------------------------------------------------------------------------
DEST=$T_TMP/dest
meson install -C "$BUILD" --destdir "$DEST" --quiet >"$T_TMP/install.log" 2>&1
check "meson install --destdir exits 0" test $? = 0
prefix=$(meson introspect "$BUILD" --buildoptions | python3 -c 'import json,sys
print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')
P=$DEST$prefix
MAN=$P/share/man/man1/dbgauge.1
COMP=$P/share/bash-completion/completions/dbgauge
for f in bin/dbgauge share/man/man1/dbgauge.1 share/bash-completion/completions/dbgauge \
    share/doc/dbgauge/README.md share/doc/dbgauge/LICENSE; do
    check "installs $f" test -s "$P/$f"
done
# every page of docs/ (README.md links to them): docs/live.md was once left out
for d in "$DG_ROOT"/docs/*.md; do
    check "installs share/doc/dbgauge/docs/${d##*/}" cmp -s "$d" "$P/share/doc/dbgauge/docs/${d##*/}"
done
check "the installed binary runs" test -n "$("$P/bin/dbgauge" --version)"

# --- the manual page ----------------------------------------------------------------------
# man_warnings FILE: what groff says about the page (nothing when it is clean)
man_warnings() { MANWIDTH=80 man --warnings -l "$1" 2>&1 >/dev/null; }
# man_text FILE: the page as a reader sees it
man_text() { MANWIDTH=80 man -l "$1" 2>/dev/null; }
# help_opts ARGS...: the long options `dbgauge ARGS --help` lists on its option lines
help_opts() { "$DG" "$@" --help | grep -oE -- '^ +--[a-z][a-z0-9-]*' | tr -d ' ' | sort -u; }
# man_lacks FILE ARGS...: the options of `dbgauge ARGS --help` that have no entry in the page
# (an entry begins a line at the page's indent; a synopsis or a help text naming the option
# does not count)
man_lacks() {
    local file=$1 text
    shift
    text=$(man_text "$file")
    help_opts "$@" | while read -r o; do grep -qE -- "^ {7}$o( |\$)" <<<"$text" || echo "$o"; done
}
commands=$("$DG" --help | sed -n '/^commands:/,/^$/p' | awk 'NF > 1 {print $1}')

w=$(man_warnings "$MAN")
check "man -l renders the page without a warning${w:+: $w}" test -z "$w"
text=$(man_text "$MAN")
for c in $commands; do
    grep -q "^ *dbgauge $c\$" <<<"$text" && ok "the page has a section for '$c'" || not_ok "the page has a section for '$c'" "missing"
done
for o in --warehouses --mode --test --arrivals --format --dry-run; do
    grep -q -- "$o" <<<"$text" && ok "the page names $o" || not_ok "the page names $o" "missing"
done
lacks=$(man_lacks "$MAN" tpcc run)
check "every option of 'tpcc run --help' is in the page${lacks:+ (lacks: $lacks)}" test -z "$lacks"
lacks=$(for c in $commands; do man_lacks "$MAN" "$c"; done)
check "every option of every command's --help is in the page${lacks:+ (lacks: $lacks)}" test -z "$lacks"
# The checks fail on a broken page: a roff error, and one option's entry gone.
sed '0,/^\.SH COMMANDS/s//.SH COMMANDS\n.nosuchmacro/' "$MAN" >"$T_TMP/bad-roff.1"
check "a page with a roff error is caught" test -n "$(man_warnings "$T_TMP/bad-roff.1")"
sed 's/^\\fB\\-\\-warehouses\\fR.*/\\fB\\-\\-gone\\fR/' "$MAN" >"$T_TMP/no-wh.1"
check "a page without --warehouses is caught" test "$(man_lacks "$T_TMP/no-wh.1" tpcc run)" = --warehouses

# --- the bash completion ------------------------------------------------------------------
# tab FILE WORD...: what <TAB> offers after the words (the last is the one being typed)
tab() {
    bash -c '. "$1" || exit 1; shift
COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
_dbgauge; printf "%s\n" "${COMPREPLY[@]}"' _ "$@" | sort
}
# accepted ARGS... --OPT: the values the parser names when it refuses one
accepted() {
    "$DG" "$@" bogus 2>&1 | sed -n "s/.*is not //p" | sed 's/^one of //; s/,//g; s/ or / /' | tr ' ' '\n' | sort
}
# run_opts ARGS...: the options `ARGS --help` gives to 'run' (all, or a list naming run)
run_opts() {
    "$DG" "$@" --help | python3 -c 'import re,sys
for l in sys.stdin:
    m = re.match(r"  (--[a-z0-9-]+)(?: \S+)? +(\(((?:[a-z]+(?:, )?)+)\) )?", l)
    if m and (not m.group(2) or "run" in m.group(3).split(", ")):
        print(m.group(1))' | sort -u
}
# comp_lacks FILE: the run options of tpcc --help that `dbgauge tpcc run --<TAB>` leaves out
comp_lacks() { comm -23 <(run_opts tpcc run) <(tab "$1" dbgauge tpcc run --); }

check "'dbgauge tp<TAB>' gives tpcc" test "$(tab "$COMP" dbgauge tp)" = tpcc
got=$(tab "$COMP" dbgauge "")
for c in $commands; do
    grep -qx "$c" <<<"$got" && ok "'dbgauge <TAB>' offers $c" || not_ok "'dbgauge <TAB>' offers $c" "got: $got"
done
grep -qx -- --mode <<<"$(tab "$COMP" dbgauge tpcc run --mo)" && ok "'tpcc run --mo<TAB>' gives --mode" ||
    not_ok "'tpcc run --mo<TAB>' gives --mode" "got: $(tab "$COMP" dbgauge tpcc run --mo)"
check "'tpcc run --mode <TAB>' gives the modes the parser takes" \
    test "$(tab "$COMP" dbgauge tpcc run --mode "")" = "$(accepted tpcc run --mode)"
check "'tpcc run --mode=<TAB>' gives them too" \
    test "$(tab "$COMP" dbgauge tpcc run --mode = "")" = "$(accepted tpcc run --mode)"
check "'tpcc run --arrivals <TAB>' gives the arrival kinds" \
    test "$(tab "$COMP" dbgauge tpcc run --arrivals "")" = "$(accepted tpcc run --arrivals)"
check "'oltp --test <TAB>' gives the oltp tests" test "$(tab "$COMP" dbgauge oltp --test "")" = "$(accepted oltp --test)"
check "'report --format <TAB>' gives the formats" test "$(tab "$COMP" dbgauge report --format "")" = "$(accepted report --format)"
check "'tpcc <TAB>' gives the subcommands" test "$(tab "$COMP" dbgauge tpcc "" | xargs)" = "audit check load run"
check "'oltp <TAB>' gives the subcommands" test "$(tab "$COMP" dbgauge oltp "" | xargs)" = "cleanup prepare run"
check "'runs <TAB>' gives show" test "$(tab "$COMP" dbgauge runs "")" = show
check "'tpcc load --<TAB>' leaves out what only run takes" test -z "$(tab "$COMP" dbgauge tpcc load -- | grep -x -- --vus)"
lacks=$(comp_lacks "$COMP")
check "'tpcc run --<TAB>' offers every run option of tpcc --help${lacks:+ (lacks: $lacks)}" test -z "$lacks"
# The check fails on a completion with an option gone.
sed 's/ --mode / /' "$COMP" >"$T_TMP/no-mode.bash"
check "a completion without --mode is caught" test "$(comp_lacks "$T_TMP/no-mode.bash")" = --mode

# --- the licence --------------------------------------------------------------------------
# dep5_problems COPYRIGHT LICENSE: what keeps COPYRIGHT from being a machine-readable
# debian/copyright (DEP-5) that says what LICENSE says; nothing when it does: the Format
# header, a Copyright and a License in each Files paragraph, a text for every licence named,
# and `Files: *` holding LICENSE's copyright line and its permission text word for word.
dep5_problems() {
    python3 - "$1" "$2" <<'PY'
import re, sys
paras = [p for p in re.split(r"\n\s*\n", open(sys.argv[1]).read().strip()) if p.strip()]
def fields(p):
    out, key = {}, None
    for line in p.splitlines():
        if line[:1] in (" ", "\t") and key:
            out[key] += "\n" + line.strip()
        elif ":" in line:
            key, val = line.split(":", 1)
            out[key] = val.strip()
        else:
            print(f"not a field: {line!r}")
    return out
ps = [fields(p) for p in paras]
if not ps or not ps[0].get("Format", "").endswith("/copyright-format/1.0/"):
    print("no DEP-5 Format header first")
texts = {p["License"].split("\n")[0]: p["License"] for p in ps[1:] if "Files" not in p and "License" in p}
files = [p for p in ps[1:] if "Files" in p]
for p in files:
    for k in ("Copyright", "License"):
        if k not in p:
            print(f"Files: {p['Files']} has no {k}")
    name = p.get("License", "").split("\n")[0]
    if name and "\n" not in p["License"] and name not in texts:
        print(f"Files: {p['Files']}: no text for licence {name}")
lic = open(sys.argv[2]).read()
star = next((p for p in files if p["Files"] == "*"), None)
holder = re.search(r"^Copyright \(c\) (.+)$", lic, re.M)
if not star:
    print("no Files: * paragraph")
elif not holder or star.get("Copyright") != holder.group(1):
    print(f"Files: * says Copyright: {star.get('Copyright')}, LICENSE says {holder and holder.group(1)}")
elif not lic.startswith(star.get("License", "?") + " License"):
    print(f"Files: * says License: {star.get('License')}, LICENSE is another")
else:
    words = lambda t: " ".join(t.replace("\n.", "\n").split())
    if words(lic[lic.index("Permission"):]) != words(texts.get(star["License"], "")[len(star["License"]):]):
        print(f"the {star['License']} text differs from LICENSE's")
PY
}
p=$(dep5_problems "$DG_ROOT/debian/copyright" "$DG_ROOT/LICENSE")
check "debian/copyright is DEP-5 and says what LICENSE says${p:+: $p}" test -z "$p"
check "README.md names the licence" grep -q '^## License' "$DG_ROOT/README.md"
# The check fails on a copyright without the licence's text, and on another holder.
awk 'BEGIN { RS = ""; ORS = "\n\n" } !/^License:/' "$DG_ROOT/debian/copyright" >"$T_TMP/no-text.copyright"
check "a debian/copyright without the MIT text is caught" test -n "$(dep5_problems "$T_TMP/no-text.copyright" "$DG_ROOT/LICENSE")"
sed 's/^Copyright: 2026 The dbgauge authors/Copyright: someone else/' "$DG_ROOT/debian/copyright" >"$T_TMP/holder.copyright"
check "a debian/copyright naming another holder is caught" test -n "$(dep5_problems "$T_TMP/holder.copyright" "$DG_ROOT/LICENSE")"

# --- the Debian package -------------------------------------------------------------------
check "debian/changelog's version is the project's" test "$(cd "$DG_ROOT" && dpkg-parsechangelog -S Version)" = \
    "$(meson introspect "$BUILD" --projectinfo | python3 -c 'import json,sys; print(json.load(sys.stdin)["version"])')"
if [[ $(id -u) != 0 ]]; then
    echo "skip - the package: dpkg -i needs root"
elif dpkg-query -W -f='${Status}' dbgauge 2>/dev/null | grep -q "ok installed"; then
    echo "skip - the package: a dbgauge package is installed here already (not replaced)"
else
    # The tree as it is (tracked and new files, not the build directories), built the way a
    # user would; DEB_BUILD_OPTIONS as the brief of the package build: no tests in it.
    mkdir -p "$T_TMP/pkg/src"
    git -C "$DG_ROOT" ls-files -z -co --exclude-standard | (cd "$DG_ROOT" && tar --null -T - -c) | tar -x -C "$T_TMP/pkg/src"
    (cd "$T_TMP/pkg/src" && DEB_BUILD_OPTIONS="nocheck parallel=2" dpkg-buildpackage -us -uc -b) >"$T_TMP/deb.log" 2>&1
    rc=$?
    debs=("$T_TMP"/pkg/dbgauge_*.deb)
    if [[ $rc == 0 && -f ${debs[0]} ]]; then ok "dpkg-buildpackage -us -uc -b builds the package"; else
        not_ok "dpkg-buildpackage -us -uc -b builds the package" "exit $rc: $(tail -n 20 "$T_TMP/deb.log")"
    fi
    # Whatever happens from here, the machine is left without the package.
    trap 'dpkg -r dbgauge >/dev/null 2>&1; [[ -n ${DG_KEEP_TMP:-} ]] || rm -rf "$T_TMP"' EXIT
    dpkg -i "${debs[0]}" >"$T_TMP/dpkg.log" 2>&1
    check "dpkg -i installs it" test $? = 0
    check "dbgauge --version runs from /usr/bin" test -n "$(/usr/bin/dbgauge --version)"
    check "man finds its page" test "$(man -w dbgauge 2>/dev/null)" = /usr/share/man/man1/dbgauge.1.gz
    check "the completion is where bash-completion looks" test -s /usr/share/bash-completion/completions/dbgauge
    check "the package carries debian/copyright" cmp -s "$DG_ROOT/debian/copyright" /usr/share/doc/dbgauge/copyright
    for d in "$DG_ROOT"/docs/*.md; do # as they are, or compressed by dh_compress
        f=/usr/share/doc/dbgauge/docs/${d##*/}
        check "the package carries docs/${d##*/}" test -s "$f" -o -s "$f.gz"
    done
    mkdir -p "$T_TMP/demo"
    (cd "$T_TMP/demo" && /usr/bin/dbgauge tpcc load --warehouses 1 && /usr/bin/dbgauge tpcc run --duration 3s) \
        >"$T_TMP/demo.log" 2>&1
    check "the demo (load 1 warehouse, a 3 s run on SQLite) runs with the package" test $? = 0
    grep -q NOPM "$T_TMP/demo.log" && ok "the demo prints NOPM" || not_ok "the demo prints NOPM" "$(tail -n 5 "$T_TMP/demo.log")"
    dpkg -r dbgauge >>"$T_TMP/dpkg.log" 2>&1
    check "dpkg -r removes it" test $? = 0
    check "nothing of it is left in /usr/bin" test ! -e /usr/bin/dbgauge
fi
finish
