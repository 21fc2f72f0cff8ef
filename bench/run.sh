#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench: run every benchmark under every available implementation and
# configuration in one run, then print one table per benchmark table.
#   sh bench/run.sh <builddir>
# Knobs (environment):
#   BENCH_FILTER=<regex>   only benchmarks whose "<area>/<name>" matches
#                          (grep -E), e.g. p2p, dame/, latency
#   BENCH_QUICK=1          short measurements, one round (smoke test)
#   BENCH_ROUNDS=<n>       rounds; each runs every (benchmark, configuration)
#                          once, interleaved; a value is the median over rounds
#                          (default 3, quick 1)
#   BENCH_CONFIGS="a b"    configurations to run (default: ch4lite ch4lite-net
#                          mpich ompi ompi-ofi, plus every reference; and for
#                          the benchmarks BENCH_UCX_FILTER matches, default
#                          p2p/(latency|bandwidth), the UCX comparison:
#                          ch4lite-ucx ch4lite-ucx-am ch4lite-ucx-tcp
#                          ch4lite-ucx-am-tcp mpich-tcp ompi-ucx ompi-ucx-tcp);
#                          opt-in: ch4lite-am; ch4lite-async and mpich-async
#                          (a progress thread: CH4LITE_ASYNC_PROGRESS=1,
#                          MPIR_CVAR_ASYNC_PROGRESS=1)
#   BENCH_BIND=core        bind ranks to cores (default: no binding anywhere)
#   BENCH_TIMEOUT=<s>      per program run (default 600)
#   BENCH_STRICT=1         exit 1 when a goal is missed (default: never fail)
#   BENCH_WAIT_IDLE=<s>    before each program run, wait up to <s> seconds
#                          (default 30, quick 0; 0: never) for the CPUs to be idle
#                          (< BENCH_IDLE_PCT, default 30% busy)
#   BENCH_NICE=<n>         run the programs under nice -n <n> (e.g. -5, as root,
#                          on a shared machine; others lose CPU meanwhile)
#   BENCH_RETRIES=<n>      repeat a run during which other processes took more
#                          than BENCH_IDLE_PCT of the CPUs, up to n times
#                          (default 2, quick 0); the share is shown per run and
#                          runs that stay disturbed are noted under the tables
# Other BENCH_* variables (BENCH_MAX_BYTES, BENCH_INNER_REPS, ...) are passed
# to the programs. Output: stdout, <builddir>/bench-results.txt (the tables),
# <builddir>/bench-results.tsv (every tagged line of every run) and
# <builddir>/bench-summary.tsv (the merged numbers). docs/benchmarks.md.
set -u
set -f   # no globbing: word lists below are split on blanks only
if [ $# -lt 1 ]; then
  echo "usage: sh bench/run.sh <builddir>" >&2
  exit 2
fi
B=$(cd "$1" 2>/dev/null && pwd) || { echo "bench: no build directory $1" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
bin="$B/bench-bin"
if [ ! -f "$bin/manifest.tsv" ] || [ ! -f "$bin/config.sh" ]; then
  echo "bench: no benchmarks configured in $B (CH4LITE_BENCH=ON, then build)"
  exit 0
fi
. "$bin/config.sh"

PROV='tcp;ofi_rxm'
quick=0
case "${BENCH_QUICK:-0}" in ''|0) ;; *) quick=1 ;; esac
if [ $quick = 1 ]; then rounds=${BENCH_ROUNDS:-1}; else rounds=${BENCH_ROUNDS:-3}; fi
tmo=${BENCH_TIMEOUT:-600}
# --foreground: stay in our process group, so Ctrl-C reaches the launcher,
# which then ends its ranks (as it does on the TERM sent at the time limit).
tmo_cmd="timeout --foreground -k 10 $tmo"
# BENCH_NICE=<n>: run the programs under nice -n <n> (negative: favoured over
# other users' processes; needs root; they then lose CPU while we measure).
if [ -n "${BENCH_NICE:-}" ]; then tmo_cmd="nice -n $BENCH_NICE $tmo_cmd"; fi
filter=${BENCH_FILTER:-}
bind=${BENCH_BIND:-none}
out="$B/bench-out"
raw="$B/bench-results.tsv"
txt="$B/bench-results.txt"
summary="$B/bench-summary.tsv"
rm -rf "$out"
mkdir -p "$out"
notes="$out/notes"
: >"$notes"
: >"$raw"
note() { echo "$*" >>"$notes"; }

