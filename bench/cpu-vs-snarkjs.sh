#!/usr/bin/env bash
# The CPU prover against snarkjs on the same keys and witnesses, in one run.
# For each curve and size: `cuzk setup --dev --demo` writes a zkey, vk and witness (the
# built-in demo circuit: mostly boolean SHA-256-like rows plus an arithmetic chain), then
# each prover runs REPS times as a whole command line; medians of wall time and peak RSS.
# Every proof is checked by `cuzk verify`, and one of ours by `snarkjs groth16 verify`.
# Usage: bench/cpu-vs-snarkjs.sh <build-dir> [log2 sizes...]   (default sizes: 14 16 18)
# Env: REPS (3), CURVES ("bn254 bls12_381"), WORK (scratch dir, default <build>/bench-cpu).
set -euo pipefail
BUILD=${1:?usage: $0 <build-dir> [log2 sizes...]}
shift
SIZES=${*:-14 16 18}
REPS=${REPS:-3}
CURVES=${CURVES:-bn254 bls12_381}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CUZK=$(realpath "$BUILD/apps/cuzk")
SNARKJS="node $ROOT/tests/interop/node_modules/snarkjs/build/cli.cjs"
WORK=${WORK:-$BUILD/bench-cpu}
mkdir -p "$WORK"

# run_timed LABEL CMD... -> appends "wall_s rss_kib" for one run to $WORK/LABEL.times
run_timed() {
  local label=$1; shift
  /usr/bin/time -f '%e %M' -o "$WORK/.time" "$@" >/dev/null 2>"$WORK/.err" || {
    echo "FAILED: $*" >&2; cat "$WORK/.err" >&2; exit 1; }
  cat "$WORK/.time" >>"$WORK/$label.times"
}
median_col() {  # median_col FILE COLUMN
  awk -v c="$2" '{print $c}' "$1" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

echo "machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB"
echo "commit: $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- src apps || echo ' (+ local changes)')"
echo "command: bench/cpu-vs-snarkjs.sh $BUILD $SIZES (REPS=$REPS)"
echo
echo "| curve | constraints | cuzk prove (s) | snarkjs prove (s) | speed-up | cuzk peak RSS | snarkjs peak RSS |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for curve in $CURVES; do
  for k in $SIZES; do
    n=$(( (1 << k) - 5 ))
    d="$WORK/$curve-$k"
    mkdir -p "$d"
    if [[ ! -f $d/circuit.zkey ]]; then
      "$CUZK" setup --dev --demo "$n" --curve "$curve" --zkey "$d/circuit.zkey" --vk "$d/vk.json" \
        --wtns "$d/witness.wtns" >"$d/setup.log" 2>&1
    fi
    rm -f "$WORK"/cuzk.times "$WORK"/snarkjs.times
    for ((i = 0; i < REPS; ++i)); do
      run_timed cuzk "$CUZK" prove "$d/circuit.zkey" "$d/witness.wtns" "$d/proof.json" "$d/public.json"
      "$CUZK" verify "$d/vk.json" "$d/public.json" "$d/proof.json" >/dev/null
      run_timed snarkjs $SNARKJS groth16 prove "$d/circuit.zkey" "$d/witness.wtns" "$d/sproof.json" "$d/spublic.json"
      "$CUZK" verify "$d/vk.json" "$d/spublic.json" "$d/sproof.json" >/dev/null
    done
    $SNARKJS groth16 verify "$d/vk.json" "$d/public.json" "$d/proof.json" | grep -q "OK" ||
      { echo "snarkjs rejected our proof ($curve 2^$k)" >&2; exit 1; }
    c=$(median_col "$WORK/cuzk.times" 1); s=$(median_col "$WORK/snarkjs.times" 1)
    cm=$(median_col "$WORK/cuzk.times" 2); sm=$(median_col "$WORK/snarkjs.times" 2)
    printf '| %s | 2^%s - 5 | %.2f | %.2f | %.1fx | %d MiB | %d MiB |\n' "$curve" "$k" "$c" "$s" \
      "$(awk -v s="$s" -v c="$c" 'BEGIN{print s / c}')" $((cm / 1024)) $((sm / 1024))
  done
done
echo
echo "Whole command-line runs (key load, witness read, proof, JSON write), median of $REPS;"
echo "cuzk uses all $(nproc) cores; both provers read the same zkey and wtns written by cuzk's dev setup."
