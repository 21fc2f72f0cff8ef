#!/bin/bash
# SPDX-License-Identifier: MIT
# Test hosts made of network namespaces, for jobs that cross hosts.
#
#   hosts.sh up DIR N [BROKEN]  make hosts h1..hN and "head" (where the launcher
#                               runs); DIR (new or empty) keeps their state
#   hosts.sh down DIR           remove everything `up` made; idempotent
#   hosts.sh exec DIR HOST CMD...   run CMD on HOST (h1..hN, head), with the
#                               variables of MH_ENV_<HOST>="K=V ..." added
#   hosts.sh ssh [-x|-o opt]... HOST CMD...
#                               what a launcher's ssh would do (Hydra's
#                               -launcher-exec, Open MPI's plm_rsh_agent): HOST
#                               is a name or an address of ours, CMD one shell
#                               command line; DIR comes from $MH_DIR
#   hosts.sh check DIR          fail, naming them, if processes or /dev/shm
#                               files are left on any host
#
# Every host is a network namespace "<prefix>-hK" whose only links are
# loopback and eth0, a veth whose other end sits in a switch namespace
# "<prefix>-sw" on a bridge; nothing is created or changed in the machine's
# own network namespace, so no traffic leaves the hosts and loopback. Host
# hK has 198.51.100.K/25 (head: 198.51.100.100). A command runs there in new
# UTS and mount namespaces: its host name is the host's, and /dev/shm is the
# host's own directory (DIR/shm/hK, bind-mounted; the head keeps the
# machine's), so ranks of different hosts cannot share memory, and what a
# job leaves is seen per host.
#
# BROKEN=K gives host hK a second link, eth1 (198.51.100.200/26, a veth to a
# namespace with nothing else), that no other host can reach: a job told to
# use eth1 there (FI_TCP_IFACE) has a netmod that cannot reach its peers,
# while the launcher still reaches the host over eth0.
#
# Leftovers: `up` records its owner (MH_OWNER, default the process that ran
# `up`: the test or benchmark script) with the owner's start time in
# /dev/shm/<prefix>/owner, and first sweeps the hosts of owners that are
# gone (killed before their `down` ran): their namespaces, the processes in
# them, their /dev/shm directory; and namespaces of ours whose directory is
# gone.
#
# Needs root (or CAP_SYS_ADMIN + CAP_NET_ADMIN), iproute2 and util-linux.
set -u

mh_die() {
    echo "hosts.sh: $*" >&2
    exit 1
}

mh_prefix() { cat "$1/prefix" 2>/dev/null; }

mh_addr() {  # HOST -> address
    case $1 in
        head) echo 198.51.100.100 ;;
        h[0-9]*) echo "198.51.100.${1#h}" ;;
        *) return 1 ;;
    esac
}

mh_host_of() {  # name or address -> host name
    case $1 in
        head | 198.51.100.100) echo head ;;
        h[0-9]*) echo "$1" ;;
        198.51.100.[0-9]*) echo "h${1##*.}" ;;
        *) return 1 ;;
    esac
}

# ip with the namespace's name, quietly.
mh_ip() { ip "$@" >/dev/null 2>&1; }

# A process's start time (clock ticks since boot), or nothing.
mh_started() { awk '{print $22}' "/proc/$1/stat" 2>/dev/null; }

# Deletes the namespaces "<prefix>-*" after killing what runs in them.
mh_del_ns() {
    local p=$1 ns pids
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$p-"); do
        pids=$(ip netns pids "$ns" 2>/dev/null)
        [ -n "$pids" ] && kill -KILL $pids 2>/dev/null
    done
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$p-"); do
        ip netns del "$ns" 2>/dev/null
    done
}

# Hosts whose owner is gone. A directory without an owner file is one an
# `up` is still making (it writes the file first thing) and stays.
mh_sweep() {
    local d p pid start ns
    for d in /dev/shm/ch4mh*; do
        [ -f "$d/owner" ] || continue
        read -r pid start <"$d/owner" 2>/dev/null || continue
        [ -n "$pid" ] && [ "$(mh_started "$pid")" = "$start" ] && continue
        p=${d#/dev/shm/}
        echo "hosts.sh: removing hosts $p (owner $pid is gone)" >&2
        mh_del_ns "$p"
        rm -rf "$d"
    done
    # Namespaces of ours without their directory: `up` makes the directory
    # before any namespace and `down` removes it after them.
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep '^ch4mh[0-9]*r[0-9]*-'); do
        p=${ns%%-*}
        [ -d "/dev/shm/$p" ] && continue
        echo "hosts.sh: removing namespace $ns (no /dev/shm/$p)" >&2
        mh_del_ns "$p"
    done
}

