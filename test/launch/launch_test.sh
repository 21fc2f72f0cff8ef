#!/bin/bash
# SPDX-License-Identifier: MIT
# One launcher test case:  launch_test.sh CASE
# Environment: MPIEXEC (our mpiexec, by build path), HYDRA (mpiexec.hydra),
# OMPIRUN (Open MPI's mpirun), and PROG (pmi_prog). The launcher runs in a session of its own; when the
# case ends, pass or fail, every process left in that session is killed, and
# a case fails if any was left (an orphan).
set -u
CASE=$1
T=$(mktemp -d "${TMPDIR:-/tmp}/ch4lite-launch.XXXXXX") || exit 1
export LAUNCH_TEST_DIR=$T
ulimit -c 0             # crash cases must not leave core files
unset MPIEXEC_TIMEOUT PMI_FD PMI_PORT PMI_ID PMI_RANK PMI_SIZE PMI_JOBID OMPI_COMM_WORLD_SIZE \
      OMPI_COMM_WORLD_RANK PMIX_RANK PMIX_NAMESPACE SLURM_PROCID SLURM_STEP_NUM_TASKS CH4LITE_PMI
JOB_PID=""              # the launcher under test; also its session id
RC=""

# Pids of the processes in session $1 (/proc/PID/stat after the command
# name: state ppid pgrp session ...).
session_members() {
    local f line rest state sess p
    for f in /proc/[0-9]*/stat; do
        { line=$(<"$f"); } 2>/dev/null || continue
        rest=${line##*) }
        read -r state _ _ sess _ <<<"$rest"
        # A zombie is dead already; it only waits for its parent (or init).
        if [ "$sess" = "$1" ] && [ "$state" != Z ]; then p=${f#/proc/}; echo "${p%/stat}"; fi
    done
}

cleanup() {
    if [ -n "$JOB_PID" ]; then
        local left
        left=$(session_members "$JOB_PID")
        [ -n "$left" ] && kill -KILL $left 2>/dev/null
    fi
    rm -rf "$T"
}
trap cleanup EXIT

fail() {
    echo "FAIL [$CASE]: $*"
    echo "---- exit code: ${RC:-none}"
    echo "---- stdout:"; cat "$T/out" 2>/dev/null
    echo "---- stderr:"; cat "$T/err" 2>/dev/null
    exit 1
}

# start_job CMD...: runs CMD in the background in a new session.
start_job() {
    setsid "$@" >"$T/out" 2>"$T/err" </dev/null &
    JOB_PID=$!
}

# wait_job SECONDS: waits for the launcher, sets RC.
wait_job() {
    local i=0 limit=$(($1 * 10))
    while kill -0 "$JOB_PID" 2>/dev/null; do
        i=$((i + 1))
        [ "$i" -ge "$limit" ] && fail "launcher still running after $1 s"
        sleep 0.1
    done
    wait "$JOB_PID"
    RC=$?
}

run_job() {
    local secs=$1
    shift
    start_job "$@"
    wait_job "$secs"
}

# wait_files NAME COUNT SECONDS: until COUNT files $T/NAME.* exist.
wait_files() {
    local i=0 n
    while true; do
        n=$(find "$T" -maxdepth 1 -name "$1.*" | wc -l)
        [ "$n" -ge "$2" ] && return 0
        i=$((i + 1))
        [ "$i" -ge $(($3 * 10)) ] && fail "only $n of $2 '$1' files after $3 s"
        sleep 0.1
    done
}

# No process of the job may outlive it: neither in its session nor any rank
# that recorded its pid (ranks of Hydra, which may leave the session).
check_clean() {
    local i left pids f
    for i in $(seq 50); do
        left=$(session_members "$JOB_PID")
        pids=""
        for f in "$T"/pid.*; do
            [ -f "$f" ] || continue
            p=$(cat "$f")
            if [ -e "/proc/$p" ] && ! grep -q '^State:.*Z' "/proc/$p/status" 2>/dev/null &&
               grep -q -- "$PROG" "/proc/$p/cmdline" 2>/dev/null; then
                pids="$pids $p"
            fi
        done
        [ -z "$left" ] && [ -z "$pids" ] && return 0
        sleep 0.1
    done
    fail "processes left behind: session [$left] ranks [$pids]"
}

expect_rc() { [ "$RC" = "$1" ] || fail "exit code $RC, expected $1"; }
expect_out() { grep -Eq -- "$1" "$T/out" || fail "stdout lacks /$1/"; }
expect_err() { grep -Eq -- "$1" "$T/err" || fail "stderr lacks /$1/"; }
expect_no_err() { ! grep -Eq -- "$1" "$T/err" || fail "stderr has /$1/"; }
expect_count() { # FILE REGEX N
    local n
    n=$(grep -Ec -- "$2" "$T/$1")
    [ "$n" = "$3" ] || fail "$1 has $n lines matching /$2/, expected $3"
}

kvs_case() {
    run_job 60 "$MPIEXEC" -n "$1" "$PROG" kvs
    expect_rc 0
    expect_count out "^rank [0-9]+ of $1 ok launcher=mpiexec \(ch4lite\) pmi=PMI-1 nodes=1$" "$1"
    check_clean
}

case_kvs_np1() { kvs_case 1; }
case_kvs_np2() { kvs_case 2; }
case_kvs_np3() { kvs_case 3; }
case_kvs_np4() { kvs_case 4; }

case_oversubscribed() {  # 4 ranks per core; every wait in the path blocks
    local n=$(($(nproc) * 4))
    run_job 60 "$MPIEXEC" -n "$n" --oversubscribe "$PROG" kvs
    expect_rc 0
    expect_count out " ok " "$n"
    check_clean
}

case_mapping() {
    run_job 60 "$MPIEXEC" -n 3 "$PROG" mapping
    expect_rc 0
    for r in 0 1 2; do expect_out "^rank $r nodes=0,0,0 num=1 local=$r/3$"; done
    check_clean
}

case_mapping_ppn() {
    run_job 60 "$MPIEXEC" -n 5 -ppn 2 "$PROG" mapping
    expect_rc 0
    expect_out "^rank 0 nodes=0,0,1,1,2 num=3 local=0/2$"
    expect_out "^rank 3 nodes=0,0,1,1,2 num=3 local=1/2$"
    expect_out "^rank 4 nodes=0,0,1,1,2 num=3 local=0/1$"
    check_clean
}

case_exit_status() {
    run_job 60 "$MPIEXEC" -n 3 "$PROG" exit 1 7
    expect_rc 7
    expect_err "JOB FAILED: rank 1 \(pid $(cat "$T/pid.1")\) exited with status 7"
    check_clean
}

case_largest_status() {  # ranks exit 0, 2, 4 together: the job says 4
    run_job 60 "$MPIEXEC" -n 3 "$PROG" exitall
    expect_rc 4
    check_clean
}

case_crash() {
    run_job 60 "$MPIEXEC" -n 3 "$PROG" crash 2
    expect_rc 139
    expect_err "JOB FAILED: rank 2 \(pid $(cat "$T/pid.2")\) killed by signal 11 \(SIGSEGV"
    check_clean
}

case_abort() {
    run_job 60 "$MPIEXEC" -n 3 "$PROG" abort 1 42
    expect_rc 42
    expect_err "JOB FAILED: rank 1 \(pid $(cat "$T/pid.1")\) called abort with exit code 42: test abort from rank 1"
    check_clean
}

case_nofinalize() {
    run_job 60 "$MPIEXEC" -n 3 "$PROG" nofinalize 0
    expect_rc 1
    expect_err "rank 0 \(pid [0-9]+\) exited without calling PMI finalize"
    check_clean
}

case_maxtime() {
    run_job 60 "$MPIEXEC" -n 2 -maxtime 1 "$PROG" hang
    expect_rc 124
    expect_err "timed out after 1 s"
    check_clean
}

case_mpiexec_timeout_env() {
    MPIEXEC_TIMEOUT=1 run_job 60 "$MPIEXEC" -n 2 "$PROG" hang
    expect_rc 124
    expect_err "timed out after 1 s"
    check_clean
}

case_sigint_forward() {  # ranks catch the first SIGINT; the second kills
    start_job "$MPIEXEC" -n 3 "$PROG" sigint
    wait_files ready 3 30
    kill -INT "$JOB_PID"
    wait_files sigint 3 30
    kill -0 "$JOB_PID" 2>/dev/null || fail "mpiexec ended after the first SIGINT"
    kill -INT "$JOB_PID"
    wait_job 30
    expect_rc 130
    expect_err "SIGINT forwarded"
    check_clean
}

case_sigint_default() {  # ranks die of the forwarded SIGINT
    start_job "$MPIEXEC" -n 3 "$PROG" hang
    wait_files ready 3 30
    kill -INT "$JOB_PID"
    wait_job 30
    expect_rc 130
    expect_no_err "JOB FAILED"
    check_clean
}

case_mpiexec_sigterm() {
    start_job "$MPIEXEC" -n 3 "$PROG" hang
    wait_files ready 3 30
    kill -TERM "$JOB_PID"
    wait_job 30
    expect_rc 143
    check_clean
}

case_mpiexec_sigkill() {  # the parent-death signal ends the ranks
    start_job "$MPIEXEC" -n 3 "$PROG" hang
    wait_files ready 3 30
    kill -KILL "$JOB_PID"
    wait_job 30
    check_clean
}

case_pmi_eof() {  # without the parent-death signal, ranks see EOF on PMI_FD
    start_job "$MPIEXEC" -n 3 "$PROG" watch
    wait_files ready 3 30
    kill -KILL "$JOB_PID"
    wait_job 30
    wait_files eof 3 30
    check_clean
}

case_grandchild() {  # helpers a rank leaves in its process group are killed
    run_job 60 "$MPIEXEC" -n 2 sh -c 'sleep 300 & echo "started $!"'
    expect_rc 0
    expect_count out '^started [0-9]+$' 2
    check_clean
}

case_stdin() {  # stdin goes to rank 0 only
    echo "hello rank zero" >"$T/in"
    setsid "$MPIEXEC" -n 2 "$PROG" stdin <"$T/in" >"$T/out" 2>"$T/err" &
    JOB_PID=$!
    wait_job 60
    expect_rc 0
    expect_out '^rank 0 stdin=hello rank zero$'
    expect_out '^rank 1 stdin=$'
    check_clean
}

case_tag_output() {
    run_job 60 "$MPIEXEC" -n 2 -l "$PROG" print 3
    expect_rc 0
    expect_count out '^\[[01]\] line [0-2] from rank [01]$' 6
    expect_count out '^\[0\] line [0-2] from rank 0$' 3
    expect_out '^\[1\] partial from rank 1$'
    expect_count err '^\[[01]\] err line from rank [01]$' 2
    [ "$(grep -Evc '^\[[01]\] ' "$T/out")" = 0 ] || fail "untagged stdout line"
    check_clean
}

case_env() {
    mkdir "$T/wd"
    D=from_parent run_job 60 "$MPIEXEC" -n 2 -genv A 1 -env B 'two words' -x C=3 -x D -wdir "$T/wd" \
        "$PROG" env A B C D PMI_SIZE MPI_LOCALNRANKS CH4LITE_JOB_KEY CH4LITE_VERBOSE
    expect_rc 0
    expect_count out '^A=1$' 2
    expect_count out '^B=two words$' 2
    expect_count out '^C=3$' 2
    expect_count out '^D=from_parent$' 2
    expect_count out '^PMI_SIZE=2$' 2
    expect_count out '^MPI_LOCALNRANKS=2$' 2
    expect_count out '^CH4LITE_JOB_KEY=[0-9a-f]{16}$' 2
    expect_count out '^CH4LITE_VERBOSE=\(unset\)$' 2
    expect_count out "^cwd=$T/wd$" 2
    check_clean
}

case_inherited_fds() {  # only 0-2 and PMI_FD reach a rank (docs/mpiexec.md)
    # Descriptors mpiexec's caller leaves open without FD_CLOEXEC, as a
    # shell's redirections or a build system's pipes do.
    exec 7</dev/null 8>"$T/leak" 9>>"$T/leak"
    run_job 60 "$MPIEXEC" -n 2 "$PROG" fds
    exec 7<&- 8>&- 9>&-
    expect_rc 0
    local line fds pmi
    [ "$(grep -c '^rank [01] fds=' "$T/out")" = 2 ] || fail "not every rank listed its descriptors"
    while read -r line; do
        fds=${line#*fds=}; fds=${fds% pmi_fd=*}; pmi=${line##*pmi_fd=}
        [ "$fds" = "0 1 2 $pmi" ] || fail "a rank inherited descriptors $fds (PMI_FD $pmi)"
    done < <(grep '^rank [01] fds=' "$T/out")
    check_clean
}

case_bind_core() {
    local all
    all=$(taskset -pc $$ 2>/dev/null | sed 's/.*: //')
    run_job 60 "$MPIEXEC" -n 2 -bind-to none "$PROG" affinity
    expect_rc 0
    expect_count out "cpus=" 2
    local none0 none1
    none0=$(sed -n 's/^rank 0 cpus=//p' "$T/out")
    none1=$(sed -n 's/^rank 1 cpus=//p' "$T/out")
    [ "$none0" = "$none1" ] || fail "-bind-to none: ranks differ ($none0 / $none1)"
    run_job 60 "$MPIEXEC" -n 2 -bind-to core "$PROG" affinity
    expect_rc 0
    local c0 c1
    c0=$(sed -n 's/^rank 0 cpus=//p' "$T/out")
    c1=$(sed -n 's/^rank 1 cpus=//p' "$T/out")
    [ -n "$c0" ] && [ -n "$c1" ] || fail "no affinity printed"
    if [ "$(nproc)" -ge 2 ] && [ "$none0" != "$c0" ]; then
        # Two cores available: one each, disjoint.
        for c in ${c0//,/ }; do
            [[ ",$c1," == *",$c,"* ]] && fail "ranks share cpu $c ($c0 / $c1)"
        done
    elif [ "$(nproc)" -ge 2 ]; then
        fail "-bind-to core did not narrow the affinity ($c0, all: $all)"
    fi
    check_clean
}

case_usage() {
    run_job 30 "$MPIEXEC"
    expect_rc 125
    expect_err "no program to run"
    run_job 30 "$MPIEXEC" -n 0 "$PROG" kvs
    expect_rc 125
    run_job 30 "$MPIEXEC" -n 2 --frobnicate "$PROG" kvs
    expect_rc 125
    expect_err "unknown option '--frobnicate'"
    run_job 30 "$MPIEXEC" -bind-to socket "$PROG" kvs
    expect_rc 125
    run_job 30 "$MPIEXEC" -n 2 no-such-program-ch4lite
    expect_rc 127
    expect_err "not found"
    run_job 30 "$MPIEXEC" -n 2 -wdir "$T/nonexistent" "$PROG" kvs
    expect_rc 125
    run_job 30 "$MPIEXEC" -h
    expect_rc 0
    expect_out "^usage: mpiexec"
    check_clean
}

case_verbose() {
    run_job 60 "$MPIEXEC" -v -n 2 "$PROG" env CH4LITE_VERBOSE
    expect_rc 0
    expect_count out '^CH4LITE_VERBOSE=1$' 2
    expect_err "mpiexec: rank 1: pid [0-9]+"
    expect_err "bootstrap: PMI-1 from mpiexec \(ch4lite\), rank 1 of 2"
    check_clean
}

case_shm_cleanup() {
    local other="/dev/shm/ch4lite-$(id -u)-ffffffffffffffff-not-this-job"
    : >"$other"
    run_job 60 "$MPIEXEC" -n 2 "$PROG" shm
    rm -f "$other"
    expect_rc 139
    # The rank exits 139 only after it created its segment (else 2).
    if ls /dev/shm/ch4lite-"$(id -u)"-*-test >/dev/null 2>&1; then fail "segment left in /dev/shm"; fi
    [ -e "$other" ] && fail "removed another job's segment"
    check_clean
}

case_bad_pmi_lines() {  # malformed lines get errors; the rank then runs fine
    run_job 60 "$MPIEXEC" -n 2 "$PROG" garbage
    expect_rc 0
    expect_count out " ok " 2
    expect_err "bad PMI request \(line does not start with 'cmd='\)"
    check_clean
}

case_pmi_flood() {  # endless garbage: the connection is dropped, the job killed
    run_job 60 "$MPIEXEC" -n 2 "$PROG" flood
    expect_rc 1
    expect_err "JOB FAILED: rank [01] \(pid [0-9]+\) sent too many bad PMI requests"
    check_clean
}

case_singleton() {
    run_job 30 "$PROG" kvs
    expect_rc 0
    expect_out "^rank 0 of 1 ok launcher=singleton pmi=none nodes=1$"
    check_clean
}

case_foreign_launcher() {
    OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=0 run_job 30 "$PROG" kvs
    expect_rc 3
    expect_err "Open MPI"
    expect_err "mpiexec.hydra"
    expect_err "srun --mpi=pmi2"
    expect_err "srun --mpi=pmix"
    check_clean
}

# The same client under MPICH's Hydra.
case_hydra_kvs() {
    run_job 60 "$HYDRA" -n 4 "$PROG" kvs
    expect_rc 0
    expect_count out "^rank [0-3] of 4 ok launcher=hydra pmi=PMI-1 nodes=1$" 4
    check_clean
}

case_hydra_pmi_port() {
    run_job 60 "$HYDRA" -pmi-port -n 3 "$PROG" kvs
    expect_rc 0
    expect_count out "^rank [0-2] of 3 ok launcher=hydra pmi=PMI-1 nodes=1$" 3
    check_clean
}

case_hydra_mapping() {
    run_job 60 "$HYDRA" -n 3 "$PROG" mapping
    expect_rc 0
    expect_count out "^rank [0-2] nodes=0,0,0 num=1 " 3
    check_clean
}

case_hydra_abort() {
    run_job 60 "$HYDRA" -n 3 "$PROG" abort 1 42
    expect_rc 42    # Hydra passes the abort code on (it may drop the message)
    check_clean
}

case_hydra_crash() {
    run_job 60 "$HYDRA" -n 3 "$PROG" crash 2
    [ "$RC" != 0 ] || fail "Hydra reported success for a crashed job"
    check_clean
}

# The same client over PMI-2, which Hydra serves when asked for it.
case_hydra_pmi2() {
    CH4LITE_PMI=pmi2 run_job 60 "$HYDRA" -n 4 "$PROG" kvs
    expect_rc 0
    expect_count out "^rank [0-3] of 4 ok launcher=hydra pmi=PMI-2 nodes=1$" 4
    check_clean
}

case_hydra_pmi2_mapping() {
    CH4LITE_PMI=pmi2 run_job 60 "$HYDRA" -n 3 "$PROG" mapping
    expect_rc 0
    expect_count out "^rank [0-2] nodes=0,0,0 num=1 " 3
    check_clean
}

case_hydra_pmi2_abort() {
    CH4LITE_PMI=pmi2 run_job 60 "$HYDRA" -n 3 "$PROG" abort 1 42
    [ "$RC" != 0 ] || fail "Hydra reported success for an aborted job"
    expect_err "test abort from rank 1"
    check_clean
}

# Open MPI's mpirun: its PMIx server, through libpmix.
OMPI=()
if [ -n "${OMPIRUN:-}" ]; then
    OMPI=("$OMPIRUN" --oversubscribe --bind-to none)
    [ "$(id -u)" = 0 ] && OMPI+=(--allow-run-as-root)
fi

case_ompi_kvs() {
    run_job 60 "${OMPI[@]}" -n 4 "$PROG" kvs
    expect_rc 0
    expect_count out "^rank [0-3] of 4 ok launcher=mpirun \(Open MPI\) pmi=PMIx [0-9.]+[a-z0-9]* nodes=1$" 4
    check_clean
}

case_ompi_mapping() {
    run_job 60 "${OMPI[@]}" -n 3 "$PROG" mapping
    expect_rc 0
    expect_count out "^rank [0-2] nodes=0,0,0 num=1 " 3
    check_clean
}

case_ompi_abort() {
    run_job 60 "${OMPI[@]}" -n 3 "$PROG" abort 1 42
    expect_rc 42
    expect_err "test abort from rank 1"
    check_clean
}

case_ompi_crash() {
    run_job 60 "${OMPI[@]}" -n 3 "$PROG" crash 2
    [ "$RC" != 0 ] || fail "mpirun reported success for a crashed job"
    check_clean
}

# Start-up that scales: MPI_Init's address exchange (one put, one fence,
# a read of every rank) costs each rank a number of round trips to the
# launcher that does not grow with the job under PMIx, and one get per peer
# under PMI-1 and PMI-2.
trips_of() { sed -n 's/.* trips=\([0-9]*\)$/\1/p' "$T/out" | sort -u; }
case_exchange_trips() {
    local t2 t4
    run_job 60 "$MPIEXEC" -n 2 "$PROG" exchange
    expect_rc 0
    expect_count out "^rank [0-1] of 2 pmi=PMI-1 puts=1 fences=1 gets=2 trips=[0-9]+$" 2
    t2=$(trips_of)
    run_job 60 "$MPIEXEC" -n 4 "$PROG" exchange
    expect_rc 0
    t4=$(trips_of)
    [ "$(echo "$t2" | wc -w)" = 1 ] && [ "$(echo "$t4" | wc -w)" = 1 ] || fail "ranks differ: $t2 / $t4"
    [ $((t4 - t2)) = 2 ] || fail "PMI-1: $t2 round trips at 2 ranks, $t4 at 4: expected 2 more"
    if [ -n "${OMPIRUN:-}" ]; then
        run_job 60 "${OMPI[@]}" -n 2 "$PROG" exchange
        expect_rc 0
        t2=$(trips_of)
        run_job 60 "${OMPI[@]}" -n 4 "$PROG" exchange
        expect_rc 0
        t4=$(trips_of)
        [ "$t2" = "$t4" ] && [ "$(echo "$t4" | wc -w)" = 1 ] ||
            fail "PMIx: round trips [$t2] at 2 ranks, [$t4] at 4: expected the same"
    fi
    check_clean
}

if ! declare -F "case_$CASE" >/dev/null; then
    echo "unknown case '$CASE'"
    exit 2
fi
"case_$CASE"
echo "PASS [$CASE]"
