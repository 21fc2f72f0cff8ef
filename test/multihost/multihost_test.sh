#!/bin/bash
# SPDX-License-Identifier: MIT
# One case of jobs across hosts:  multihost_test.sh CASE
# Makes its hosts (hosts.sh: network namespaces), runs a job on them with a
# launcher that runs on host "head", checks the output, checks that no
# process and no /dev/shm file is left on any host, and removes the hosts,
# pass or fail. Exit 77 (ctest: skipped) with the reason when hosts cannot
# be made here.
# Environment: HYDRA (mpiexec.hydra), OMPIRUN (Open MPI's mpirun, optional),
# MPIEXEC (ours),
# MH_PROG (mh_prog), PROG (pmi_prog), AMLIB (the forced-AM libmpi's
# directory), and for the "program" cases the test program in TPROG.
set -u
CASE=$1
shift
HERE=$(cd "$(dirname "$0")" && pwd)
HOSTS=$HERE/hosts.sh
T=$(mktemp -d "${TMPDIR:-/tmp}/ch4lite-mh.XXXXXX") || exit 1
export MH_DIR=$T/hosts MH_TEST_DIR=$T
ulimit -c 0
unset PMI_FD PMI_PORT PMI_ID PMI_RANK PMI_SIZE PMI_JOBID PMIX_RANK PMIX_NAMESPACE CH4LITE_PMI \
      OMPI_COMM_WORLD_SIZE OMPI_COMM_WORLD_RANK SLURM_PROCID FI_PROVIDER FI_TCP_IFACE
JOB_PID=""
RC=""

