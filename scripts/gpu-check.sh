#!/usr/bin/env bash
# The device check: every GPU test (GPU against CPU on fresh random inputs), the GPU
# benchmarks and whole proofs on both backends, then one summary table.
#
#   scripts/gpu-check.sh                 build here (nvcc, CMake, ninja) and run everything
#   scripts/gpu-check.sh --build-only    build the device binaries and pack them into $CUZK_GPU_PACK
#   scripts/gpu-check.sh --prebuilt DIR  run the binaries packed in DIR (no compiler needed):
#                                        build here, carry DIR to the GPU machine, run there
#
# A GPU machine may have no -dev packages and no network: GoogleTest is then built from a
# source copy (<repo>/.gtest, `cp -r /usr/src/googletest .gtest`), GMP tests are left out,
# and `cuzk` (which needs CLI11) is built only where CLI11 is found.
#
# Environment: CUZK_GPU_BUILD (build dir, default <repo>/build-gpu), CUZK_GPU_PACK (default
# <repo>/.carry/gpu), CUZK_GPU_CMAKE_FLAGS (more CMake flags for a variant build, e.g.
# "-DCUZK_CUDA_DEFINES=MY_SWITCH=1;OTHER_SWITCH=4", split at spaces; the
# pack's COMMIT names them), CUZK_GPU_TARGETS (build and pack only these programs, e.g. a
# variant pack for scripts/gpu-ab.sh: "cuda_ntt_test cuda_ntt_bench"), CUZK_CUDA_ARCH (90), CUZK_GTEST_SOURCE_DIR, JOBS (nproc),
# CUZK_GPU_CHECK_OUT (receives summary.md and the logs; defaults to $OUT), CUZK_COMMIT (the
# commit to print; wins over git, whose view of a copied tree may be stale),
# CUZK_GPU_PROOF_LOGS (whole-proof sizes, default "16 18 20"), CUZK_GPU_QUICK (1: every benchmark
# at its smallest sizes; or a list of benchmark names), CUZK_GPU_FIXTURES (snarkjs fixture tree,
# default <repo>/.carry/fixtures), CUZK_GPU_DAEMON_LOG (the daemon run's size, default 20),
# CUZK_GPU_DAEMON_STREAM (log2 of the daemon stream benchmark's proofs; unset: not run),
# CUZK_GPU_DAEMON_PHASES (its phases, default "w2 w1 replay lost"; e.g. "w2 w1 t2 t1 t2 t1 replay
# lost" alternates the 2- and 1-worker streams),
# CUZK_GPU_CHAIN_LOGS (sizes of whole proofs of the built-in multiplication chain, both curves,
# e.g. "20 24"; unset: none), CUZK_GPU_DEVICE_KEY_LOGS (sizes of `cuzk bench --key-on-device`, BLS12-381 demo keys built
# straight into device memory, e.g. "24 27"; unset: not run), CUZK_GPU_DEADLINE (seconds the
# whole run may take, e.g. 570 under a 600 s limit on the device call: each later step's time
# limit is cut to what is left, a step with no time left is not started, and the result reads
# INCOMPLETE; unset: no deadline).
# The summary (and the logs' archive) is rewritten into CUZK_GPU_CHECK_OUT after every phase,
# so a run stopped from outside still leaves the phases it finished.
# Exit status: 0 when every device test and benchmark passed; 3 when none failed but the
# deadline left some out; 1 otherwise.
set -uo pipefail

MODE=run
PACKED=""
case "${1:-}" in
  --build-only) MODE=build ;;
  --prebuilt) MODE=prebuilt; PACKED=${2:?"--prebuilt needs a directory"} ;;
  "") ;;
  *) echo "usage: $0 [--build-only | --prebuilt DIR]" >&2; exit 2 ;;