mh_up() {
    local dir=$1 n=$2 broken=${3:-0} p k ns owner
    [ "$(id -u)" = 0 ] || mh_die "needs root (network namespaces)"
    command -v ip >/dev/null && command -v unshare >/dev/null || mh_die "needs ip and unshare"
    mkdir -p "$dir" || mh_die "cannot create $dir"
    [ -e "$dir/prefix" ] && mh_die "$dir already holds hosts"
    mh_sweep
    # Short and unique: veth names are per namespace, but namespace names are
    # global to the machine.
    p="ch4mh$$r$RANDOM"
    echo "$p" >"$dir/prefix"
    echo "$n" >"$dir/n"
    # /dev/shm views live under the machine's /dev/shm (tmpfs, like the real
    # thing), in a directory of this run, with its owner.
    owner=${MH_OWNER:-$PPID}
    mkdir -p "/dev/shm/$p" && echo "$owner $(mh_started "$owner")" >"/dev/shm/$p/owner" &&
        ln -s "/dev/shm/$p" "$dir/shm" || mh_die "cannot create /dev/shm/$p"
    ip netns add "$p-sw" || mh_die "ip netns add failed"
    ip -n "$p-sw" link set lo up
    ip -n "$p-sw" link add br0 type bridge || mh_die "cannot create a bridge"
    ip -n "$p-sw" link set br0 up
    for k in $(seq "$n") head; do
        local h=$k
        [ "$k" = head ] || h=h$k
        ns=$p-$h
        ip netns add "$ns" || mh_die "ip netns add $ns failed"
        ip -n "$ns" link set lo up
        ip -n "$p-sw" link add "p$h" type veth peer name eth0 netns "$ns" || mh_die "veth for $h failed"
        ip -n "$p-sw" link set "p$h" master br0 up
        ip -n "$ns" addr add "$(mh_addr "$h")/25" dev eth0
        ip -n "$ns" link set eth0 up
        mkdir -p "/dev/shm/$p/$h"
    done
    if [ "$broken" != 0 ]; then
        ns=$p-h$broken
        ip netns add "$p-void" || mh_die "ip netns add $p-void failed"
        ip -n "$ns" link add eth1 type veth peer name x0 netns "$p-void" || mh_die "eth1 failed"
        ip -n "$ns" addr add 198.51.100.200/26 dev eth1
        ip -n "$ns" link set eth1 up
        ip -n "$p-void" link set x0 up
    fi
    # Wait until every link is up (carrier on both ends of each veth).
    local i down
    for i in $(seq 50); do
        down=""
        for k in $(seq "$n") head; do
            local h=$k
            [ "$k" = head ] || h=h$k
            ip -n "$p-$h" -br link show eth0 | grep -q ' UP ' || down="$down $h"
        done
        [ -z "$down" ] && return 0
        sleep 0.1
    done
    mh_die "links still down on:$down"
}

# Kills what runs in our namespaces (by pid), then deletes them. Never fails.
mh_down() {
    local dir=$1 p
    p=$(mh_prefix "$dir") || return 0
    [ -n "$p" ] || return 0
    mh_del_ns "$p"
    rm -rf "/dev/shm/$p" "$dir/shm" "$dir/prefix" "$dir/n"
}

mh_exec() {
    local dir=$1 host p
    p=$(mh_prefix "$dir") || mh_die "no hosts in $dir"
    host=$(mh_host_of "$2") || mh_die "unknown host '$2'"
    shift 2
    [ -d "/dev/shm/$p/$host" ] || mh_die "no host $host in $dir"
    # The head keeps the machine's /dev/shm: launchers run there and start
    # this script again for the other hosts.
    local shm="/dev/shm/$p/$host" envvar="MH_ENV_$host"
    [ "$host" = head ] && shm=""
    # MH_ENV_<host>="K=V ..." adds variables on that host only.
    # shellcheck disable=SC2086
    # MH_NSENTER=1 enters only the network namespace (nsenter), keeping the
    # machine's /sys, where "ip netns exec" mounts a new one: daemons that
    # need /sys/fs/cgroup (slurmd) run there.
    local enter=(ip netns exec "$p-$host")
    [ "${MH_NSENTER:-0}" = 1 ] && enter=(nsenter "--net=/run/netns/$p-$host")
    exec "${enter[@]}" unshare --uts --mount --propagation private -- /bin/sh -c '
        hostname "$1" || exit 125
        if [ -n "$2" ]; then mount --bind "$2" /dev/shm || exit 125; fi
        shift 2
        exec "$@"' sh "$host" "$shm" env ${!envvar:-} "$@"
}

mh_ssh() {
    while [ $# -gt 0 ]; do
        case $1 in
            -o | -p | -l | -i) shift 2 ;;
            -*) shift ;;
            *) break ;;
        esac
    done
    [ $# -ge 2 ] || mh_die "usage: hosts.sh ssh HOST COMMAND"
    local host=$1
    shift
    [ -n "${MH_DIR:-}" ] || mh_die "MH_DIR is not set"
    # ssh hands the remote shell one command line.
    mh_exec "$MH_DIR" "$host" /bin/sh -c "$*"
}

mh_check() {
    local dir=$1 p ns left=0 pids files
    p=$(mh_prefix "$dir") || return 0
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$p-"); do
        pids=$(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')
        if [ -n "$pids" ]; then
            echo "hosts.sh: processes left on ${ns#$p-}: $pids" >&2
            ps -o pid,args -p "${pids// /,}" >&2 2>/dev/null
            left=1
        fi
    done
    for d in "/dev/shm/$p"/*; do
        [ -d "$d" ] || continue
        files=$(ls -A "$d")
        if [ -n "$files" ]; then
            echo "hosts.sh: /dev/shm files left on $(basename "$d"): $files" >&2
            left=1
        fi
    done
    return $left
}

case ${1:-} in
    up) [ $# -ge 3 ] || mh_die "usage: hosts.sh up DIR N [BROKEN]"; mh_up "$2" "$3" "${4:-0}" ;;
    down) [ $# -ge 2 ] || mh_die "usage: hosts.sh down DIR"; mh_down "$2" ;;
    exec) [ $# -ge 4 ] || mh_die "usage: hosts.sh exec DIR HOST CMD..."; shift; mh_exec "$@" ;;
    ssh) shift; mh_ssh "$@" ;;
    check) [ $# -ge 2 ] || mh_die "usage: hosts.sh check DIR"; mh_check "$2" ;;
    *) mh_die "usage: hosts.sh up|down|exec|ssh|check ..." ;;
esac
