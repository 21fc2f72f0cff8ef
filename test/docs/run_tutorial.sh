#!/bin/sh
# SPDX-License-Identifier: MIT
# docs.tutorial: every command of docs/tutorial.md runs.
#   sh run_tutorial.sh <source dir> <build dir> [bench]
# Extracts the ```sh blocks of the tutorial, in order, into one script run
# with `sh -ex` (the first failing command fails the test and is shown), in a
# scratch directory that looks like the source tree: every top-level entry is
# a symbolic link to the source, except build/, a directory of links to the
# build tree's entries, so that what the tutorial writes (hello2.c,
# bench-summary.tsv, ...) lands in the scratch directory and not in the
# trees. HOME is the scratch directory too ("$HOME/ch4lite" for the install).
# Line directives, in a trailing comment of a command line:
#   # test: <command>         run <command> instead (a long step in short form)
#   # test: needs <program>   run the line only if <program> is on PATH
# With "bench" (CH4LITE_BENCH=ON) the benchmark step must have measured
# ch4lite, and MPICH and Open MPI where their benchmark variants were built.
set -eu
src=$(cd "${1:?usage: run_tutorial.sh <source dir> <build dir> [bench]}" && pwd)
build=$(cd "${2:?usage: run_tutorial.sh <source dir> <build dir> [bench]}" && pwd)
want_bench=${3:-}
doc="$src/docs/tutorial.md"
tmp=$(mktemp -d)
cleanup() {
  # Ranks end with their mpiexec (PR_SET_PDEATHSIG); segments with their job.
  [ -n "${KEEP_TUTORIAL_TMP:-}" ] && { echo "kept $tmp" >&2; return; }
  rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

work="$tmp/tree"
mkdir -p "$work/build" "$tmp/home"
for e in "$src"/* "$src"/.[!.]*; do
  [ -e "$e" ] || continue
  n=$(basename "$e")
  case $n in build|build-*|.git) continue ;; esac
  ln -s "$e" "$work/$n"
done
# Outputs of earlier runs in the real build tree are left out, so they
# are written afresh here.
for e in "$build"/* "$build"/.[!.]*; do
  [ -e "$e" ] || continue
  n=$(basename "$e")
  case $n in bench-out|bench-results.txt|bench-results.tsv|bench-summary.tsv|Testing|install_manifest*) continue ;; esac
  ln -s "$e" "$work/build/$n"
done

# The ```sh blocks, with the directives applied; each block announces itself.
awk -v doc="docs/tutorial.md" '
  /^```sh[[:space:]]*$/ { inblock = 1; nb++; print "echo \"== block " nb " (" doc ":" NR ")\""; next }
  inblock && /^```[[:space:]]*$/ { inblock = 0; next }
  !inblock { next }
  {
    line = $0
    i = index(line, "# test: ")
    if (i > 0) {
      d = substr(line, i + 8)
      cmd = substr(line, 1, i - 1)
      sub(/[[:space:]]+$/, "", cmd)
      if (d ~ /^needs /) {
        split(d, w, " ")
        printf "if command -v %s >/dev/null 2>&1; then %s; else echo \"(skipped: no %s)\"; fi\n", w[2], cmd, w[2]
      } else {
        # "<command> (why)": the reason in parentheses is left out.
        sub(/[[:space:]]+\([^()]*\)[[:space:]]*$/, "", d)
        print d
      }
      next
    }
    print line
  }
  END { if (inblock) { print "tutorial: unterminated sh block" > "/dev/stderr"; exit 1 } }' "$doc" >"$tmp/tutorial.sh"
nblocks=$(grep -c '^echo "== block' "$tmp/tutorial.sh" || true)
[ "$nblocks" -ge 5 ] || { echo "docs.tutorial: only $nblocks sh blocks in $doc" >&2; exit 1; }

start=$(date +%s)
if ! (cd "$work" && env HOME="$tmp/home" MPIEXEC_TIMEOUT=60 sh -ex "$tmp/tutorial.sh") >"$tmp/log" 2>&1; then
  cat "$tmp/log"
  echo "docs.tutorial: a command of $doc failed (the last '+' line above; blocks are numbered in order)" >&2
  exit 1
fi
secs=$(($(date +%s) - start))

# The benchmark step really ran ch4lite (and the peers that were built).
if [ "$want_bench" = bench ]; then
  summary="$work/build/bench-summary.tsv"
  [ -s "$summary" ] || { cat "$tmp/log"; echo "docs.tutorial: the benchmark step wrote no bench-summary.tsv" >&2; exit 1; }
  . "$build/bench-bin/config.sh"
  ran=
  for impl in ch4lite mpich ompi; do
    case " $BENCH_BUILT_IMPLS " in *" $impl "*) ;; *) continue ;; esac
    [ -e "$build/bench-bin/$impl/latency" ] && [ ! -e "$build/bench-bin/$impl/latency.notbuilt" ] || continue
    case $impl in
      mpich) [ -n "$BENCH_HYDRA" ] && [ -x "$BENCH_HYDRA" ] || continue ;;
      ompi) [ -n "$BENCH_OMPIRUN" ] && [ -x "$BENCH_OMPIRUN" ] || continue ;;
    esac
    if ! awk -F '\t' -v c="$impl" '$1 == "VALUE" && $2 == "p2p_latency" && $4 == c && $5 == "lat_us" { f = 1 } END { exit !f }' "$summary"; then
      cat "$tmp/log"
      echo "docs.tutorial: the benchmark step measured no p2p_latency lat_us under $impl" >&2
      exit 1
    fi
    ran="$ran $impl"
  done
  case $ran in *ch4lite*) ;; *) echo "docs.tutorial: the ch4lite latency benchmark is not built" >&2; exit 1 ;; esac
  echo "docs.tutorial: benchmark measured:$ran"
fi
grep -E '^== block|^\(skipped' "$tmp/log" | tr '\n' ' '
echo
echo "docs.tutorial: $nblocks blocks ran in ${secs}s"