esac

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${CUZK_GPU_BUILD:-$ROOT/build-gpu}
PACK=${CUZK_GPU_PACK:-$ROOT/.carry/gpu}
ARCH=${CUZK_CUDA_ARCH:-90}
GTEST_SRC=${CUZK_GTEST_SOURCE_DIR:-$ROOT/.gtest}
JOBS=${JOBS:-$(nproc)}
COPY_TO=${CUZK_GPU_CHECK_OUT:-${OUT:-}}
PROOF_LOGS=${CUZK_GPU_PROOF_LOGS:-16 18 20}
DEADLINE=${CUZK_GPU_DEADLINE:-}
if [[ -n $DEADLINE && ! $DEADLINE =~ ^[0-9]+$ ]]; then
  echo "CUZK_GPU_DEADLINE must be a whole number of seconds, not '$DEADLINE'" >&2; exit 2
fi
# snarkjs/circom keys for cuda_prover_test, when a fixture tree travels (tests/interop/fixtures).
if [[ -z ${CUZK_GPU_TEST_ZKEYS:-} && -d ${CUZK_GPU_FIXTURES:-$ROOT/.carry/fixtures} ]]; then
  CUZK_GPU_TEST_ZKEYS=$(find "${CUZK_GPU_FIXTURES:-$ROOT/.carry/fixtures}" -name circuit.zkey |
    while read -r z; do printf '%s:%s,' "$z" "$(dirname "$z")/witness.wtns"; done)
  export CUZK_GPU_TEST_ZKEYS
fi
# Device tests (gtest, label gpu) and benchmarks (programs printing a markdown table).
GPU_TESTS=(cuda_runtime_test cuda_allocator_test cuda_field_ops_test cuda_point_ops_test cuda_lazy_ops_test cuda_ntt_test
           cuda_msm_test cuda_quad_ops_test cuda_prover_test cuda_precompute_test cuda_device_key_test engine_cuda_fault_test)
GPU_BENCHES=(cuda_arith_bench cuda_ntt_bench cuda_msm_bench)

if [[ $MODE == prebuilt ]]; then
  if [[ -f $PACKED ]]; then  # a packed archive (the device tool carries few, small files)
    # .tgz or .txz (GNU tar picks the decompressor); python3's tarfile where xz is missing.
    mkdir -p "${TMPDIR:-/tmp}/cuzk-gpu-pack"
    tar -C "${TMPDIR:-/tmp}/cuzk-gpu-pack" -xf "$PACKED" 2>/dev/null ||
      python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$PACKED" \
        "${TMPDIR:-/tmp}/cuzk-gpu-pack" || exit 1
    PACKED=$(find "${TMPDIR:-/tmp}/cuzk-gpu-pack" -name COMMIT -printf '%h\n' | head -1)
  fi
  BIN=$(cd "$PACKED" && pwd)
  LOGS=${TMPDIR:-/tmp}/cuzk-gpu-check
else
  BIN=$PACK
  LOGS=$BUILD/gpu-check
fi
mkdir -p "$LOGS"
SUMMARY=$LOGS/summary.md
START=$SECONDS
declare -a PHASES=()
FAILED=0
INCOMPLETE=0
DONE=0

say() { printf '== %s\n' "$*"; }
phase() {
  PHASES+=("| $1 | $2 | $3 s |")
  write_summary
}