# ---- configurations -------------------------------------------------------
built() { case " $BENCH_BUILT_IMPLS " in *" $1 "*) return 0 ;; esac; return 1; }
available() {
  case $1 in
    ch4lite|ch4lite-net|ch4lite-async)
      built ch4lite && [ -x "$BENCH_CH4LITE_MPIEXEC" ] ;;
    ch4lite-am)
      built ch4lite && [ -x "$BENCH_CH4LITE_MPIEXEC" ] && [ -e "$BENCH_CH4LITE_AM_LIBDIR/libmpi.so.1" ] ;;
    ch4lite-ucx|ch4lite-ucx-tcp)
      built ch4lite && [ -x "$BENCH_CH4LITE_MPIEXEC" ] && [ -e "$BENCH_CH4LITE_UCX_LIBDIR/libmpi.so.1" ] ;;
    ch4lite-ucx-am|ch4lite-ucx-am-tcp)
      built ch4lite && [ -x "$BENCH_CH4LITE_MPIEXEC" ] && [ -e "$BENCH_CH4LITE_UCX_AM_LIBDIR/libmpi.so.1" ] ;;
    ompi-ucx|ompi-ucx-tcp)
      built ompi && [ -n "$BENCH_OMPIRUN" ] && [ -x "$BENCH_OMPIRUN" ] && ompi_has_ucx ;;
    mpich|mpich-tcp|mpich-async)
      built mpich && [ -n "$BENCH_HYDRA" ] && [ -x "$BENCH_HYDRA" ] ;;
    ompi)
      built ompi && [ -n "$BENCH_OMPIRUN" ] && [ -x "$BENCH_OMPIRUN" ] ;;
    ompi-ofi)
      built ompi && [ -n "$BENCH_OMPIRUN" ] && [ -x "$BENCH_OMPIRUN" ] && ompi_has_ofi ;;
    *) return 1 ;;
  esac
}
why_not() {
  case $1 in
    ch4lite*)
      if ! built ch4lite; then echo "not configured"
      elif [ ! -x "$BENCH_CH4LITE_MPIEXEC" ]; then echo "no launcher bin/mpiexec in the build yet"
      else case $1 in
        ch4lite-ucx-am*) echo "ucx active-message libmpi (ucx-am/lib) not built (libucx-dev)" ;;
        ch4lite-ucx*) echo "ucx libmpi (ucx/lib) not built (libucx-dev)" ;;
        *) echo "forced-AM libmpi (am/lib) not built" ;;
      esac; fi ;;
    ompi-ucx*)
      if available ompi; then echo "Open MPI has no ucx PML here"
      else echo "Open MPI not installed (Debian: openmpi-bin libopenmpi-dev)"; fi ;;
    mpich*) echo "MPICH not installed (mpicc.mpich + mpiexec.hydra; Debian: mpich libmpich-dev)" ;;
    ompi-ofi)
      if available ompi; then echo "Open MPI has no ofi MTL here"
      else echo "Open MPI not installed (Debian: openmpi-bin libopenmpi-dev)"; fi ;;
    ompi) echo "Open MPI not installed (Debian: openmpi-bin libopenmpi-dev)" ;;
    *) echo "unknown configuration" ;;
  esac
}
ompi_has_ucx() {
  [ -n "${_ompi_ucx:-}" ] || {
    info=$(dirname "$BENCH_OMPIRUN")/ompi_info
    if [ -x "$info" ] && "$info" 2>/dev/null | grep -q 'MCA pml: ucx'; then _ompi_ucx=yes; else _ompi_ucx=no; fi
  }
  [ "$_ompi_ucx" = yes ]
}
ompi_has_ofi() {
  [ -n "${_ompi_ofi:-}" ] || {
    info=$(dirname "$BENCH_OMPIRUN")/ompi_info
    if [ -x "$info" ] && "$info" 2>/dev/null | grep -q 'MCA mtl: ofi'; then _ompi_ofi=yes; else _ompi_ofi=no; fi
  }
  [ "$_ompi_ofi" = yes ]
}

