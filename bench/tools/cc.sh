#!/bin/sh
# SPDX-License-Identifier: MIT
# Compile one benchmark variant without ever failing the build (STYLE.md #13).
#   sh cc.sh <strict 0|1> <output> <compiler> <arguments...>
# On success <output> is the program. On failure (e.g. a ch4lite libmpi that
# does not have every MPI function yet) <output> becomes a stub that exits 77
# and <output>.notbuilt holds the compiler log; bench/run.sh reports it as
# "not built". With strict=1 (CH4LITE_BENCH_STRICT=ON) a failure is an error.
strict=$1
out=$2
shift 2
rm -f "$out.notbuilt" "$out.log"
if "$@" -o "$out.tmp" >"$out.log" 2>&1; then
  mv -f "$out.tmp" "$out"
  [ -s "$out.log" ] || rm -f "$out.log"
  exit 0
fi
rm -f "$out.tmp"
if [ "$strict" = 1 ]; then
  cat "$out.log" >&2
  exit 1
fi
mv -f "$out.log" "$out.notbuilt"
printf '#!/bin/sh\necho "not built: see %s" >&2\nexit 77\n' "$out.notbuilt" >"$out"
chmod +x "$out"
echo "bench: warning: $out not built (see $out.notbuilt)" >&2
exit 0
