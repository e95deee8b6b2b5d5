#!/usr/bin/env bash
# hosts-ns-agent.sh — Open MPI's remote shell (plm_rsh_agent) for the namespace hosts of
# tests/hosts-ns.sh: `agent [ssh options] HOST COMMAND...` runs COMMAND as ssh would (its words
# joined, given to /bin/sh -c) inside HOST's namespace, with its own host name. Must not run
# anything outside a dg-hostK namespace, nor change the machine's host name.
#
# HOST is a namespace side address 198.18.0.(4K-2) or the name dg-hostK; COMMAND then runs in
# `ip netns exec dg-hostK`, in a UTS namespace of its own whose host name is dg-hostK, with
# DG_HOST_NAME=dg-hostK (the host dbgauge reports for each rank).
set -euo pipefail

say() { printf 'hosts-ns-agent.sh: %s\n' "$*" >&2; }

# ssh options as mpirun may pass them (plm_rsh_args): those with an argument, then flags
while [[ $# -gt 0 ]]; do
    case $1 in
    -[BbcDEeFIiJLlmOopQRSWw]) shift 2 ;;
    --) shift; break ;;
    -*) shift ;;
    *) break ;;
    esac
done
[[ $# -ge 2 ]] || { say "usage: $0 [ssh options] HOST COMMAND..."; exit 255; }
host=$1
shift

case $host in
dg-host[0-9]*) ns=$host ;;
198.18.0.*)
    last=${host##*.}
    if [[ $last =~ ^[0-9]+$ ]] && ((last % 4 == 2)); then ns=dg-host$(((last + 2) / 4)); else ns=""; fi
    ;;
*) ns="" ;;
esac
[[ -n $ns ]] || { say "$host is no namespace host of tests/hosts-ns.sh (198.18.0.(4K-2) or dg-hostK)"; exit 255; }
ip netns list | awk '{print $1}' | grep -qxF "$ns" || { say "no namespace $ns (tests/hosts-ns.sh up)"; exit 255; }

# ssh hands the remote shell its words joined by spaces; so do we. The host name is set only
# once the UTS namespace is a new one (never the machine's).
# shellcheck disable=SC2016
exec ip netns exec "$ns" unshare --uts -- env DG_HOST_NAME="$ns" /bin/sh -c '
    [ "$(readlink /proc/self/ns/uts)" != "$(readlink /proc/1/ns/uts)" ] || { echo "hosts-ns-agent.sh: no UTS namespace of its own" >&2; exit 255; }
    hostname "$DG_HOST_NAME" || exit 255
    exec /bin/sh -c "$1"' hosts-ns-agent "$*"