ucx_configs="ch4lite-ucx ch4lite-ucx-am ch4lite-ucx-tcp ch4lite-ucx-am-tcp mpich-tcp ompi-ucx ompi-ucx-tcp"
default_configs="ch4lite ch4lite-net mpich ompi ompi-ofi $ucx_configs"
wanted=$(echo "${BENCH_CONFIGS:-$default_configs}" | tr ',' ' ')
# Without BENCH_CONFIGS the UCX comparison runs only for these benchmarks.
ucx_filter=${BENCH_UCX_FILTER:-'p2p/(latency|bandwidth)$'}
configs=
for c in $wanted; do
  case $c in
    ch4lite|ch4lite-net|ch4lite-am|ch4lite-async|ch4lite-ucx|ch4lite-ucx-am|ch4lite-ucx-tcp|ch4lite-ucx-am-tcp|\
    mpich|mpich-tcp|mpich-async|ompi|ompi-ofi|ompi-ucx|ompi-ucx-tcp)
      if available "$c"; then configs="$configs $c"; else note "skipped $c: $(why_not "$c")"; fi ;;
  esac
done
# ucx_only CONFIG AREA/NAME: true when CONFIG runs only for the UCX comparison
# and the benchmark is not one of it.
ucx_only() {
  [ -n "${BENCH_CONFIGS:-}" ] && return 1
  case " $ucx_configs " in *" $1 "*) ;; *) return 1 ;; esac
  echo "$2" | grep -qE -- "$ucx_filter" && return 1
  return 0
}
# References (plain programs, scripts) are named after their benchmark; with
# BENCH_CONFIGS set they run only when listed.
ref_wanted() {
  [ -z "${BENCH_CONFIGS:-}" ] && return 0
  case " $wanted " in *" $1 "*) return 0 ;; esac
  return 1
}

# BENCH_* knobs the programs see (values with blanks are not passed).
genv=
xenv=
for kv in $(env | grep -E '^BENCH_[A-Z0-9_]+=[^[:space:]]*$' |
            grep -vE '^BENCH_(FILTER|CONFIGS|ROUNDS|TIMEOUT|STRICT|BIND|IMPL|QUICK|NICE|RETRIES|WAIT_IDLE|IDLE_PCT)='); do
  genv="$genv -genv ${kv%%=*} ${kv#*=}"
  xenv="$xenv -x $kv"
done
export BENCH_QUICK=$quick

case $bind in
  core) ch4_bind="-bind-to core"; hy_bind="-bind-to core"; om_bind="--bind-to core" ;;
  *) ch4_bind=""; hy_bind="-bind-to none"; om_bind="--bind-to none" ;;
esac