# The summary as it stands, in $SUMMARY and (with the logs) in $COPY_TO.
write_summary() {
  {
    echo "# cuzk gpu-check"
    echo
    if [[ -n ${CUZK_COMMIT:-} ]]; then
      echo "commit: $CUZK_COMMIT (CUZK_COMMIT as given)"
    elif [[ -f $BIN/COMMIT ]]; then
      echo "commit: $(cat "$BIN/COMMIT") (as packed)"
    elif git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
      echo "commit: $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD || echo ' (+ local changes)')"
    else
      echo "commit: unknown (no .git here; set CUZK_COMMIT)"
    fi
    echo "device: ${DEVICE_LINE:-unknown}"
    echo "mode: $MODE; total $((SECONDS - START)) s${DEADLINE:+ (deadline $DEADLINE s)}"
    echo
    echo "| phase | result | time |"
    echo "|---|---|---:|"
    printf '%s\n' "${PHASES[@]}"
    local part  # not t: the phases keep their start time in t across write_summary calls
    for part in tests.md bench-table.md proofs.md; do
      if [[ -s $LOGS/$part ]]; then echo; cat "$LOGS/$part"; fi
    done
    echo
    if ((FAILED)); then
      echo "RESULT: FAIL (logs in $LOGS)"
    elif ((INCOMPLETE)); then
      echo "RESULT: INCOMPLETE (no failure; the deadline left steps out)"
    elif ((DONE)); then
      echo "RESULT: PASS"
    else
      echo "RESULT: still running"
    fi
  } >"$SUMMARY"
  if [[ -n $COPY_TO ]]; then
    mkdir -p "$COPY_TO" && cp "$SUMMARY" "$COPY_TO"/ 2>/dev/null
    # Logs go back as one archive (the device tool returns few files).
    tar -C "$LOGS" -czf "$COPY_TO/gpu-check-logs.tgz" . 2>/dev/null || true
  fi
}

finish() {
  DONE=1
  write_summary
  echo
  cat "$SUMMARY"
  if ((FAILED)); then exit 1; elif ((INCOMPLETE)); then exit 3; else exit 0; fi
}

# step OWN CMD...: runs CMD under a time limit of OWN seconds, cut to what CUZK_GPU_DEADLINE
# leaves (less RESERVE for the summary; KILL 10 s after the TERM). Returns CMD's status (124:
# timed out). CUT says
# whether the deadline rather than the step failed it: 1 when it timed out under a cut
# limit, or when too little time was left to start it (it then returns 125).
RESERVE=15
CUT=0
step() {
  local own=$1 lim=$1 rc
  shift
  CUT=0
  if [[ -n $DEADLINE ]]; then
    local left=$((DEADLINE - SECONDS - RESERVE))
    if ((left < 10)); then
      CUT=1
      return 125
    fi
    ((left < own)) && lim=$left
  fi
  timeout -k 10 "$lim" "$@"
  rc=$?
  ((rc == 137)) && rc=124  # killed after ignoring the TERM
  ((rc == 124 && lim < own)) && CUT=1
  return $rc
}

# Whether CUZK_GPU_DEADLINE (if set) leaves at least $1 seconds beyond the summary's reserve.
enough_time() {
  [[ -z $DEADLINE ]] || ((DEADLINE - SECONDS - RESERVE >= $1))
}

# After a step with status $1: RES is "ok", "not run (deadline)" or "cut (deadline)" (and
# INCOMPLETE is set), or FAIL (and FAILED is set).
verdict() {
  if (($1 == 0)); then
    RES=ok
  elif ((CUT)); then
    INCOMPLETE=1
    if (($1 == 125)); then RES="not run (deadline)"; else RES="cut (deadline)"; fi
  else
    FAILED=1
    RES=FAIL
  fi
}

# A phase of several steps: FAIL if one failed, else incomplete if the deadline cut one, else ok.
phase_result() {
  if ((FAILED)); then echo FAIL; elif ((INCOMPLETE)); then echo "incomplete (deadline)"; else echo ok; fi
}

