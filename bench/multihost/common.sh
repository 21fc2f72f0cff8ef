# SPDX-License-Identifier: MIT
# Shared by the benchmarks across test hosts (sourced): makes the hosts of
# test/multihost/hosts.sh, removes them on exit, and starts jobs on them
# with each implementation's launcher, configured alike: every launcher runs
# on the head, daemons reach the hosts through ssh.sh, and every network
# byte goes over the hosts' eth0 (veth into one bridge).
#   mh_setup SRC N     needs root; exits 77 (the harness: skipped) otherwise
#   mh_job CONFIG SPEC PROG ARGS...   SPEC: "1:2,2:2" (host:ranks); output in
#                      $tmp/out, $tmp/err; exit status of the launcher
# Configurations:
#   ch4lite      Hydra, PMI-1; shm within a host, tcp;ofi_rxm over eth0
#   ch4lite-yield  the same with CH4LITE_YIELD=1 (idle waits yield the CPU)
#   ch4lite-ucx  Hydra; the ucx netmod's libmpi (MH_UCX_LIB) with MPICH's
#                settings: UCX_TLS=tcp,self, UCX_NET_DEVICES=eth0
#   ch4lite-pmix Open MPI's mpirun (its PMIx server), the same library
#   mpich        Hydra; ch4:ucx with UCX_TLS=tcp,self (UCX's shared memory
#                would take the bytes between the hosts, which share a kernel),
#                UCX_NET_DEVICES=eth0; MPICH's own shm within a host
#   ompi         mpirun; ob1 with btl self,vader,tcp, tcp on eth0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ch4lite-mhbench.XXXXXX") || exit 1
chmod 755 "$tmp"
MH_DIR=$tmp/hosts
export MH_DIR
mh_cleanup() { [ -n "${HOSTS_SH:-}" ] && "$HOSTS_SH" down "$MH_DIR"; rm -rf "$tmp"; }
trap mh_cleanup EXIT
trap 'exit 1' INT TERM

mh_setup() {
  HOSTS_SH=$1/test/multihost/hosts.sh
  SSH_SH=$1/test/multihost/ssh.sh
  if [ "$(id -u)" != 0 ] || ! ip netns add "ch4bprobe$$" 2>/dev/null; then
    echo "$(basename "$0"): needs root and network namespaces (test/multihost/hosts.sh)" >&2
    exit 77
  fi
  ip netns del "ch4bprobe$$"
  "$HOSTS_SH" up "$MH_DIR" "$2" 2>"$tmp/up.err" || { echo "hosts.sh up: $(cat "$tmp/up.err")" >&2; exit 77; }
  HYDRA=$(command -v mpiexec.hydra || true)
  OMPIRUN=$(command -v mpirun.openmpi || true)
}

mh_hostlist() {  # "1:2,2:2" -> "198.51.100.1:2,198.51.100.2:2"
  echo "$1" | tr ',' '\n' | awk -F: '{ printf "%s198.51.100.%s:%s", (NR > 1 ? "," : ""), $1, $2 }'
}

mh_np() { echo "$1" | tr ',' '\n' | awk -F: '{ n += $2 } END { print n }'; }

mh_job() {
  cfg=$1 spec=$2
  shift 2
  hl=$(mh_hostlist "$spec")
  np=$(mh_np "$spec")
  case $cfg in
    ch4lite|ch4lite-yield)
      y=""
      [ "$cfg" = ch4lite-yield ] && y="-genv CH4LITE_YIELD 1"
      # shellcheck disable=SC2086
      "$HOSTS_SH" exec "$MH_DIR" head "$HYDRA" -localhost 198.51.100.100 -hosts "$hl" \
        -launcher ssh -launcher-exec "$SSH_SH" -n "$np" $y "$@" ;;
    ch4lite-ucx)
      "$HOSTS_SH" exec "$MH_DIR" head "$HYDRA" -localhost 198.51.100.100 -hosts "$hl" \
        -launcher ssh -launcher-exec "$SSH_SH" -n "$np" -genv LD_LIBRARY_PATH "$MH_UCX_LIB" \
        -genv UCX_TLS tcp,self -genv UCX_NET_DEVICES eth0 "$@" ;;
    mpich)
      "$HOSTS_SH" exec "$MH_DIR" head "$HYDRA" -localhost 198.51.100.100 -hosts "$hl" \
        -launcher ssh -launcher-exec "$SSH_SH" -n "$np" -genv UCX_TLS tcp,self \
        -genv UCX_NET_DEVICES eth0 "$@" ;;
    ch4lite-pmix|ompi)
      extra=""
      [ "$cfg" = ompi ] && extra="--mca pml ob1 --mca btl self,vader,tcp --mca btl_tcp_if_include eth0"
      # shellcheck disable=SC2086
      "$HOSTS_SH" exec "$MH_DIR" head "$OMPIRUN" --allow-run-as-root --host "$hl" \
        --mca plm_rsh_agent "$SSH_SH" --mca oob_tcp_if_include eth0 --bind-to none $extra \
        -n "$np" "$@" ;;
  esac >"$tmp/out" 2>"$tmp/err" </dev/null
}