# launch CONFIG NP PROGRAM ARGS...: one MPI job, traffic on loopback only.
launch() {
  l_cfg=$1 l_np=$2   # (sh has no locals: keep clear of the caller's names)
  shift 2
  case $l_cfg in
    ch4lite)
      $tmo_cmd "$BENCH_CH4LITE_MPIEXEC" -n "$l_np" $ch4_bind -genv CH4LITE_SHM 1 \
        -genv FI_PROVIDER "$PROV" -genv FI_TCP_IFACE lo -genv FI_SOCKETS_IFACE lo \
        -genv BENCH_QUICK $quick -genv BENCH_IMPL "$l_cfg" $genv "$@" ;;
    ch4lite-async)
      # ch4lite on a node with its progress thread (docs/threads.md).
      $tmo_cmd "$BENCH_CH4LITE_MPIEXEC" -n "$l_np" $ch4_bind -genv CH4LITE_SHM 1 \
        -genv CH4LITE_ASYNC_PROGRESS 1 \
        -genv FI_PROVIDER "$PROV" -genv FI_TCP_IFACE lo -genv FI_SOCKETS_IFACE lo \
        -genv BENCH_QUICK $quick -genv BENCH_IMPL "$l_cfg" $genv "$@" ;;
    ch4lite-net)
      $tmo_cmd "$BENCH_CH4LITE_MPIEXEC" -n "$l_np" $ch4_bind -genv CH4LITE_SHM 0 \
        -genv FI_PROVIDER "$PROV" -genv FI_TCP_IFACE lo -genv FI_SOCKETS_IFACE lo \
        -genv BENCH_QUICK $quick -genv BENCH_IMPL "$l_cfg" $genv "$@" ;;
    ch4lite-am)
      $tmo_cmd "$BENCH_CH4LITE_MPIEXEC" -n "$l_np" $ch4_bind -genv CH4LITE_SHM 0 \
        -genv LD_LIBRARY_PATH "$BENCH_CH4LITE_AM_LIBDIR" \
        -genv FI_PROVIDER "$PROV" -genv FI_TCP_IFACE lo -genv FI_SOCKETS_IFACE lo \
        -genv BENCH_QUICK $quick -genv BENCH_IMPL "$l_cfg" $genv "$@" ;;
    ch4lite-ucx|ch4lite-ucx-am|ch4lite-ucx-tcp|ch4lite-ucx-am-tcp)
      # The ucx netmod (full or active messages only), ch4lite's shm off so
      # that UCX carries everything: UCX's shared memory (and cma) by
      # default, tcp on loopback with -tcp (the same UCX_TLS as mpich-tcp).
      case $l_cfg in
        ch4lite-ucx-am*) l_lib=$BENCH_CH4LITE_UCX_AM_LIBDIR ;;
        *) l_lib=$BENCH_CH4LITE_UCX_LIBDIR ;;
      esac
      case $l_cfg in
        *-tcp) l_tls="-genv UCX_TLS tcp,self" ;;
        *) l_tls="" ;;
      esac
      $tmo_cmd "$BENCH_CH4LITE_MPIEXEC" -n "$l_np" $ch4_bind -genv CH4LITE_SHM 0 \
        -genv LD_LIBRARY_PATH "$l_lib" $l_tls -genv UCX_NET_DEVICES lo \
        -genv BENCH_QUICK $quick -genv BENCH_IMPL "$l_cfg" $genv "$@" ;;
    mpich|mpich-async)
      # ch4:ucx: on-node data over UCX shared memory; any network lane on lo.
      $tmo_cmd "$BENCH_HYDRA" -iface lo -n "$l_np" $hy_bind -genv UCX_NET_DEVICES lo \
        $([ "$l_cfg" = mpich-async ] && echo -genv MPIR_CVAR_ASYNC_PROGRESS 1) \
        -genv BENCH_QUICK $quick -genv BENCH_IMPL "$l_cfg" $genv "$@" ;;
    mpich-tcp)
      $tmo_cmd "$BENCH_HYDRA" -iface lo -n "$l_np" $hy_bind -genv UCX_TLS tcp,self \
        -genv UCX_NET_DEVICES lo -genv BENCH_QUICK $quick -genv BENCH_IMPL "$l_cfg" $genv "$@" ;;
    ompi)
      $tmo_cmd "$BENCH_OMPIRUN" --allow-run-as-root --oversubscribe -np "$l_np" $om_bind \
        --mca pml ob1 --mca btl self,vader --mca btl_tcp_if_include lo \
        --mca oob_tcp_if_include lo -x BENCH_QUICK=$quick -x BENCH_IMPL="$l_cfg" $xenv "$@" ;;
    ompi-ucx|ompi-ucx-tcp)
      # The ucx PML (the same UCX as mpich and ch4lite-ucx). It selects
      # itself only for InfiniBand transports unless told any will do.
      case $l_cfg in *-tcp) l_tls="-x UCX_TLS=tcp,self" ;; *) l_tls="" ;; esac
      $tmo_cmd "$BENCH_OMPIRUN" --allow-run-as-root --oversubscribe -np "$l_np" $om_bind \
        --mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any --mca osc ucx \
        --mca btl self --mca oob_tcp_if_include lo \
        -x UCX_NET_DEVICES=lo $l_tls -x BENCH_QUICK=$quick -x BENCH_IMPL="$l_cfg" $xenv "$@" ;;
    ompi-ofi)
      # cm PML + ofi MTL on the same provider as ch4lite-net. The ofi MTL
      # excludes "tcp" by default; naming the layered provider includes it.
      $tmo_cmd "$BENCH_OMPIRUN" --allow-run-as-root --oversubscribe -np "$l_np" $om_bind \
        --mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include "$PROV" \
        --mca btl self,vader --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo \
        -x FI_PROVIDER="$PROV" -x FI_TCP_IFACE=lo -x BENCH_QUICK=$quick \
        -x BENCH_IMPL="$l_cfg" $xenv "$@" ;;
  esac
}

