#!/bin/sh
# SPDX-License-Identifier: MIT
# An "ssh" for launchers (Hydra's -launcher-exec, Open MPI's plm_rsh_agent)
# that runs the command on one of the test hosts of hosts.sh ($MH_DIR).
exec "$(dirname "$0")/hosts.sh" ssh "$@"