# --- build (here) ------------------------------------------------------------------
build_and_pack() {
  export PATH=/usr/local/cuda/bin:$PATH
  if ! command -v nvcc >/dev/null; then
    say "nvcc not found"; phase tools "FAIL: no nvcc" 0; FAILED=1; finish
  fi
  local gen=(-G "Unix Makefiles") gtest=() apps=OFF
  local extra=()
  read -r -a extra <<<"${CUZK_GPU_CMAKE_FLAGS:-}"
  command -v ninja >/dev/null && gen=(-G Ninja)
  if ! [[ -f /usr/include/gtest/gtest.h || -f /usr/local/include/gtest/gtest.h ]] && [[ -f $GTEST_SRC/CMakeLists.txt ]]; then
    gtest=(-DCUZK_GTEST_SOURCE_DIR="$GTEST_SRC")
  fi
  [[ -f /usr/include/CLI/CLI.hpp ]] && apps=ON
  say "configure ($BUILD)"
  local t=$SECONDS
  if cmake -S "$ROOT" -B "$BUILD" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DCUZK_CUDA=ON -DCUZK_CUDA_ARCH="$ARCH" \
      -DCUZK_BENCH=OFF -DCUZK_APPS=$apps -DCUZK_TESTS=ON "${gtest[@]}" "${extra[@]}" >"$LOGS/configure.log" 2>&1; then
    phase configure ok $((SECONDS - t))
  else
    tail -40 "$LOGS/configure.log"; phase configure FAIL $((SECONDS - t)); FAILED=1; finish
  fi
  # Only the targets this tree defines (a part still missing is reported, not fatal).
  local known targets=() wanted=("${GPU_TESTS[@]}" "${GPU_BENCHES[@]}" cuzk cuzk-daemon)
  [[ -z ${CUZK_GPU_TARGETS:-} ]] || read -r -a wanted <<<"$CUZK_GPU_TARGETS"
  known=$(cmake --build "$BUILD" --target help 2>/dev/null | sed -nE 's/^([A-Za-z0-9_.-]+): .*/\1/p')
  for x in "${wanted[@]}"; do
    if grep -qx "$x" <<<"$known"; then targets+=("$x"); else say "no target $x in this tree"; fi
  done
  # An object Ninja holds no header list for (its compile was cut short) is not rebuilt when a
  # header changes: a pack once carried msm_bn254_g1.cu.o three commits old. Such objects go.
  if [[ -f $BUILD/build.ninja ]] && command -v ninja >/dev/null; then
    local o
    for o in $(ninja -C "$BUILD" -t deps 2>/dev/null | sed -nE 's/^(.+\.o): #deps 0,.*/\1/p'); do
      say "rebuilding $o: Ninja recorded no dependencies for it"
      rm -f "$BUILD/$o"
    done
  fi
  say "build ${targets[*]}"
  t=$SECONDS
  if cmake --build "$BUILD" -j "$JOBS" --target "${targets[@]}" >"$LOGS/build.log" 2>&1; then
    phase "build (${#targets[@]} device targets)" ok $((SECONDS - t))
  else
    grep -E "error|Error" "$LOGS/build.log" | head -40
    phase build FAIL $((SECONDS - t)); FAILED=1; finish
  fi
  rm -rf "$PACK" && mkdir -p "$PACK"
  for x in "${targets[@]}"; do
    f=$(find "$BUILD" -type f -name "$x" -perm -u+x | head -1)
    [[ -n $f ]] && cp "$f" "$PACK/" && strip --strip-unneeded "$PACK/$x" 2>/dev/null
  done
  # Shared libraries beyond the C/C++ runtime (gRPC and friends for cuzk) travel along.
  mkdir -p "$PACK/lib"
  for x in "$PACK"/*; do
    [[ -f $x && -x $x ]] || continue
    ldd "$x" 2>/dev/null | awk '$3 ~ /^\// {print $3}' |
      grep -vE '/(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt|ld-linux[^/]*)\.so' |
      while read -r lib; do cp -nL "$lib" "$PACK/lib/"; done
  done
  git -C "$ROOT" rev-parse --short HEAD >"$PACK/COMMIT" 2>/dev/null || true
  git -C "$ROOT" diff --quiet HEAD 2>/dev/null || echo "$(cat "$PACK/COMMIT") + local changes" >"$PACK/COMMIT"
  [[ -z ${CUZK_GPU_CMAKE_FLAGS:-} ]] || echo "$(cat "$PACK/COMMIT") with $CUZK_GPU_CMAKE_FLAGS" >"$PACK/COMMIT"
  # xz -9: its 64 MiB dictionary spans several binaries, which carry the same kernels (the
  # device tool takes 64 MiB for everything carried: gzip 65 MB at 6bf1292, xz -6 65 MB, xz -9 24 MB).
  rm -f "$PACK.tgz"
  tar -C "$(dirname "$PACK")" -cf - "$(basename "$PACK")" | xz -9 -T2 >"$PACK.txz"
  say "packed into $PACK ($(du -sh "$PACK" | cut -f1)) and $PACK.txz ($(du -sh "$PACK.txz" | cut -f1)): carry the .txz"
}

if [[ $MODE != prebuilt ]]; then
  build_and_pack
  if [[ $MODE == build ]]; then finish; fi
fi

# --- run -------------------------------------------------------------------------------
export LD_LIBRARY_PATH=$BIN/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if command -v nvidia-smi >/dev/null; then
  DEVICE_LINE=$(nvidia-smi --query-gpu=name,uuid,pci.bus_id,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)
fi
DEVICE_LINE="${DEVICE_LINE:-no nvidia-smi}; host $(nproc) cores"
say "device: $DEVICE_LINE"

# "| test | result | time |" rows from a gtest log.
{
  echo "| test | cases | result | time |"
  echo "|---|---:|---|---:|"
} >"$LOGS/tests.md"
say "device tests"
t_all=$SECONDS
before=$FAILED
FAILED=0
for x in "${GPU_TESTS[@]}"; do
  if [[ ! -x $BIN/$x ]]; then echo "| $x | - | not built | - |" >>"$LOGS/tests.md"; continue; fi
  t=$SECONDS
  step 400 env CUZK_REQUIRE_GPU=1 "$BIN/$x" >"$LOGS/$x.log" 2>&1
  verdict $?
  res=$RES
  cases=$(sed -nE 's/^\[  PASSED  \] ([0-9]+) tests?.*/\1/p' "$LOGS/$x.log" | tail -1)
  skipped=$(sed -nE 's/^\[  SKIPPED \] ([0-9]+) tests?.*/\1/p' "$LOGS/$x.log" | tail -1)
  [[ -n $skipped ]] && res="$res ($skipped skipped)"
  echo "| $x | ${cases:-0} | $res | $((SECONDS - t)) s |" >>"$LOGS/tests.md"
  write_summary
  if [[ $res == FAIL* ]]; then grep -E "Failure|FAILED|error|Expected|Which is" "$LOGS/$x.log" | head -30; fi
done
grep -hE "CUZK_TEST_SEED=" "$LOGS"/cuda_*_test.log 2>/dev/null | head -1 | sed 's/^/   /'
phase "device tests" "$(phase_result)" $((SECONDS - t_all))
FAILED=$((FAILED | before))

say "benchmarks"
: >"$LOGS/bench-table.md"
for x in "${GPU_BENCHES[@]}"; do
  [[ -x $BIN/$x ]] || continue
  t=$SECONDS
  args=()
  [[ $x == cuda_arith_bench ]] && args=(--runs 7)
  if [[ " ${CUZK_GPU_QUICK:-} " == *" $x "* || ${CUZK_GPU_QUICK:-} == 1 ]]; then
    case $x in
      cuda_ntt_bench) args=(--logs 20,24) ;;  # 2^27 and its sampled checks take two minutes
      cuda_msm_bench) args=(--max-log 20 --runs 3) ;;
    esac
  fi
  step 400 "$BIN/$x" "${args[@]}" >"$LOGS/$x.log" 2>&1
  verdict $?
  res=$RES
  phase "$x" "$res" $((SECONDS - t))
  { echo "### $x"; grep -E '^(command|device):' "$LOGS/$x.log"; echo; grep -E '^\|' "$LOGS/$x.log"; echo; } >>"$LOGS/bench-table.md"
