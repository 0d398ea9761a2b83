#!/usr/bin/env bash
# One device call that times switched-off device-code variants against the default build:
# each variant's device tests, then a same-call A/B (scripts/gpu-ab.sh) of its benchmark
# against the base pack, and the sppark peer beside them. Build the packs here first
# (scripts/gpu-check.sh --build-only with CUZK_GPU_TARGETS and CUZK_GPU_CMAKE_FLAGS; BENCHMARKS.md
# names each variant's line), carry them with this tree, run this on the device.
#
#   scripts/gpu-variants.sh BASE_PACK STEP...
#
#   BASE_PACK    the default build's pack (must hold cuda_ntt_bench and/or cuda_msm_bench)
#   ntt:PACK     cuda_ntt_test of PACK, then cuda_ntt_bench of BASE_PACK and PACK alternated
#   msm:PACK     cuda_msm_test of PACK, then cuda_msm_bench alternated
#   peer:DIR     DIR's sppark_msm_bench_<group> binaries (bench/peers), uniform and witness-like
#
# Environment: CUZK_VARIANTS_DEADLINE (seconds after which no further step starts, default 470),
# CUZK_NTT_AB_ARGS / CUZK_MSM_AB_ARGS (the benchmarks' arguments; defaults below). Writes
# summary.md and the logs into $OUT (default ./gpu-variants) and prints the summary.
set -uo pipefail
cd "$(dirname "$0")/.."
(($# >= 2)) || { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
base=$1
shift
out=${OUT:-gpu-variants}
mkdir -p "$out"
summary=$out/summary.md
: >"$summary"
deadline=${CUZK_VARIANTS_DEADLINE:-470}
read -r -a ntt_args <<<"${CUZK_NTT_AB_ARGS:---profile --logs 24,26,27 --runs 5 --bitrev scratch}"
read -r -a msm_args <<<"${CUZK_MSM_AB_ARGS:---groups bls12_381_g1,bn254_g1 --max-log 24 --runs 5 --cache-freed --pre 20,22}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
start=$SECONDS
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader >>"$summary" 2>&1

# unpack PACK: prints the folder holding its programs (a .txz/.tgz, unpacked once, or a folder).
unpack() {
  local dir=$1
  if [[ -f $1 ]]; then
    dir=$work/$(basename "$1")
    [[ -d $dir ]] || { mkdir -p "$dir" && tar -C "$dir" -xf "$1"; } || { echo "gpu-variants: cannot unpack $1" >&2; return 1; }
  fi
  find "$dir" -name COMMIT -printf '%h\n' | head -1
}
# device_test PACK PROGRAM: the variant's gtest program with a GPU required.
device_test() {
  local dir t=$SECONDS log=$out/test-$(basename "$1")-$2.log
  dir=$(unpack "$1") && [[ -x $dir/$2 ]] || { echo "- $2 of $1: missing" >>"$summary"; status=1; return; }
  CUZK_REQUIRE_GPU=1 LD_LIBRARY_PATH=$dir/lib timeout 200 "$dir/$2" >"$log" 2>&1
  local rc=$?
  ((rc == 0)) || status=1
  echo "- $2 of $1 ($(cat "$dir/COMMIT")): exit $rc, $((SECONDS - t)) s; $(grep -E '^\[  (PASSED|FAILED)  \] [0-9]+ test' "$log" | tr '\n' ' ')" >>"$summary"
}
# ab PACK PROGRAM ARGS...: base and variant alternated, two rounds each.
ab() {
  local pack=$1 t=$SECONDS dir=$out/ab-$(basename "$1")
  shift
  CUZK_AB_OUT=$dir timeout 300 scripts/gpu-ab.sh "$(unpack "$base")" "$(unpack "$pack")" -- "$@" >/dev/null 2>&1
  local rc=$?
  ((rc == 0)) || status=1
  { echo "- A/B exit $rc, $((SECONDS - t)) s"; echo; cat "$dir/summary.md" 2>/dev/null; echo; } >>"$summary"
}
for step in "$@"; do
  if ((SECONDS - start > deadline)); then echo "## $step: not started (deadline)" >>"$summary"; continue; fi
  echo "## $step (at $((SECONDS - start)) s)" >>"$summary"
  case $step in
    ntt:*) device_test "${step#ntt:}" cuda_ntt_test; ab "${step#ntt:}" cuda_ntt_bench "${ntt_args[@]}" ;;
    msm:*) device_test "${step#msm:}" cuda_msm_test; ab "${step#msm:}" cuda_msm_bench "${msm_args[@]}" ;;
    peer:*)
      for bin in "${step#peer:}"/sppark_msm_bench_*; do
        args=(--logs 20,22,24 --mix uniform,witness)
        [[ $bin == *bn254* ]] && args=(--logs 24)
        t=$SECONDS log=$out/peer-$(basename "$bin").log
        timeout 200 "$bin" "${args[@]}" --runs 5 >"$log" 2>&1
        rc=$?
        ((rc == 0)) || status=1
        { echo "- $(basename "$bin") ${args[*]}: exit $rc, $((SECONDS - t)) s"; grep -E '^\|' "$log"; } >>"$summary"
      done ;;
    *) echo "gpu-variants: unknown step $step" >&2; status=2 ;;
  esac
done
echo "total $((SECONDS - start)) s" >>"$summary"
cat "$summary"
exit $status
