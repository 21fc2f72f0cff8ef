#!/bin/bash
# SPDX-License-Identifier: MIT
# One case of jobs under a real, local Slurm:  slurm_test.sh CASE
# Starts munged, slurmctld and slurmd (Debian's packages; install them with
# CH4LITE_SLURM=1 scripts/install-deps.sh) on a test host of its own
# (test/multihost/hosts.sh: a network namespace, so every message stays on
# its loopback), with a generated slurm.conf (one node, as many CPUs as this
# machine has), a new munge key and every state directory in a temporary
# directory; runs srun/sbatch jobs there; stops everything it started and
# removes the host, pass or fail. Exit 77 (ctest: skipped) with the reason
# when Slurm is not installed or cannot start here.
# Environment: PROG (pmi_prog), MH_PROG (mh_prog), AMLIB, and the MPI test
# programs ORDER, COLL, RMA, DDT.
set -u
CASE=$1
HERE=$(cd "$(dirname "$0")" && pwd)
HOSTS=$HERE/../multihost/hosts.sh
T=$(mktemp -d "${TMPDIR:-/tmp}/ch4lite-slurm.XXXXXX") || exit 1
chmod 700 "$T"
export MH_DIR=$T/hosts MH_NSENTER=1 SLURM_CONF=$T/slurm.conf
unset PMI_FD PMI_PORT PMI_ID PMI_RANK PMI_SIZE PMI_JOBID PMIX_RANK PMIX_NAMESPACE CH4LITE_PMI \
      OMPI_COMM_WORLD_SIZE OMPI_COMM_WORLD_RANK SLURM_JOB_ID SLURM_PROCID SLURM_STEP_NUM_TASKS
ulimit -c 0
DAEMONS=()
RC=""

cleanup() {
    local p i
    for p in "${DAEMONS[@]}"; do kill -TERM "$p" 2>/dev/null; done
    for i in $(seq 50); do
        local alive=""
        for p in "${DAEMONS[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
        [ -z "$alive" ] && break
        sleep 0.1
    done
    "$HOSTS" down "$MH_DIR"  # kills what is left on the host
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
    echo "---- stdout:"; tail -40 "$T/out" 2>/dev/null
    echo "---- stderr:"; tail -40 "$T/err" 2>/dev/null
    echo "---- slurmctld.log:"; tail -15 "$T/slurmctld.log" 2>/dev/null
    echo "---- slurmd.log:"; tail -40 "$T/slurmd.log" 2>/dev/null
    exit 1
}

on_host() { "$HOSTS" exec "$MH_DIR" h1 "$@"; }

# Starts munged, slurmctld and slurmd; skips with the reason if it cannot.
start_slurm() {
    local c
    for c in slurmctld slurmd srun sbatch sinfo munged; do
        command -v "$c" >/dev/null 2>&1 ||
            skip "Slurm is not installed ($c missing): CH4LITE_SLURM=1 scripts/install-deps.sh installs it"
    done
    [ "$(id -u)" = 0 ] || skip "needs root (slurmd runs as root; the test host is a network namespace)"
    ip netns add "ch4slprobe$$" 2>"$T/probe.err" || skip "cannot make a network namespace: $(cat "$T/probe.err")"
    ip netns del "ch4slprobe$$"
    "$HOSTS" up "$MH_DIR" 1 2>"$T/up.err" || skip "cannot make the test host: $(cat "$T/up.err")"
    local plugdir
    plugdir=$(dirname "$(find /usr/lib* -name mpi_pmi2.so -path '*slurm*' 2>/dev/null | head -1)")
    [ -n "$plugdir" ] && [ "$plugdir" != . ] || skip "Slurm's mpi/pmi2 plugin is not installed"
    mkdir -p "$T/munge" "$T/state" "$T/spool"
    chmod 700 "$T/munge"
    head -c 1024 /dev/urandom >"$T/munge/munge.key"
    chmod 400 "$T/munge/munge.key"
    cat >"$SLURM_CONF" <<EOF
ClusterName=ch4lite
SlurmctldHost=h1(127.0.0.1)
SlurmctldPort=6817
SlurmdPort=6818
AuthType=auth/munge
AuthInfo=socket=$T/munge/munge.socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
PluginDir=$plugdir
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
KillWait=2
MinJobAge=2
InactiveLimit=0
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=h1 NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=h1 Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
    # The pmix plugin's per-step directories, under ours too (default /tmp).
    mkdir -p "$T/pmix"
    echo "PMIxCliTmpDirBase=$T/pmix" >"$T/mpi.conf"
    on_host munged --foreground --force --key-file="$T/munge/munge.key" --socket="$T/munge/munge.socket" \
        --pid-file="$T/munge/munged.pid" --log-file="$T/munge/munged.log" \
        --seed-file="$T/munge/munged.seed" --origin=127.0.0.1 >"$T/munged.out" 2>&1 &
    DAEMONS+=($!)
    local i
    for i in $(seq 50); do [ -S "$T/munge/munge.socket" ] && break; sleep 0.1; done
    [ -S "$T/munge/munge.socket" ] || skip "munged did not start: $(tail -3 "$T/munged.out" "$T/munge/munged.log" 2>/dev/null)"
    on_host slurmctld -D -c -i >"$T/slurmctld.out" 2>&1 &
    DAEMONS+=($!)
    on_host slurmd -D -N h1 >"$T/slurmd.out" 2>&1 &
    DAEMONS+=($!)
    for i in $(seq 150); do
        on_host sinfo -h -o %T 2>/dev/null | grep -q '^idle' && return 0
        for p in "${DAEMONS[@]}"; do
            kill -0 "$p" 2>/dev/null ||
                skip "a Slurm daemon exited: $(grep -h -i error "$T/slurmctld.log" "$T/slurmd.log" 2>/dev/null | tail -3)"
        done
        sleep 0.2
    done
    skip "the Slurm node did not become idle in 30 s: $(grep -h -i error "$T/slurmd.log" "$T/slurmctld.log" 2>/dev/null | tail -3)"
}