# cpu_busy: percent of all CPU time used (by anyone) over the next 0.3 s.
cpu_busy() {
  if [ ! -r /proc/stat ]; then echo 0; return; fi
  a=$(head -1 /proc/stat)
  sleep 0.3
  b=$(head -1 /proc/stat)
  printf '%s\n%s\n' "$a" "$b" | awk '
    { t = 0; for (i = 2; i <= NF; i++) t += $i; tot[NR] = t; idle[NR] = $5 + $6 }
    END { d = tot[2] - tot[1]; if (d <= 0) print 0; else printf "%d\n", 100 * (1 - (idle[2] - idle[1]) / d) }'
}
if [ $quick = 1 ]; then wait_idle=${BENCH_WAIT_IDLE:-0}; else wait_idle=${BENCH_WAIT_IDLE:-30}; fi
idle_pct=${BENCH_IDLE_PCT:-30}
disturbed=
# settle: optionally wait for a quiet machine; sets $busy.
settle() {
  busy=$(cpu_busy)
  waited=0
  while [ "$busy" -ge "$idle_pct" ] && [ "$waited" -lt "$wait_idle" ]; do
    sleep 1
    waited=$((waited + 1))
    busy=$(cpu_busy)
  done
}

# CPU accounting, to tell how much of the machine others took during a run:
# jiffies (all CPUs) from /proc/stat, and our reaped children's CPU seconds
# from the `times` builtin.
hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
# stat_now: "<all jiffies> <user+nice+system+steal jiffies>"; irq/softirq time
# (loopback TCP processing of our own traffic) is left out of "busy".
stat_now() {
  head -1 /proc/stat 2>/dev/null |
    awk '{ t = 0; for (i = 2; i <= 9; i++) t += $i; print t, $2 + $3 + $4 + $9 }'
}
# usage: times >"$out/times"; c=$(children_secs)   (times itself must not
# run in the $(...) subshell, whose children times start at zero)
children_secs() {
  awk 'NR == 2 { s = 0
    for (i = 1; i <= NF; i++) { split($i, p, "m"); sub(/s$/, "", p[2]); s += p[1] * 60 + p[2] }
    print s }' "$out/times"
}
if [ $quick = 1 ]; then retries=${BENCH_RETRIES:-0}; else retries=${BENCH_RETRIES:-2}; fi

# run TAG ROUND NAME COMMAND...: one program run, lines tagged into $raw. A
# run during which other processes took more than BENCH_IDLE_PCT of the CPUs
# is repeated (up to BENCH_RETRIES times; the last attempt counts).
run() {
  run_tag=$1 run_round=$2 run_name=$3
  shift 3
  o="$out/$run_name.$run_tag.$run_round"
  attempt=0
  while :; do
    attempt=$((attempt + 1))
    settle
    times >"$out/times"
    s0=$(stat_now) c0=$(children_secs)
    start=$(date +%s)
    "$@" >"$o.out" 2>"$o.err" </dev/null
    rc=$?
    secs=$(($(date +%s) - start))
    times >"$out/times"
    s1=$(stat_now) c1=$(children_secs)
    # others' share: (all busy CPU time - ours) / all CPU time, in percent
    others=$(echo "$s0 $s1 $c0 $c1" | awk -v hz="$hz" '{
      tot = ($3 - $1) / hz; busy = ($4 - $2) / hz; ours = $6 - $5
      if (tot <= 0) { print 0; exit }
      o = 100 * (busy - ours) / tot; if (o < 0) o = 0; printf "%d\n", o }')
    printf '  %-12s %-12s round %s: ' "$run_name" "$run_tag" "$run_round" >&2
    if [ "$rc" = 0 ] && [ "$others" -ge "$idle_pct" ] && [ $attempt -le "$retries" ]; then
      echo "${secs}s, others used ${others}% of the CPUs: again" >&2
      continue
    fi
    break
  done
  rtag=$run_round
  if [ "$others" -ge "$idle_pct" ]; then
    disturbed="$disturbed $run_name/$run_tag/$run_round(${others}%)"
    rtag="$run_round*"
  fi
  case $rc in
    0) echo "${secs}s, others used ${others}% of the CPUs" >&2 ;;
    77) echo "skipped" >&2
        note "skipped $run_name under $run_tag: $(head -1 "$o.err")" ;;
    124|137) echo "timed out after ${tmo}s" >&2
        note "$run_name under $run_tag (round $run_round): timed out after ${tmo}s; partial lines kept; see $o.err" ;;
    *) echo "failed (exit $rc)" >&2
       note "$run_name under $run_tag (round $run_round): exit $rc; partial lines kept; see $o.err: $(grep -v '^$' "$o.err" | head -1)" ;;
  esac
  awk -v tag="$run_tag" -v round="$rtag" -F '\t' \
    '$1 ~ /^(BENCH|RATIO|GOAL|TABLE|INFO|PROBE)$/ { print tag "\t" round "\t" $0 }' "$o.out" >>"$raw"
}