done

# Whole proofs of the demo circuit, key resident, on both backends (the CPU on this host's cores).
if [[ -x $BIN/cuzk ]]; then
  say "whole proofs"
  t=$SECONDS
  before=$FAILED
  FAILED=0
  {
    echo "| curve | constraints | backend | upload+readback | wit->abc | H | MSMs | total (median of 5) |"
    echo "|---|---:|---|---:|---:|---:|---:|---:|"
  } >"$LOGS/proofs.md"
  export CUZK_CACHE=${CUZK_CACHE:-${TMPDIR:-/tmp}/cuzk-gpu-cache}
  for curve in bn254 bls12_381; do
    for lg in $PROOF_LOGS; do
      n=$(((1 << lg) - 5))
      for backend in cuda cpu; do
        log=$LOGS/proof-$curve-$lg-$backend.log
        runs=5
        [[ $backend == cpu && $lg -gt 20 ]] && runs=1
        step 300 "$BIN/cuzk" bench -n "$n" --curve "$curve" --backend "$backend" -r $runs >"$log" 2>&1
        verdict $?
        if [[ $RES != ok ]]; then
          echo "| $curve | 2^$lg | $backend | $RES | | | | see $(basename "$log") |" >>"$LOGS/proofs.md"; continue
        fi
        # median row: label upload wit->abc ntt/h A B1 B2 L H finalize total (ms)
        awk -v c="$curve" -v l="$lg" -v b="$backend" '$1 == "median" {
              gsub("ms", ""); msm = $5 + $6 + $7 + $8 + $9;
              printf "| %s | 2^%s | %s | %.1f ms | %.1f ms | %.1f ms | %.1f ms | %.1f ms |\n", c, l, b, $2, $3, $4, msm, $11 }' \
          "$log" >>"$LOGS/proofs.md"
        grep -q "all .* proofs verified" "$log" || { FAILED=1; echo "   $curve 2^$lg $backend: proofs not verified"; }
        write_summary
      done
    done
  done
  # The multiplication chain (every witness value full-size: the MSMs over uniform scalars).
  for curve in bn254 bls12_381; do
    for lg in ${CUZK_GPU_CHAIN_LOGS:-}; do
      n=$(((1 << lg) - 5))
      for backend in cuda cpu; do
        [[ $backend == cpu && $lg -gt 20 ]] && continue
        log=$LOGS/chain-$curve-$lg-$backend.log
        runs=3
        [[ $backend == cpu ]] && runs=1
        step 300 "$BIN/cuzk" bench --builtin chain -n "$n" --curve "$curve" --backend "$backend" -r $runs >"$log" 2>&1
        verdict $?
        if [[ $RES != ok ]]; then
          echo "| $curve chain | 2^$lg | $backend | $RES | | | | see $(basename "$log") |" >>"$LOGS/proofs.md"; continue
        fi
        awk -v c="$curve chain" -v l="$lg" -v b="$backend" -v r="$runs" '$1 == "median" {
              gsub("ms", ""); msm = $5 + $6 + $7 + $8 + $9;
              printf "| %s | 2^%s | %s | %.1f ms | %.1f ms | %.1f ms | %.1f ms | %.1f ms (median of %s) |\n", c, l, b, $2, $3, $4, msm, $11, r }' \
          "$log" >>"$LOGS/proofs.md"
        grep -q "all .* proofs verified" "$log" || { FAILED=1; echo "   chain $curve 2^$lg $backend: proofs not verified"; }
      done
    done
  done
  phase "whole proofs" "$(phase_result)" $((SECONDS - t))
  FAILED=$((FAILED | before))