# run SECONDS CMD...: on the Slurm host, output in $T/out and $T/err.
run() {
    local secs=$1
    shift
    on_host timeout -s KILL "$secs" "$@" >"$T/out" 2>"$T/err" </dev/null
    RC=$?
}

expect_rc() { [ "$RC" = "$1" ] || fail "exit code $RC, expected $1"; }
expect_out() { grep -Eq -- "$1" "$T/out" || fail "stdout lacks /$1/"; }
expect_err() { grep -Eq -- "$1" "$T/err" || fail "stderr lacks /$1/"; }
expect_count() {
    local n
    n=$(grep -Ec -- "$2" "$T/$1")
    [ "$n" = "$3" ] || fail "$1 has $n lines matching /$2/, expected $3"
}

# Nothing of a job left on the host: no rank (slurmstepd and the daemons
# stay), no /dev/shm file.
check_clean() {
    local i left
    for i in $(seq 50); do
        left=$(for p in $(ip netns pids "$(cat "$MH_DIR/prefix")-h1"); do
            grep -lE 'mh_prog|pmi_prog|test-bin' "/proc/$p/cmdline" 2>/dev/null; done)
        [ -z "$left" ] && [ -z "$(ls -A "$MH_DIR/shm/h1" 2>/dev/null)" ] && return 0
        sleep 0.1
    done
    fail "left behind: ranks [$left], /dev/shm [$(ls -A "$MH_DIR/shm/h1")]"
}

# srun -n 4 --mpi=MPI of the launcher test program and the MPI test programs
# on both netmod paths; the same answers as under our mpiexec.
srun_case() {
    local mpi=$1 want
    start_slurm
    on_host srun --mpi=list >"$T/list" 2>&1
    grep -qw "$mpi" "$T/list" || skip "this Slurm has no mpi/$mpi plugin: $(tr '\n' ' ' <"$T/list")"
    run 60 srun -n 4 --overcommit --mpi="$mpi" "$PROG" kvs
    expect_rc 0
    if [ "$mpi" = pmix ]; then want="PMIx [0-9.a-z]+"; else want="PMI-2"; fi
    expect_count out "^rank [0-3] of 4 ok launcher=slurm pmi=$want nodes=1$" 4
    run 60 srun -n 4 --overcommit --mpi="$mpi" "$MH_PROG" answers
    expect_rc 0
    grep '^answers ' "$T/out" | sort >"$T/answers.slurm"
    "$MPIEXEC" -n 4 -maxtime 60 "$MH_PROG" answers 2>/dev/null | grep '^answers ' | sort >"$T/answers.mpiexec"
    [ -s "$T/answers.mpiexec" ] || fail "no answers under our mpiexec"
    cmp -s "$T/answers.slurm" "$T/answers.mpiexec" ||
        fail "answers differ from our mpiexec's: $(diff "$T/answers.mpiexec" "$T/answers.slurm")"
    local p path
    for p in "$ORDER" "$COLL" "$RMA" "$DDT"; do
        for path in tagged am; do
            if [ "$path" = am ]; then
                LD_LIBRARY_PATH=$AMLIB CH4LITE_EXPECT_PATH=am run 120 srun -n 4 --overcommit --mpi="$mpi" "$p"
            else
                CH4LITE_EXPECT_PATH=tagged run 120 srun -n 4 --overcommit --mpi="$mpi" "$p"
            fi
            [ "$RC" = 0 ] || fail "$(basename "$p") on the $path path failed under srun --mpi=$mpi"
        done
    done
    check_clean
}

case_pmi2() { srun_case pmi2; }
case_pmix() { srun_case pmix; }

# A rank killed by a signal (srun --kill-on-bad-exit, as MPI jobs should
# run: without it Slurm lets the other tasks run on) and one calling
# MPI_Abort (no option needed: the abort goes to Slurm through PMI): srun
# ends the step, every task, and nothing is left.
case_faults() {
    start_slurm
    local mpi
    for mpi in pmi2 pmix; do
        run 60 srun -n 4 --overcommit --kill-on-bad-exit=1 --mpi="$mpi" "$MH_PROG" kill 2
        [ "$RC" != 0 ] || fail "srun --mpi=$mpi succeeded although rank 2 was killed"
        expect_out "kill: rank 2 on h1 dies now"
        check_clean
        run 60 srun -n 3 --overcommit --mpi="$mpi" "$PROG" abort 1 42
        [ "$RC" != 0 ] || fail "srun --mpi=$mpi succeeded although rank 1 aborted"
        expect_err "test abort from rank 1"
        check_clean
    done
}

# sbatch: a batch script whose srun starts the MPI job (docs/mpiexec.md).
case_sbatch() {
    start_slurm
    cat >"$T/job.sh" <<EOF
#!/bin/sh
#SBATCH --ntasks=4
#SBATCH --overcommit
#SBATCH --output=$T/job.out
srun --mpi=pmi2 $MH_PROG answers
EOF
    run 60 sbatch --wait "$T/job.sh"
    expect_rc 0
    [ -f "$T/job.out" ] || fail "the batch job wrote no output"
    cp "$T/job.out" "$T/out"
    expect_count out "^answers rank [0-3] size 4: sum 18 " 4
    check_clean
}

if ! declare -F "case_$CASE" >/dev/null; then
    echo "unknown case '$CASE'"
    exit 2
fi
"case_$CASE"
echo "PASS [$CASE]"