# ---- run ------------------------------------------------------------------
selected=$(awk -F '\t' 'NF >= 2 && $1 != "" { print ($7 != "" ? $7 "/" : "") $1 }' "$bin/manifest.tsv" |
           { if [ -n "$filter" ]; then grep -E -- "$filter"; else cat; fi } | sed 's|.*/||')
if [ -z "$selected" ]; then
  echo "bench: no benchmark matches BENCH_FILTER='$filter'"
  exit 0
fi
{
  echo "ch4lite benchmarks: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc 2>/dev/null || echo '?') cores," \
    "rounds=$rounds, quick=$quick, bind=$bind, load average $(cut -d" " -f1-3 /proc/loadavg 2>/dev/null)"
  echo "configurations:${configs:- none}"
} >"$out/header"
echo "bench: $(echo $selected | wc -w) benchmark(s), configurations:${configs:- none}; tables at the end" >&2
r=0
while [ $r -lt "$rounds" ]; do
  r=$((r + 1))
  echo "round $r/$rounds" >&2
  for name in $selected; do
    line=$(awk -F '\t' -v n="$name" '$1 == n { print; exit }' "$bin/manifest.tsv")
    kind=$(echo "$line" | cut -f2)
    np=$(echo "$line" | cut -f3)
    launch_list=$(echo "$line" | cut -f4 | tr ',' ' ')
    path=$(echo "$line" | cut -f5)
    args=$(echo "$line" | cut -f6)
    case $kind in
      script)
        ref_wanted "$name" && run "$name" $r "$name" $tmo_cmd sh "$path" $args ;;
      plain)
        if ! ref_wanted "$name"; then :
        elif [ -x "$path" ] && [ ! -e "$path.notbuilt" ]; then run "$name" $r "$name" $tmo_cmd "$path" $args
        elif [ $r = 1 ]; then note "skipped $name: not built"; fi ;;
      mpi)
        area_name=$(awk -F '\t' -v n="$name" '$1 == n { print ($7 != "" ? $7 "/" : "") $1; exit }' "$bin/manifest.tsv")
        for c in $configs; do
          if [ "$launch_list" != default ]; then
            case " $launch_list " in *" $c "*) ;; *) continue ;; esac
          fi
          ucx_only "$c" "$area_name" && continue
          impl=${c%%-*}
          prog="$bin/$impl/$name"
          if [ ! -x "$prog" ] || [ -e "$prog.notbuilt" ]; then
            [ $r = 1 ] && note "skipped $name under $c: not built for $impl$( [ -e "$prog.notbuilt" ] &&
              echo ": $(grep -m1 -E 'error|undefined' "$prog.notbuilt")")"
            continue
          fi
          for n in $(echo "$np" | tr ',' ' '); do
            label=$name
            case $np in *,*) label="$name-np$n" ;; esac
            run "$c" $r "$label" launch "$c" "$n" "$prog" $args
          done
        done ;;
    esac
  done
done

if [ -n "$disturbed" ]; then
  note "other processes took more than ${idle_pct}% of the CPUs during:$disturbed;" \
    "their values count only where no undisturbed run exists, marked ~" \
    "(BENCH_WAIT_IDLE, BENCH_RETRIES, BENCH_NICE)"
fi

# ---- merge and print --------------------------------------------------------
rm -f "$summary" "$out/goals-failed"
{
  cat "$out/header"
  awk -F '\t' '$3 == "INFO" && !seen[$1 FS $4]++ { printf "  %-12s %s\n", $1 ":", $4 }' "$raw"
  echo
  awk -F '\t' -v summary="$summary" -v failfile="$out/goals-failed" -f "$here/tools/merge.awk" "$raw"
  if [ -s "$notes" ]; then
    echo
    echo "notes:"
    sort -u "$notes" | sed 's/^/  /'
  fi
  echo
  echo "values: median over $rounds round(s) of each program's best repetition;" \
    "raw: $raw"
} >"$txt"
cat "$txt"
if [ "${BENCH_STRICT:-0}" = 1 ] && [ -s "$out/goals-failed" ]; then
  exit 1
fi
exit 0
