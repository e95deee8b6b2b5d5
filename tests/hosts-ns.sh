#!/usr/bin/env bash
# hosts-ns.sh — test "hosts" made of network namespaces on this machine, for running MPI ranks
# as if on other hosts: dg-host1..N, each joined to the root namespace by a veth pair with
# addresses from 198.18.0.0/15 only. Must not touch any other namespace, link, address or
# process, nor send anything before a ping inside the namespace answers.
#
#   tests/hosts-ns.sh up N     make dg-host1..N (N 1..16), wait until each answers a ping, write
#                              the env file and an Open MPI hostfile; exit 3 (saying why) when
#                              namespaces cannot be made here, 1 on any other failure (undone)
#   tests/hosts-ns.sh down     kill what still runs inside them, delete every namespace and link
#                              this script made, remove the env file and hostfile
#   tests/hosts-ns.sh status   what exists now (exit 0 when hosts are up, 1 when none)
#
# Host K: namespace dg-hostK; link dg-vethK in the root namespace with 198.18.0.(4K-3)/30, its
# peer dgv0 inside with 198.18.0.(4K-2)/30 (lo up too). Inside, each other host's /30 is routed
# via the root side, and the root side forwards only what comes in on these links (the per-link
# forwarding switch, not net.ipv4.ip_forward): a namespace reaches every root side address and
# every other namespace, nothing else (it has no default route).
# The env file is tests/out/hosts.env unless DG_HOSTS_ENV names another; the hostfile is next to
# it (NAME.hostfile for NAME.env), one line "198.18.0.(4K-2) slots=4" per host.
# Concurrent users are serialized by flock on /run/lock/dg-hosts.lock (DG_HOSTS_LOCK): a caller
# that holds the lock on fd 9 for its whole use (as tests/e2e/mpi_hosts.sh does) passes it down.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ENV_FILE=${DG_HOSTS_ENV:-$ROOT/tests/out/hosts.env}
HOSTFILE=${ENV_FILE%.env}.hostfile
LOCK=${DG_HOSTS_LOCK:-/run/lock/dg-hosts.lock}
STATE=/run/dg-hosts.state # what up made: "ns NAME", "link NAME", "file PATH" lines
MAX_HOSTS=16
SLOTS=4

say() { printf 'hosts-ns.sh: %s\n' "$*" >&2; }
cannot() { say "namespace hosts cannot be made here: $*"; exit 3; }

root_addr() { echo "198.18.0.$((4 * $1 - 3))"; }
ns_addr() { echo "198.18.0.$((4 * $1 - 2))"; }

# lock: flock on fd 9; a caller's fd 9 already open on the lock file is the same lock
lock() {
    if [[ $(readlink /proc/$$/fd/9 2>/dev/null) != "$(readlink -f "$LOCK" 2>/dev/null || echo "$LOCK")" ]]; then
        exec 9>>"$LOCK"
    fi
    flock -w 300 9 || { say "waited 300 s for $LOCK"; exit 1; }
}