fi

# Demo keys built straight into device memory (no zkey: at 2^27 the key fits neither this
# machine's disk nor, with the R1CS, its RAM), three verified proofs each.
if [[ -n ${CUZK_GPU_DEVICE_KEY_LOGS:-} && -x $BIN/cuzk ]]; then
  say "keys built on the device"
  t=$SECONDS
  before=$FAILED
  FAILED=0
  for lg in $CUZK_GPU_DEVICE_KEY_LOGS; do
    log=$LOGS/device-key-$lg.log
    step 540 "$BIN/cuzk" bench --key-on-device -n $(((1 << lg) - 5)) --curve bls12_381 --backend cuda -r 3 >"$log" 2>&1
    verdict $?
    if [[ $RES == ok ]]; then
      grep -q "all .* proofs verified" "$log" || FAILED=1
    else
      echo "   key on the device 2^$lg: $RES"; tail -5 "$log"
    fi
    { echo "### key built on the device, 2^$lg bls12_381"; echo '```'; grep -vE "^\s*$" "$log" | tail -14; echo '```'; } \
      >>"$LOGS/proofs.md"
  done
  phase "keys built on the device (2^${CUZK_GPU_DEVICE_KEY_LOGS// /, 2^} bls12_381, 3 proofs each)" "$(phase_result)" \
    $((SECONDS - t))
  FAILED=$((FAILED | before))
