#!/bin/sh
# SPDX-License-Identifier: MIT
# Instructions per packed byte of MPI_Pack / MPI_Unpack (ch4lite, MPICH,
# Open MPI) and of the application's hand loop, and instructions per
# construction + commit + free of the layout's type, under callgrind.
#   sh bench/dame/icount.sh <builddir> [layout ...]
# Needs valgrind; compiles icount.c with <builddir>/bin/mpicc (ch4lite),
# mpicc.mpich and mpicc.openmpi (those installed). Counts are inclusive over
# all calls of run_pack / run_unpack / run_hand / run_commit (2 x 10 calls
# each). valgrind's malloc is not counted (it runs outside the simulated CPU).
set -eu
build=$(cd "$1" && pwd)
shift
here=$(cd "$(dirname "$0")" && pwd)
layouts=${*:-"NAS_LU_y/408 NAS_MG_x/130 FFT2_recv/512 WRF_x_vec/63168 WRF_y_vec/90804 SPECFEM3D_mt/76800 LAMMPS_full/195968 SPECFEM3D_oc/12900 SPECFEM3D_cm/55224 vector_b1 MILC_su3_zd/24576"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-22s %8s | %-23s | %-23s | %-15s | %s\n' layout bytes "pack Ir/B ch4 mpich ompi" "unpk Ir/B ch4 mpich ompi" "hand Ir/B (avg)" "commit Ir ch4 mpich ompi"
for impl in ch4lite mpich ompi; do
  case $impl in
    ch4lite) cc=$build/bin/mpicc ;;
    mpich) cc=$(command -v mpicc.mpich || true) ;;
    ompi) cc=$(command -v mpicc.openmpi || true) ;;
  esac
  [ -n "$cc" ] && [ -x "$cc" ] || continue
  "$cc" -O2 -g -I"$here" "$here/icount.c" -o "$tmp/icount.$impl" 2>/dev/null || true
done
for l in $layouts; do
  line=$(printf '%-22s' "$l")
  bytes=""
  for impl in ch4lite mpich ompi; do
    prog=$tmp/icount.$impl
    [ -x "$prog" ] || continue
    out=$tmp/$impl.out
    valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect=run_pack \
      --toggle-collect=run_unpack --toggle-collect=run_hand --toggle-collect=run_commit "$prog" "$l" >"$tmp/$impl.txt" 2>/dev/null || true
    bytes=$(awk '{print $2}' "$tmp/$impl.txt" | head -1)
    callgrind_annotate --inclusive=yes --threshold=100 "$out" 2>/dev/null |
      awk -v impl=$impl '/ run_pack /||/:run_pack /{p=$1} / run_unpack /||/:run_unpack /{u=$1} /:run_hand /{h=$1}
        / run_commit /||/:run_commit /{c=$1}
        END {gsub(",","",p); gsub(",","",u); gsub(",","",h); gsub(",","",c); print impl, p, u, h, c}' >"$tmp/$impl.ir"
  done
  [ -n "$bytes" ] || continue
  awk -v l="$l" -v b="$bytes" 'BEGIN{n=0}
    {p[$1]=$2; u[$1]=$3; h[$1]=$4; c[$1]=$5}
    END {
      # 10 calls of MPI_Pack, 10 of MPI_Unpack, 20 of the hand loop (10 each
      # way), 20 constructions + commits + frees
      printf "%-22s %8d | %6.2f %6.2f %6.2f   | %6.2f %6.2f %6.2f   | %6.2f          | %7d %7d %7d\n", l, b,
        p["ch4lite"]/10/b, p["mpich"]/10/b, p["ompi"]/10/b,
        u["ch4lite"]/10/b, u["mpich"]/10/b, u["ompi"]/10/b, h["ch4lite"]/20/b,
        c["ch4lite"]/20, c["mpich"]/20, c["ompi"]/20
    }' "$tmp"/*.ir
done
