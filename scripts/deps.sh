#!/usr/bin/env bash
# deps.sh — makes sure the Debian packages dbgauge needs are installed: as root it installs
# what is missing; as another user it prints the exact apt-get line and fails.
#   scripts/deps.sh build   compiler, Meson, the libraries, Open MPI, node + npm (the report's chart library)
#   scripts/deps.sh fuzz    build + clang, libFuzzer and llvm-symbolizer (tests/fuzz/smoke.sh, bench/fuzz.sh)
#   scripts/deps.sh test    fuzz + what the tests need (PostgreSQL and MariaDB servers, Galera, python3, chromium)
#   scripts/deps.sh bench   test + the peers and profilers the bench/ scripts use, and stress-ng (tests/soak.sh --hog)
#   scripts/deps.sh --list test   only print the packages
set -euo pipefail
list_only=0
if [[ ${1:-} == --list ]]; then
    list_only=1
    shift
fi

# libopenmpi-dev + openmpi-bin: load from several client hosts (`mpirun -n N dbgauge ...`);
# the build turns MPI on when libopenmpi-dev is there (meson option mpi=auto).
build_pkgs="gcc libc6-dev meson ninja-build pkg-config libsqlite3-dev libpq-dev libcjson-dev libmariadb-dev libinih-dev unixodbc-dev python3 libopenmpi-dev openmpi-bin libmicrohttpd-dev"
# The report's chart library comes from npm at build time; a node that brings its own npm
# (NodeSource) counts: ask for the Debian packages only when the commands are missing.
command -v node >/dev/null 2>&1 || build_pkgs="$build_pkgs nodejs"
command -v npm >/dev/null 2>&1 || build_pkgs="$build_pkgs npm"
# clang: libFuzzer comes with clang (its runtime, libclang_rt.fuzzer, in libclang-rt-14-dev,
# which clang only recommends); llvm: llvm-symbolizer, so a crash's stack names the lines.
fuzz_pkgs="$build_pkgs clang libclang-rt-14-dev llvm"
# galera-4 and rsync: the Galera cluster of tests/servers.sh (its provider, its SST method);
# iputils-ping and procps: the namespace "hosts" of tests/hosts-ns.sh (a ping before any traffic);
# tmux: a real terminal for tests/e2e/progress.sh (the status line redrawn in place);
# chromium and fonts-dejavu-core: the reports opened in a browser and scripts/gallery.sh's PNGs
# (fontconfig takes any of several fonts: name one, so the charts' text is always the same);
# python3-prometheus-client: its strict OpenMetrics parser reads --live's /metrics (tests/e2e/live.sh);
# man-db, debhelper, dpkg-dev, fakeroot, build-essential: tests/e2e/install.sh renders the manual
# page and builds the Debian package
test_pkgs="$fuzz_pkgs python3-prometheus-client iputils-ping procps tmux postgresql-15 postgresql-client-15 sqlite3 iproute2 time chromium fonts-dejavu-core mariadb-server mariadb-client galera-4 rsync unixodbc odbc-postgresql odbc-mariadb libsqliteodbc tdsodbc man-db debhelper dpkg-dev fakeroot build-essential"
bench_pkgs="$test_pkgs valgrind postgresql-contrib bc time sysbench stress-ng"

case ${1:-build} in
build) want=$build_pkgs ;;
fuzz) want=$fuzz_pkgs ;;
test) want=$test_pkgs ;;
bench) want=$bench_pkgs ;;
*) echo "usage: scripts/deps.sh build|fuzz|test|bench" >&2; exit 2 ;;
esac

if [[ $list_only == 1 ]]; then
    echo "$want"
    exit 0
fi
# one dpkg-query for all of them (one a package cost 1.5 s a call of this script: the test
# runner calls it each time it starts)
declare -A installed=()
# shellcheck disable=SC2086
while read -r p st; do
    [[ $st == "install ok installed" ]] && installed[${p%%:*}]=1
done < <(dpkg-query -W -f='${Package} ${Status}\n' $want 2>/dev/null)
missing=()
for p in $want; do [[ -n ${installed[$p]:-} ]] || missing+=("$p"); done
[[ ${#missing[@]} == 0 ]] && exit 0

if [[ $(id -u) != 0 ]]; then
    echo "dbgauge needs these Debian packages; as root run:" >&2
    echo "  apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
fi
echo "deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# Package lists may be stale or absent on a fresh machine.
apt-get update -qq >/dev/null 2>&1 || apt-get update
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