fi

# The daemon on the GPU: a stream of demo proofs from 4 concurrent clients, every proof
# verified by the daemon before it answers; VRAM before and after from its status.
if [[ -x $BIN/cuzk-daemon && -x $BIN/cuzk ]] && ! enough_time 90; then
  INCOMPLETE=1
  phase "daemon" "not run (deadline)" 0
elif [[ -x $BIN/cuzk-daemon && -x $BIN/cuzk ]]; then
  say "daemon"
  t=$SECONDS
  run=$(mktemp -d)
  lg=${CUZK_GPU_DAEMON_LOG:-20}
  "$BIN/cuzk-daemon" --socket "$run/cuzk.sock" --metrics-address "" >"$LOGS/daemon.log" 2>&1 &
  dpid=$!
  for _ in $(seq 600); do
    "$BIN/cuzk" client --daemon "$run/cuzk.sock" status 2>/dev/null | grep -q ": ready" && break
    kill -0 $dpid 2>/dev/null || break
    sleep 0.1
  done
  step 240 "$BIN/cuzk" bench --daemon "$run/cuzk.sock" --circuit demo -n $(((1 << lg) - 5)) --curve bls12_381 \
    --count 16 --concurrency 4 >"$LOGS/daemon-bench.log" 2>&1
  verdict $?
  res=$RES
  "$BIN/cuzk" client --daemon "$run/cuzk.sock" status >"$LOGS/daemon-status.log" 2>&1 || res=FAIL
  # The demo key's points are resident on the GPU, and the status says so (its tier there).
  grep -q "^key demo: .*on cuda:0 device" "$LOGS/daemon-status.log" || res=FAIL
  kill -TERM $dpid 2>/dev/null
  wait $dpid || res=FAIL
  rm -rf "$run"
  [[ $res == ok || $res == "cut (deadline)" ]] || FAILED=1
  phase "daemon (2^$lg bls12_381, 16 proofs, 4 clients)" "$res" $((SECONDS - t))
  { echo "### daemon"; echo '```'; tail -12 "$LOGS/daemon-bench.log"; cat "$LOGS/daemon-status.log"; echo '```'; } >>"$LOGS/proofs.md"
fi

# The daemon's throughput and priority figures (scripts/gpu-daemon-bench.sh): a stream of
# 2^CUZK_GPU_DAEMON_STREAM proofs with 2 and 1 workers, GPU busy share, a CRITICAL probe.
# Opt-in (it builds a large key once): CUZK_GPU_DAEMON_STREAM=24.
if [[ -n ${CUZK_GPU_DAEMON_STREAM:-} && -x $BIN/cuzk-daemon && -x $BIN/cuzk ]]; then
  say "daemon stream"
  t=$SECONDS
  # env: PHASES is also this script's own array of phase rows.
  step 480 env PHASES="${CUZK_GPU_DAEMON_PHASES:-w2 w1 replay lost}" STREAM_LOG="$CUZK_GPU_DAEMON_STREAM" \
    "$ROOT/scripts/gpu-daemon-bench.sh" "$BIN" "$LOGS/daemon-stream" >"$LOGS/daemon-stream.log" 2>&1
  verdict $?
  res=$RES
  [[ $res == ok ]] || tail -5 "$LOGS/daemon-stream.log"
  phase "daemon stream (2^$CUZK_GPU_DAEMON_STREAM, 2 vs 1 workers, CRITICAL probe)" "$res" $((SECONDS - t))
  cat "$LOGS/daemon-stream.log" >>"$LOGS/proofs.md"
fi

finish
