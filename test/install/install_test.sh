#!/bin/sh
# SPDX-License-Identifier: MIT
# install_test.sh <build dir> <source dir>: installs into a temporary prefix
# and builds a program against the install tree three ways (the installed
# mpicc, pkg-config, CMake's find_package), then runs each with the installed
# mpiexec.
set -eu
build=$1; src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in bin/mpicc bin/mpicxx bin/mpiexec include/mpi.h include/mpi_proto.h include/mpi_proto_p2p.h include/mpi_pmpi.h include/mpi_pmpi_rma.h lib/libmpi.so lib/libmpi_abi.so \
         lib/pkgconfig/ch4lite.pc lib/cmake/ch4lite/ch4liteConfig.cmake \
         share/man/man1/mpiexec.1 share/man/man1/mpicc.1 share/man/man1/mpicxx.1; do
  [ -e "$prefix/$f" ] || { echo "FAIL: $f not installed"; exit 1; }
done
# man finds the installed pages from PATH (<prefix>/bin -> <prefix>/share/man).
if command -v man >/dev/null 2>&1; then
  for p in mpiexec mpicc mpicxx; do
    w=$(env -u MANPATH PATH="$prefix/bin:$PATH" man -w "$p" 2>/dev/null | head -1)
    [ "$w" = "$prefix/share/man/man1/$p.1" ] || { echo "FAIL: man -w $p gives '$w', not the installed page"; exit 1; }
  done
fi
prog=$src/examples/ring.c
"$prefix/bin/mpicc" "$prog" -o "$tmp/ring_wrapper"
PKG_CONFIG_PATH=$prefix/lib/pkgconfig
export PKG_CONFIG_PATH
cc "$prog" -o "$tmp/ring_pkgconfig" $(pkg-config --cflags --libs ch4lite) -Wl,-rpath,"$prefix/lib"
mkdir -p "$tmp/cm"
cat > "$tmp/cm/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.16)
project(ringcm C)
find_package(ch4lite REQUIRED)
add_executable(ring_cmake $prog)
target_link_libraries(ring_cmake PRIVATE ch4lite::mpi)
CM
cmake -S "$tmp/cm" -B "$tmp/cm/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/cm/build" >/dev/null
for p in "$tmp/ring_wrapper" "$tmp/ring_pkgconfig" "$tmp/cm/build/ring_cmake"; do
  # the installed library must be the one loaded, not the build tree's
  ldd "$p" | grep -q "$prefix/lib/libmpi.so" || { echo "FAIL: $p does not use the installed libmpi"; ldd "$p"; exit 1; }
  "$prefix/bin/mpiexec" -n 3 -maxtime 60 "$p"
done
echo "install: OK (mpicc, pkg-config, find_package)"
