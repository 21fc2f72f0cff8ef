#!/bin/sh
# SPDX-License-Identifier: MIT
# Prints docs/supported-functions.md from include/mpi.h and the function
# prototypes it includes from include/mpi_proto_*.h (in mpi_proto.h's order):
# every declared function,
# grouped by the headers' section comments.
#   scripts/supported-functions.sh [header.h...] > docs/supported-functions.md
# test/abi checks that the committed page is current and that libmpi exports
# every function the headers declare.
set -eu
if [ $# -eq 0 ]; then
  inc=$(dirname "$0")/../include
  # shellcheck disable=SC2046 # paths without spaces
  set -- "$inc/mpi.h" $(sh "$(dirname "$0")/proto-files.sh" "$inc")
fi
cat <<'HEAD'
# Supported functions

Generated from `include/mpi.h` and `include/mpi_proto_*.h` (the prototypes,
included by mpi.h) by `scripts/supported-functions.sh`; the test
`abi.supported_functions_doc` fails when this page is out of date, and
`abi.exports` fails when libmpi lacks a function mpi.h declares. A function
that is not listed is not implemented (and not declared). Large-count `_c`
variants are listed beside their int forms.

Not provided (not declared in mpi.h, so a program using them fails to
compile or link rather than failing at run time):

- Sessions (`MPI_Session_*`, `MPI_Comm_create_from_group`,
  `MPI_Group_from_session_pset`).
- Dynamic processes: `MPI_Comm_spawn`, `MPI_Comm_spawn_multiple`,
  `MPI_Comm_get_parent`, `MPI_Comm_connect`, `MPI_Comm_accept`,
  `MPI_Comm_join`, `MPI_Open_port`, `MPI_Close_port`, `MPI_Publish_name`,
  `MPI_Unpublish_name`, `MPI_Lookup_name`. (`MPI_Comm_disconnect` is
  provided, for every communicator but the predefined ones.)
- MPI-IO (`MPI_File_*`) and the tool interface (`MPI_T_*`).
- Fortran status conversion (`MPI_Status_c2f`, `MPI_Status_f2c` and the
  f08 forms): there is no Fortran binding.
- The MPI-1 functions removed in MPI-3.0: `MPI_Address`, `MPI_Type_extent`,
  `MPI_Type_lb`, `MPI_Type_ub`, `MPI_Type_hvector`, `MPI_Type_hindexed`,
  `MPI_Type_struct`, `MPI_Errhandler_create`, `MPI_Errhandler_get`,
  `MPI_Errhandler_set` (Open MPI 4 leaves them out by default too; use
  `MPI_Get_address`, `MPI_Type_get_extent`, `MPI_Type_create_*`,
  `MPI_Comm_*_errhandler`). The MPI-1 functions MPI-4.1 only deprecates
  (`MPI_Keyval_create`, `MPI_Keyval_free`, `MPI_Attr_put`, `MPI_Attr_get`,
  `MPI_Attr_delete`) are provided.

HEAD
awk '
  /^\/\* ---- / {
    t = $0; sub(/^\/\* ---- /, "", t); sub(/ -*[ ]*\*\/.*/, "", t); sub(/ \(.*$/, "", t);
    section = t; next
  }
  /^(int|double|MPI_Aint|MPI_Comm|MPI_Datatype|MPI_Errhandler|MPI_Request|MPI_Group|MPI_Op|MPI_Win|MPI_Info|MPI_Message|MPI_File|MPI_Session) +\**MPI_[A-Za-z0-9_]+\(/ {
    match($0, /MPI_[A-Za-z0-9_]+\(/); name = substr($0, RSTART, RLENGTH - 1);  # after the return type
    if (!(section in seen)) { seen[section] = 1; order[++ns] = section }
    base = name; sub(/_c$/, "", base);
    key = section SUBSEP base;
    if (name ~ /_c$/) { hasc[key] = 1 } else { if (!(key in have)) { list[section] = list[section] " " base; have[key] = 1 } }
    if (name ~ /_c$/ && !(key in have)) { list[section] = list[section] " " base; have[key] = 1; conly[key] = 1 }
  }
  END {
    total = 0
    for (i = 1; i <= ns; ++i) {
      s = order[i]; printf "## %s\n\n", toupper(substr(s, 1, 1)) substr(s, 2);
      n = split(list[s], f, " ");
      for (j = 1; j <= n; ++j) {
        k = s SUBSEP f[j];
        if (k in conly) printf "- `%s_c`\n", f[j];
        else if (k in hasc) printf "- `%s`, `%s_c`\n", f[j], f[j];
        else printf "- `%s`\n", f[j];
        total++
      }
      printf "\n"
    }
    printf "%d functions (not counting `_c` forms).\n", total
  }' "$@"
