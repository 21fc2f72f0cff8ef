#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the Debian packages ch4lite needs, if any are missing. Idempotent
# and quiet when everything is present.
#   required: build tools, libfabric, UCX (the ucx netmod), hwloc, GoogleTest,
#             man-db (test docs.man renders the man pages), PMIx headers
#             (libmpi loads libpmix only when a PMIx launcher
#             starts it)
#   optional (side-by-side benchmarks and launcher-compatibility tests):
#             MPICH (Hydra) and Open MPI; skip with CH4LITE_NO_PEERS=1
#   optional, only with CH4LITE_SLURM=1 (the Slurm tests, test/slurm): Slurm's
#             controller, node daemon and client, and munge. Their services are
#             not started by the installation: the tests start their own.
#   iproute2 and util-linux (ip, unshare: the test hosts of test/multihost).
set -eu
required="cmake g++ make pkg-config man-db libfabric-dev libfabric-bin libucx-dev libhwloc-dev hwloc googletest libgtest-dev libpmix-dev"
peers="mpich libmpich-dev openmpi-bin libopenmpi-dev"
slurm="slurmctld slurmd slurm-client munge"
want="$required iproute2 util-linux"
[ "${CH4LITE_NO_PEERS:-0}" = 1 ] || want="$want $peers"
[ "${CH4LITE_SLURM:-0}" = 1 ] && want="$want $slurm"

missing=""
for p in $want; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done
[ -z "$missing" ] && exit 0

echo "ch4lite: installing missing Debian packages:$missing"
if [ "$(id -u)" = 0 ]; then
  sudo=""
elif command -v sudo >/dev/null 2>&1; then
  sudo="sudo"
else
  echo "ch4lite: not root and no sudo; please run: apt-get install$missing" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# Packages with daemons (munge, slurmd, slurmctld) must not start them: a
# policy-rc.d that refuses, for the length of the installation, unless the
# machine has one already.
policy=""
if [ ! -e /usr/sbin/policy-rc.d ]; then
  policy=/usr/sbin/policy-rc.d
  printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
  $sudo chmod 755 "$policy"
  trap '$sudo rm -f "$policy"' EXIT
fi
# Try with the current package lists first; refresh them once if that fails
# (a fresh machine may have none).
if ! $sudo apt-get install -y -qq --no-install-recommends $missing; then
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends $missing
fi