cleanup() {
    [ -n "$JOB_PID" ] && kill -KILL -- "-$JOB_PID" 2>/dev/null
    "$HOSTS" down "$MH_DIR"
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

skip() {
    echo "SKIP [$CASE]: $*"
    exit 77
}

fail() {
    echo "FAIL [$CASE]: $*"
    echo "---- exit code: ${RC:-none}"
    echo "---- stdout:"; tail -60 "$T/out" 2>/dev/null
    echo "---- stderr:"; grep -v '^\[proxy' "$T/err" 2>/dev/null | tail -60
    exit 1
}

# hosts N [BROKEN]: makes hosts h1..hN (see hosts.sh).
hosts() {
    [ "$(id -u)" = 0 ] || skip "needs root to make network namespaces (hosts.sh)"
    command -v ip >/dev/null 2>&1 || skip "needs ip (iproute2)"
    command -v unshare >/dev/null 2>&1 || skip "needs unshare (util-linux)"
    local probe="ch4mhprobe$$"
    ip netns add "$probe" 2>"$T/probe.err" || skip "cannot make a network namespace: $(cat "$T/probe.err")"
    ip netns del "$probe"
    "$HOSTS" up "$MH_DIR" "$@" 2>"$T/up.err" || fail "hosts.sh up: $(cat "$T/up.err")"
}

addr() { echo "198.51.100.$1"; }

# hydra SECONDS HOSTSPEC NP ARGS...: mpiexec.hydra on the head, in a session
# of its own; HOSTSPEC like "1:2,2:2" (host:ranks). Sets RC.
hydra() {
    local secs=$1 spec=$2 np=$3 hl="" h
    shift 3
    [ -n "${HYDRA:-}" ] || skip "MPICH's mpiexec.hydra is not installed"
    for h in ${spec//,/ }; do hl="$hl,$(addr "${h%%:*}"):${h##*:}"; done
    # The hosts share this machine's cores: CH4LITE_HOST_RANKS tells the
    # library how many ranks really compete for them (idle waits then yield).
    setsid "$HOSTS" exec "$MH_DIR" head "$HYDRA" -localhost "$(addr 100)" -hosts "${hl#,}" \
        -launcher ssh -launcher-exec "$HERE/ssh.sh" -n "$np" -genv CH4LITE_HOST_RANKS "$np" \
        "$@" >"$T/out" 2>"$T/err" </dev/null &
    JOB_PID=$!
    wait_job "$secs"
}

# ompi SECONDS HOSTSPEC NP ARGS...: Open MPI's mpirun on the head, its
# daemons started on the hosts through ssh.sh; ranks get environment
# variables with -x. Sets RC.
ompi() {
    local secs=$1 spec=$2 np=$3 hl="" h root=()
    shift 3
    [ -n "${OMPIRUN:-}" ] || skip "Open MPI's mpirun is not installed"
    [ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
    for h in ${spec//,/ }; do hl="$hl,$(addr "${h%%:*}"):${h##*:}"; done
    setsid "$HOSTS" exec "$MH_DIR" head "$OMPIRUN" "${root[@]}" --host "${hl#,}" \
        --mca plm_rsh_agent "$HERE/ssh.sh" --mca oob_tcp_if_include eth0 --bind-to none \
        -n "$np" -x CH4LITE_HOST_RANKS="$np" "$@" >"$T/out" 2>"$T/err" </dev/null &
    JOB_PID=$!
    wait_job "$secs"
}

wait_job() {
    local i=0 limit=$(($1 * 10))
    while kill -0 "$JOB_PID" 2>/dev/null; do
        i=$((i + 1))
        [ "$i" -ge "$limit" ] && fail "launcher still running after $1 s"
        sleep 0.1
    done
    wait "$JOB_PID"
    RC=$?
    JOB_PID=""
}

expect_rc() { [ "$RC" = "$1" ] || fail "exit code $RC, expected $1"; }
expect_out() { grep -Eq -- "$1" "$T/out" || fail "stdout lacks /$1/"; }
expect_err() { grep -Eq -- "$1" "$T/err" || fail "stderr lacks /$1/"; }
expect_count() { # FILE REGEX N
    local n
    n=$(grep -Ec -- "$2" "$T/$1")
    [ "$n" = "$3" ] || fail "$1 has $n lines matching /$2/, expected $3"
}

# Nothing left on any host: no process in its namespace, no /dev/shm file.
check_clean() {
    local i
    for i in $(seq 50); do
        "$HOSTS" check "$MH_DIR" 2>/dev/null && return 0
        sleep 0.1
    done
    "$HOSTS" check "$MH_DIR" 2>"$T/left" || fail "left behind: $(cat "$T/left")"
}

# where_case [LAUNCHER] PATH SPEC NP "RANK:HOST:SHARED ..." [launcher args]:
# the node map matches the hosts (MPI_COMM_TYPE_SHARED = the ranks of the
# rank's host), shared memory within a host, the netmod across hosts on
# eth0. LAUNCHER is hydra (default) or ompi.
where_case() {
    local launcher=hydra
    if [ "$1" = ompi ] || [ "$1" = hydra ]; then
        launcher=$1
        shift
    fi
    local path=$1 spec=$2 np=$3 want=$4 penv=()
    shift 4
    if [ "$launcher" = ompi ]; then
        penv=(-x CH4LITE_VERBOSE=1)
        [ "$path" = am ] && penv+=(-x "LD_LIBRARY_PATH=$AMLIB")
    else
        penv=(-genv CH4LITE_VERBOSE 1)
        [ "$path" = am ] && penv+=(-genv LD_LIBRARY_PATH "$AMLIB")
    fi
    $launcher 90 "$spec" "$np" "${penv[@]}" "$@" "$MH_PROG" where
    expect_rc 0
    local w r h s
    for w in $want; do
        IFS=: read -r r h s <<<"$w"
        expect_out "^where rank $r host $h shared $s$"
    done
    expect_count out "^where rank " "$np"
    if [ "$path" = am ]; then
        expect_count err "rank [0-9]+ of $np: .*active-message path" "$np"
    else
        expect_count err "rank [0-9]+ of $np: .*native tagged path" "$np"
    fi
    # Every rank opened the netmod on its host's interface (not loopback).
    expect_count err "ofi: provider tcp;ofi_rxm, fabric 198\.51\.100\.0/25, domain eth0" "$np"
    expect_count err "reach: [0-9]+ node\(s\); this rank reached rank [0-9]+ on host h[0-9]" "$np"
    check_clean
}

case_where_2x2_tagged() {
    hosts 2
    where_case tagged "1:2,2:2" 4 "0:h1:0,1 1:h1:0,1 2:h2:2,3 3:h2:2,3"
    expect_count err "shm: segment .* 2 local ranks" 4
}

case_where_2x2_am() {
    hosts 2
    where_case am "1:2,2:2" 4 "0:h1:0,1 1:h1:0,1 2:h2:2,3 3:h2:2,3"
    expect_count err "shm: segment .* 2 local ranks" 4
}

case_where_3x123_tagged() {
    hosts 3
    where_case tagged "1:1,2:2,3:3" 6 "0:h1:0 1:h2:1,2 2:h2:1,2 3:h3:3,4,5 4:h3:3,4,5 5:h3:3,4,5"
    expect_count err "shm: segment .* 2 local ranks" 2
    expect_count err "shm: segment .* 3 local ranks" 3
}

case_where_3x123_am() {
    hosts 3
    where_case am "1:1,2:2,3:3" 6 "0:h1:0 1:h2:1,2 2:h2:1,2 3:h3:3,4,5 4:h3:3,4,5 5:h3:3,4,5"
}

# Hydra's round-robin placement (-hosts without counts): ranks alternate.
case_where_3x2_roundrobin() {
    hosts 3
    where_case tagged "1:1,2:1,3:1" 6 "0:h1:0,3 1:h2:1,4 2:h3:2,5 3:h1:0,3 4:h2:1,4 5:h3:2,5"
}

# The same over PMI-2, which Hydra serves on request.
case_where_2x2_pmi2() {
    hosts 2
    where_case tagged "1:2,2:2" 4 "0:h1:0,1 1:h1:0,1 2:h2:2,3 3:h2:2,3" -genv CH4LITE_PMI pmi2
    expect_count err "bootstrap: PMI-2 from hydra" 4
}

# Open MPI's mpirun across the hosts (its PMIx server; daemons through
# ssh.sh): the same node map, shm and netmod checks.
case_ompi_where_2x2_tagged() {
    hosts 2
    where_case ompi tagged "1:2,2:2" 4 "0:h1:0,1 1:h1:0,1 2:h2:2,3 3:h2:2,3"
    expect_count err "bootstrap: PMIx [0-9.a-z]+ from mpirun \(Open MPI\)" 4
}

case_ompi_where_2x2_am() {
    hosts 2
    where_case ompi am "1:2,2:2" 4 "0:h1:0,1 1:h1:0,1 2:h2:2,3 3:h2:2,3"
}

case_ompi_kill_rank() {
    hosts 2
    ompi 90 "1:2,2:2" 4 "$MH_PROG" kill 3
    [ "$RC" != 0 ] || fail "the job succeeded although rank 3 was killed"
    expect_out "kill: rank 3 on h2 dies now"
    check_clean
}

# The same binary under three launchers gives the same answers: our
# mpiexec (one host), Hydra and Open MPI's mpirun (across two hosts, and,
# without hosts, on this one).
answers_of() { grep '^answers ' "$T/out" | sort >"$T/answers.$1"; [ -s "$T/answers.$1" ] || fail "no answers from $1"; }
case_three_launchers() {
    [ -n "${MPIEXEC:-}" ] || fail "MPIEXEC is not set"
    setsid "$MPIEXEC" -n 4 -maxtime 60 "$MH_PROG" answers >"$T/out" 2>"$T/err" </dev/null &
    JOB_PID=$!
    wait_job 90
    expect_rc 0
    answers_of mpiexec
    if [ "$(id -u)" = 0 ] && ip netns add "ch4mhprobe$$" 2>/dev/null; then
        ip netns del "ch4mhprobe$$"
        hosts 2
        hydra 90 "1:2,2:2" 4 "$MH_PROG" answers
        expect_rc 0
        answers_of hydra
        ompi 90 "1:2,2:2" 4 "$MH_PROG" answers
        expect_rc 0
        answers_of ompi
        check_clean
    else
        echo "note: no network namespaces here; Hydra and mpirun run on this host only"
        [ -n "${HYDRA:-}" ] || skip "MPICH's mpiexec.hydra is not installed"
        setsid "$HYDRA" -n 4 "$MH_PROG" answers >"$T/out" 2>"$T/err" </dev/null &
        JOB_PID=$!
        wait_job 90
        expect_rc 0
        answers_of hydra
        [ -n "${OMPIRUN:-}" ] || skip "Open MPI's mpirun is not installed"
        setsid "$OMPIRUN" --oversubscribe --bind-to none $([ "$(id -u)" = 0 ] && echo --allow-run-as-root) \
            -n 4 "$MH_PROG" answers >"$T/out" 2>"$T/err" </dev/null &
        JOB_PID=$!
        wait_job 90
        expect_rc 0
        answers_of ompi
    fi
    cmp -s "$T/answers.mpiexec" "$T/answers.hydra" ||
        fail "Hydra's answers differ: $(diff "$T/answers.mpiexec" "$T/answers.hydra")"
    cmp -s "$T/answers.mpiexec" "$T/answers.ompi" ||
        fail "mpirun's answers differ: $(diff "$T/answers.mpiexec" "$T/answers.ompi")"
    expect_count answers.ompi "^answers rank [0-3] size 4: sum 18 " 4
}

# An MPI test program (TPROG, its arguments after the case name) at 2 hosts
# x 2 ranks, on the path named by the case (program_tagged, program_am).
program_case() {
    local path=$1 penv=()
    shift
    [ -x "${TPROG:-}" ] || fail "TPROG is not a program"
    [ "$path" = am ] && penv=(-genv LD_LIBRARY_PATH "$AMLIB")
    hosts 2
    hydra 150 "1:2,2:2" 4 "${penv[@]}" -genv CH4LITE_EXPECT_PATH "$path" "$TPROG" "$@"
    expect_rc 0
    check_clean
}
case_program_tagged() { program_case tagged "$@"; }
case_program_am() { program_case am "$@"; }

# A rank killed on one host ends the job on every host, leaving nothing.
case_kill_rank() {
    hosts 2
    hydra 90 "1:2,2:2" 4 -genv CH4LITE_VERBOSE 1 "$MH_PROG" kill 3
    [ "$RC" != 0 ] || fail "the job succeeded although rank 3 was killed"
    expect_out "kill: rank 3 on h2 dies now"
    check_clean
}

# Host h2 uses an interface no other host can reach: MPI_Init fails, naming
# the hosts and the provider, well before the launcher's time runs out.
case_unreachable() {
    hosts 2 2
    export MH_ENV_h2="FI_TCP_IFACE=eth1"
    local t0=$SECONDS
    hydra 90 "1:2,2:2" 4 -genv CH4LITE_REACH_TIMEOUT 20 "$MH_PROG" init
    [ "$RC" != 0 ] || fail "the job succeeded although h2 cannot reach h1"
    [ $((SECONDS - t0)) -lt 60 ] || fail "took $((SECONDS - t0)) s to fail"
    expect_err "MPI_Init failed: rank [0-9] on host h[12]"
    expect_err "(cannot reach|no message from) rank [0-9] on host h[12]"
    expect_err "provider tcp;ofi_rxm"
    check_clean
}

if ! declare -F "case_$CASE" >/dev/null; then
    echo "unknown case '$CASE'"
    exit 2
fi
"case_$CASE" "$@"
echo "PASS [$CASE]"
