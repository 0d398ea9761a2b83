#!/usr/bin/env bash
# A same-call A/B of two packed builds (scripts/gpu-check.sh --build-only): one program of each
# pack run alternately, A B A B ..., so that both see the same device, clocks and neighbours.
# Prints each run's markdown table rows under a label and keeps the logs.
#
#   scripts/gpu-ab.sh [--rounds N] PACK_A PACK_B -- PROGRAM [ARGS...]
#
#   PACK_A, PACK_B  packed builds (.txz/.tgz, or unpacked folders holding a COMMIT file)
#   --rounds N      how many times each pack runs (default 2)
#   PROGRAM         a program of the packs (e.g. cuda_ntt_bench), run with ARGS
#
# Logs go to $CUZK_AB_OUT (default $OUT, else ./gpu-ab) as ab-<A|B>-<round>.log, with
# summary.md: per run the label, the pack's COMMIT line, wall seconds and its table rows.
# Exit status: 0 when every run passed, 1 when one failed (the rest still run), 2 on bad use.
set -uo pipefail

rounds=2
while [[ ${1:-} == --* && ${1:-} != -- ]]; do
  case $1 in
    --rounds) rounds=${2:?--rounds needs a number}; shift 2 ;;
    *) echo "gpu-ab: unknown option $1" >&2; exit 2 ;;
  esac
done
usage() {
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
(($# >= 4)) || usage
pack_a=$1 pack_b=$2
[[ $3 == -- ]] || usage
shift 3
program=$1
shift
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "gpu-ab: --rounds must be a positive number, not '$rounds'" >&2; exit 2; }
[[ $program != */* ]] || { echo "gpu-ab: PROGRAM is a name in the packs, not a path: $program" >&2; exit 2; }

out=${CUZK_AB_OUT:-${OUT:-gpu-ab}}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# unpack LABEL PACK: prints the folder holding the pack's programs.
unpack() {
  local label=$1 pack=$2 dir
  if [[ -d $pack ]]; then
    dir=$pack
  elif [[ -f $pack ]]; then
    mkdir -p "$work/$label"
    tar -C "$work/$label" -xf "$pack" 2>/dev/null ||
      python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$pack" "$work/$label" ||
      { echo "gpu-ab: cannot unpack $pack" >&2; exit 2; }
    dir=$(find "$work/$label" -name COMMIT -printf '%h\n' | head -1)
  fi
  [[ -n ${dir:-} && -x $dir/$program ]] || { echo "gpu-ab: no program $program in $pack" >&2; exit 2; }
  (cd "$dir" && pwd)
}
dir_a=$(unpack A "$pack_a") || exit 2
dir_b=$(unpack B "$pack_b") || exit 2

status=0
{
  echo "# gpu-ab: $program $*"
  echo
  echo "A: $pack_a ($(cat "$dir_a/COMMIT" 2>/dev/null || echo 'no COMMIT'))"
  echo "B: $pack_b ($(cat "$dir_b/COMMIT" 2>/dev/null || echo 'no COMMIT'))"
} >"$out/summary.md"
for ((r = 1; r <= rounds; r++)); do
  for label in A B; do
    dir=$dir_a
    [[ $label == B ]] && dir=$dir_b
    log=$out/ab-$label-$r.log
    start=$SECONDS
    if LD_LIBRARY_PATH=$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$dir/$program" "$@" >"$log" 2>&1; then
      res=ok
    else
      res="FAIL (exit $?)"
      status=1
    fi
    {
      echo
      echo "## $label, round $r: $res, $((SECONDS - start)) s"
      grep -E '^\|' "$log"
    } >>"$out/summary.md"
  done
done
cat "$out/summary.md"
exit $status