our_namespaces() { ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^dg-host[0-9]+$' || true; }
our_links() { ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E '^dg-veth[0-9]+$' || true; }

# kill_inside NS: TERM then KILL every process still inside the namespace (only ours live there)
kill_inside() {
    local ns=$1 pids
    pids=$(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')
    [[ -n ${pids// /} ]] || return 0
    say "$ns: stopping what still runs inside: $pids"
    # shellcheck disable=SC2086
    kill -TERM $pids 2>/dev/null || true
    for _ in $(seq 1 50); do
        [[ -z $(ip netns pids "$ns" 2>/dev/null) ]] && return 0
        sleep 0.1
    done
    pids=$(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')
    # shellcheck disable=SC2086
    [[ -z ${pids// /} ]] || kill -KILL $pids 2>/dev/null || true
    sleep 0.2
}

# teardown: everything the state file lists, then anything of our names left by a lost state
teardown() {
    local kind name rc=0
    local -a nss=() links=() files=()
    if [[ -f $STATE ]]; then
        while read -r kind name; do
            case $kind in
            ns) nss+=("$name") ;;
            link) links+=("$name") ;;
            file) files+=("$name") ;;
            esac
        done <"$STATE"
    fi
    mapfile -t -O "${#nss[@]}" nss < <(our_namespaces)
    mapfile -t -O "${#links[@]}" links < <(our_links)
    for name in "${nss[@]}"; do kill_inside "$name"; done
    for name in "${links[@]}"; do
        ip link show "$name" >/dev/null 2>&1 || continue
        ip link del "$name" 2>/dev/null || { say "could not delete link $name"; rc=1; }
    done
    for name in "${nss[@]}"; do
        ip netns list | awk '{print $1}' | grep -qxF "$name" || continue
        ip netns del "$name" 2>/dev/null || { say "could not delete namespace $name"; rc=1; }
    done
    for name in "${files[@]}"; do rm -f -- "$name"; done
    [[ $(our_namespaces)$(our_links) == "" ]] || { say "left over: $(our_namespaces) $(our_links)"; rc=1; }
    ((rc)) || rm -f "$STATE"
    return $rc
}

# ping_from K ADDR: one ping from inside dg-hostK answers, within 10 s
ping_from() {
    local k=$1 addr=$2
    for _ in $(seq 1 10); do
        ip netns exec "dg-host$k" ping -n -q -c1 -W1 "$addr" >/dev/null 2>&1 && return 0
        sleep 0.5
    done
    say "dg-host$k: no answer from $addr"
    return 1
}

up() {
    local n=${1:-}
    if ! [[ $n =~ ^[0-9]+$ ]] || ((n < 1 || n > MAX_HOSTS)); then
        say "up takes a host count from 1 to $MAX_HOSTS"
        exit 2
    fi
    ((EUID == 0)) || cannot "not root (uid $EUID): ip netns needs CAP_SYS_ADMIN and CAP_NET_ADMIN"
    command -v ip >/dev/null || cannot "no 'ip' command (package iproute2)"
    ip netns list >/dev/null 2>&1 || cannot "'ip netns' does not work: $(ip netns list 2>&1 | head -n 1)"
    command -v ping >/dev/null || cannot "no 'ping' (package iputils-ping): the hosts could not be checked"
    command -v flock >/dev/null || cannot "no 'flock' (package util-linux)"
    touch "$LOCK" 2>/dev/null || cannot "cannot open the lock $LOCK"
    lock
    local left
    left=$(our_namespaces; our_links)
    if [[ -n $left ]]; then
        say "dg-host namespaces or dg-veth links exist already (${left//$'\n'/ }): another user's, or left by a run"
        say "that died (tests/hosts-ns.sh down removes them)"
        exit 1
    fi
    : >"$STATE"
    local k err
    # Any failure from here on undoes what was made.
    trap 'rc=$?; ((rc == 0)) || { say "undoing"; teardown || true; }; exit $rc' EXIT
    # The first namespace says whether this machine lets us make them at all.
    echo "ns dg-host1" >>"$STATE"
    if ! err=$(ip netns add dg-host1 2>&1); then
        teardown || true
        trap - EXIT
        cannot "ip netns add failed: $err"
    fi
    echo "link dg-veth1" >>"$STATE"
    if ! err=$(ip link add dg-veth1 type veth peer name dgv0 netns dg-host1 2>&1); then
        teardown || true
        trap - EXIT
        cannot "a veth pair cannot be made: $err"
    fi
    for ((k = 1; k <= n; k++)); do
        local ns=dg-host$k veth=dg-veth$k
        if ((k > 1)); then
            echo "ns $ns" >>"$STATE"
            ip netns add "$ns"
            echo "link $veth" >>"$STATE"
            ip link add "$veth" type veth peer name dgv0 netns "$ns"
        fi
        ip addr add "$(root_addr "$k")/30" dev "$veth"
        # forward what comes in on this link only (to the other hosts' /30s)
        echo 1 >"/proc/sys/net/ipv4/conf/$veth/forwarding"
        echo 1 >"/proc/sys/net/ipv6/conf/$veth/disable_ipv6" 2>/dev/null || true
        ip link set "$veth" up
        ip -n "$ns" link set lo up
        ip netns exec "$ns" sh -c 'echo 1 >/proc/sys/net/ipv6/conf/dgv0/disable_ipv6' 2>/dev/null || true
        ip -n "$ns" addr add "$(ns_addr "$k")/30" dev dgv0
        ip -n "$ns" link set dgv0 up
    done
    local j
    for ((k = 1; k <= n; k++)); do
        for ((j = 1; j <= n; j++)); do
            ((j == k)) && continue
            ip -n "dg-host$k" route add "198.18.0.$((4 * j - 4))/30" via "$(root_addr "$k")"
        done
    done
    # Nothing goes to these addresses before each host's own link answers a ping.
    for ((k = 1; k <= n; k++)); do
        ping_from "$k" "$(root_addr "$k")"
    done
    # ... and then the paths the ranks take: every root side address, every other host
    for ((k = 1; k <= n; k++)); do
        for ((j = 1; j <= n; j++)); do
            ((j == k)) && continue
            ping_from "$k" "$(root_addr "$j")"
            ping_from "$k" "$(ns_addr "$j")"
        done
    done
    mkdir -p "$(dirname "$ENV_FILE")"
    echo "file $ENV_FILE" >>"$STATE"
    echo "file $HOSTFILE" >>"$STATE"
    local roots="" addrs="" names=""
    : >"$HOSTFILE"
    for ((k = 1; k <= n; k++)); do
        echo "$(ns_addr "$k") slots=$SLOTS" >>"$HOSTFILE"
        roots+=${roots:+,}$(root_addr "$k")
        addrs+=${addrs:+,}$(ns_addr "$k")
        names+=${names:+,}dg-host$k
    done
    {
        echo "# tests/hosts-ns.sh up $n: namespace hosts (tests/hosts-ns.sh down removes them)"
        echo "export DG_HOSTS_N='$n'"
        echo "export DG_HOSTS_NAMES='$names'"
        echo "export DG_HOSTS_ADDRS='$addrs'"
        echo "export DG_HOSTS_ROOT_ADDRS='$roots'"
        echo "export DG_HOSTS_HOSTFILE='$HOSTFILE'"
        for ((k = 1; k <= n; k++)); do
            echo "export DG_HOST${k}_NS='dg-host$k'"
            echo "export DG_HOST${k}_ADDR='$(ns_addr "$k")'"
            echo "export DG_HOST${k}_ROOT_ADDR='$(root_addr "$k")'"
        done
    } >"$ENV_FILE"
    trap - EXIT
    say "up: $names at $addrs (root sides $roots); env $ENV_FILE, hostfile $HOSTFILE"
}

status() {
    local ns any=1
    for ns in $(our_namespaces); do
        any=0
        echo "$ns: $(ip -n "$ns" -br -4 addr show dev dgv0 2>/dev/null | awk '{print $3}')" \
            "processes: $(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')"
    done
    local l
    for l in $(our_links); do
        echo "$l: $(ip -br -4 addr show dev "$l" | awk '{print $3}')"
    done
    [[ -f $STATE ]] && echo "state $STATE: $(tr '\n' ' ' <"$STATE")"
    ((any == 0)) || echo "no namespace hosts"
    return $any
}

case ${1:-} in
up) up "${2:-}" ;;
down)
    ((EUID == 0)) || { say "down: not root; nothing of ours can exist"; exit 0; }
    lock
    teardown
    say "down: no dg-host namespace, no dg-veth link left"
    ;;
status) status ;;
*)
    echo "usage: $0 up N | down | status" >&2
    exit 2
    ;;
esac
