#!/usr/bin/env bash
# The CPU prover against snarkjs on the same keys and witnesses, in one run.
# For each curve x circuit x size, one zkey, vk and witness are made and cached, then
# `cuzk prove` and `snarkjs groth16 prove` each run REPS times on them as whole command
# lines, alternating; medians of wall time and peak RSS. Every proof is checked by
# `cuzk verify`, and one of ours per row by `snarkjs groth16 verify`.
#
# Circuits (CIRCUITS):
#   chain     bench/circuits/chain.circom, t[i+1] = t[i] * x + y, N steps filling 2^k rows exactly
#   poseidon  bench/circuits/poseidon.circom, a chain of circomlib Poseidon(2) hashes, as many
#             as fit in 2^k rows
#   demo      cuzk's built-in dev circuit (`cuzk setup --dev --demo`, 2^k - 5 constraints)
# chain and poseidon are compiled with circom2 (--O2, --prime bn128|bls12381), their witness
# computed by `snarkjs wtns calculate`, their keys made by `cuzk setup --dev <r1cs>`.
#
# Usage: bench/cpu-vs-snarkjs.sh <build-dir> [log2 sizes...]   (default sizes: 14 16 18)
# Env: REPS (3), CURVES ("bn254 bls12_381"), CIRCUITS ("chain poseidon demo"),
#      WORK (scratch and cache dir, default <build>/bench-cpu; cells live in
#      WORK/<curve>-<circuit>-<k>/ and are reused by later runs).
# Progress goes to stderr, the markdown table to stdout.
set -euo pipefail
BUILD=${1:?usage: $0 <build-dir> [log2 sizes...]}
shift
SIZES=${*:-14 16 18}
REPS=${REPS:-3}
CURVES=${CURVES:-bn254 bls12_381}
CIRCUITS=${CIRCUITS:-chain poseidon demo}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CUZK=$(realpath "$BUILD/apps/cuzk")
MODULES=$ROOT/tests/interop/node_modules
SNARKJS=(node "$MODULES/snarkjs/build/cli.cjs")
CIRCOM=(node "$MODULES/circom2/cli.js")
WORK=${WORK:-$BUILD/bench-cpu}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

log() { printf '%s\n' "$*" >&2; }
now() { date +%s.%N; }
since() { awk -v t0="$1" -v t1="$(now)" 'BEGIN{printf "%.1f", t1 - t0}'; }  # seconds since $(now)
die() { log "FAILED: $*"; exit 1; }

# ---------------------------------------------------------------------------------------
# Circuit preparation (everything cached; outputs written under temporary names, renamed)

# circom's name for a curve
prime_of() {
  case $1 in
    bn254) echo bn128 ;;
    bls12_381) echo bls12381 ;;
    *) die "unknown curve $1 (bn254 or bls12_381)" ;;
  esac
}

# The size parameter each circom template takes (substituted for @N@ / @M@ in its source).
param_name() {
  case $1 in
    chain) echo N ;;
    poseidon) echo M ;;
    *) die "unknown circuit $1 (chain, poseidon or demo)" ;;
  esac
}

# The input JSON for a circuit (public x, one private start value).
input_json() {
  case $1 in
    chain) echo '{"x": "3", "y": "11"}' ;;
    poseidon) echo '{"x": "3", "h0": "5"}' ;;
  esac
}

# compile NAME CURVE PARAM DIR: circom2 output DIR/circuit.r1cs and DIR/circuit_js/ (skipped
# when both exist). circom2 runs under WASI and only sees its working directory's tree, so
# the circuit is built in a scratch dir with circomlib's circuits copied next to it.
compile() {
  local name=$1 curve=$2 param=$3 dir=$4
  [[ -s $dir/circuit.r1cs && -s $dir/circuit_js/circuit.wasm ]] && return 0
  local build=$dir/build.tmp.$$ t0
  t0=$(now)
  rm -rf "$dir"/build.tmp.* && mkdir -p "$build"
  sed "s/@$(param_name "$name")@/$param/" "$ROOT/bench/circuits/$name.circom" >"$build/circuit.circom"
  cp -r "$MODULES/circomlib/circuits" "$build/circomlib"
  if ! (cd "$build" && "${CIRCOM[@]}" circuit.circom --r1cs --wasm --O2 --prime "$(prime_of "$curve")" \
    -l circomlib -o . >compile.log 2>&1); then
    cat "$build/compile.log" >&2
    return 1
  fi
  rm -rf "$dir/circuit_js"
  mv "$build/circuit_js" "$dir/circuit_js"
  mv "$build/compile.log" "$dir/compile.log"
  mv "$build/circuit.r1cs" "$dir/circuit.r1cs"
  rm -rf "$build"
  TOOK=$(since "$t0")
}

# size_param NAME CURVE K: the template parameter that fills 2^k rows without exceeding them.
# snarkjs's domain holds nConstraints + nPublic + 1 rows. Constraints are affine in the
# parameter, so two tiny probe compiles (parameter 1 and 2, cached in WORK/probe) give
# per = constraints per step and base = the rest; nothing about the circuits is hard-coded.
size_param() {
  local name=$1 curve=$2 k=$3 p c1 c2 pub
  for p in 1 2; do
    local d=$WORK/probe/$curve-$name-$p
    mkdir -p "$d"
    [[ -s $d/circuit.r1cs ]] || log "probing $name $curve with $(param_name "$name")=$p ..."
    compile "$name" "$curve" "$p" "$d" >/dev/null || die "probe compile of $name ($curve, $p)"
  done
  read -r c1 pub _ < <(node "$ROOT/bench/r1cs-header.mjs" "$WORK/probe/$curve-$name-1/circuit.r1cs")
  read -r c2 _ _ < <(node "$ROOT/bench/r1cs-header.mjs" "$WORK/probe/$curve-$name-2/circuit.r1cs")
  local per=$((c2 - c1))
  local base=$((c1 - per))
  echo $(( ((1 << k) - pub - 1 - base) / per ))
}

# prepare CURVE NAME K DIR: DIR/circuit.zkey, vk.json, witness.wtns and setup.log (the
# latter written last: its presence marks a complete cell). Returns 1 if a step failed.
prepare() {
  local curve=$1 name=$2 k=$3 dir=$4 t0
  [[ -s $dir/setup.log ]] && return 0
  mkdir -p "$dir"
  rm -f "$dir"/tmp.*
  if [[ $name == demo ]]; then
    log "setting up demo $curve 2^$k ..."
    t0=$(now)
    "$CUZK" setup --dev --demo $(((1 << k) - 5)) --curve "$curve" --zkey "$dir/tmp.circuit.zkey" \
      --vk "$dir/tmp.vk.json" --wtns "$dir/tmp.witness.wtns" >"$dir/tmp.setup.log" 2>&1 ||
      { cat "$dir/tmp.setup.log" >&2; return 1; }
    mv -f "$dir/tmp.witness.wtns" "$dir/witness.wtns"
  else
    local param
    param=$(size_param "$name" "$curve" "$k") || return 1
    ((param >= 1)) || { log "2^$k rows cannot hold one step of $name"; return 1; }
    log "compiling $name $curve 2^$k ($(param_name "$name")=$param) ..."
    TOOK=
    compile "$name" "$curve" "$param" "$dir" || return 1
    if [[ -n $TOOK ]]; then log "  compiled in $TOOK s"; else log "  circom output cached"; fi
    input_json "$name" >"$dir/input.json"
    if [[ ! -s $dir/witness.wtns ]]; then
      log "witness $name $curve 2^$k ..."
      t0=$(now)
      "${SNARKJS[@]}" wtns calculate "$dir/circuit_js/circuit.wasm" "$dir/input.json" \
        "$dir/tmp.witness.wtns" >/dev/null || return 1
      mv -f "$dir/tmp.witness.wtns" "$dir/witness.wtns"
      log "  witness in $(since "$t0") s"
    fi
    log "setting up $name $curve 2^$k ..."
    t0=$(now)
    "$CUZK" setup --dev "$dir/circuit.r1cs" --zkey "$dir/tmp.circuit.zkey" --vk "$dir/tmp.vk.json" \
      >"$dir/tmp.setup.log" 2>&1 || { cat "$dir/tmp.setup.log" >&2; return 1; }
  fi
  log "  setup in $(since "$t0") s"
  mv -f "$dir/tmp.circuit.zkey" "$dir/circuit.zkey"
  mv -f "$dir/tmp.vk.json" "$dir/vk.json"
  mv -f "$dir/tmp.setup.log" "$dir/setup.log"
}

# cell_shape DIR CURVE NAME K -> "constraints domain" from cuzk setup's summary line
# ("dev setup for bn254: 1021 constraints, 1024 wires, 2 public signals, domain 1024"),
# checked against the r1cs header where there is one, and against 2^k.
cell_shape() {
  local dir=$1 curve=$2 name=$3 k=$4 line n pub domain
  line=$(grep -m1 '^dev setup for' "$dir/setup.log") || die "$dir/setup.log has no summary line"
  read -r n pub domain < <(sed -E 's/.*: ([0-9]+) constraints, [0-9]+ wires, ([0-9]+) public signals, domain ([0-9]+).*/\1 \2 \3/' <<<"$line")
  if [[ $name != demo ]]; then
    local rn rpub
    read -r rn rpub _ < <(node "$ROOT/bench/r1cs-header.mjs" "$dir/circuit.r1cs")
    [[ $rn == "$n" && $rpub == "$pub" ]] || die "$dir: r1cs says $rn constraints/$rpub public, setup $n/$pub"
  fi
  ((n + pub + 1 <= domain)) || die "$dir: $n constraints + $pub public + 1 exceed the domain $domain"
  ((domain == 1 << k)) || die "$dir: domain $domain, expected 2^$k ($curve $name)"
  echo "$n $domain"
}

# ---------------------------------------------------------------------------------------
# Timing

# run_timed LABEL CMD... -> appends "wall_s rss_kib" for one run to $WORK/LABEL.times
run_timed() {
  local label=$1; shift
  /usr/bin/time -f '%e %M' -o "$WORK/.time" "$@" >/dev/null 2>"$WORK/.err" || {
    log "FAILED: $*"; cat "$WORK/.err" >&2; exit 1; }
  cat "$WORK/.time" >>"$WORK/$label.times"
}
median_col() {  # median_col FILE COLUMN
  awk -v c="$2" '{print $c}' "$1" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

# bench_cell CURVE NAME K: prepares, times and verifies one cell, prints its table row.
bench_cell() {
  local curve=$1 name=$2 k=$3 d=$WORK/$1-$2-$3
  if ! prepare "$curve" "$name" "$k" "$d"; then
    printf '| %s | %s | skipped: 2^%s preparation failed (see stderr) | | | | | | |\n' "$curve" "$name" "$k"
    FAILED=1
    return 0
  fi
  local shape n domain
  shape=$(cell_shape "$d" "$curve" "$name" "$k") || exit 1
  read -r n domain <<<"$shape"
  log "proving $name $curve 2^$k, $REPS x cuzk and snarkjs ..."
  rm -f "$WORK"/cuzk.times "$WORK"/snarkjs.times
  local i
  for ((i = 0; i < REPS; ++i)); do
    run_timed cuzk "$CUZK" prove "$d/circuit.zkey" "$d/witness.wtns" "$d/proof.json" "$d/public.json"
    "$CUZK" verify "$d/vk.json" "$d/public.json" "$d/proof.json" >/dev/null ||
      die "cuzk verify rejected cuzk's proof ($curve $name 2^$k)"
    run_timed snarkjs "${SNARKJS[@]}" groth16 prove "$d/circuit.zkey" "$d/witness.wtns" "$d/sproof.json" "$d/spublic.json"
    "$CUZK" verify "$d/vk.json" "$d/spublic.json" "$d/sproof.json" >/dev/null ||
      die "cuzk verify rejected snarkjs's proof ($curve $name 2^$k)"
  done
  "${SNARKJS[@]}" groth16 verify "$d/vk.json" "$d/public.json" "$d/proof.json" | grep -q "OK" ||
    die "snarkjs rejected our proof ($curve $name 2^$k)"
  # the same public signals from both (the files differ only in whitespace)
  [[ $(tr -d '[:space:]' <"$d/public.json") == "$(tr -d '[:space:]' <"$d/spublic.json")" ]] || die "public signals differ ($curve $name 2^$k)"
  local c s cm sm
  c=$(median_col "$WORK/cuzk.times" 1); s=$(median_col "$WORK/snarkjs.times" 1)
  cm=$(median_col "$WORK/cuzk.times" 2); sm=$(median_col "$WORK/snarkjs.times" 2)
  printf '| %s | %s | %d | 2^%d | %.2f | %.2f | %.1fx | %d MiB | %d MiB |\n' "$curve" "$name" "$n" \
    "$(awk -v d="$domain" 'BEGIN{print int(log(d) / log(2) + 0.5)}')" "$c" "$s" \
    "$(awk -v s="$s" -v c="$c" 'BEGIN{print s / c}')" $((cm / 1024)) $((sm / 1024))
}

# ---------------------------------------------------------------------------------------

echo "machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB"
echo "commit: $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- src apps bench/circuits || echo ' (+ local changes)')"
echo "command: bench/cpu-vs-snarkjs.sh $BUILD $SIZES (REPS=$REPS CURVES=\"$CURVES\" CIRCUITS=\"$CIRCUITS\")"
echo
echo "| curve | circuit | constraints | domain | cuzk prove (s) | snarkjs prove (s) | speed-up | cuzk peak RSS | snarkjs peak RSS |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
FAILED=0
for curve in $CURVES; do
  prime_of "$curve" >/dev/null
  for name in $CIRCUITS; do
    [[ $name == demo ]] || param_name "$name" >/dev/null
    for k in $SIZES; do
      bench_cell "$curve" "$name" "$k"
    done
  done
done
echo
echo "Whole command-line runs (key load, witness read, proof, JSON write), median of $REPS;"
echo "cuzk uses all $(nproc) cores; both provers read the same zkey and wtns (keys from cuzk's dev"
echo "setup; chain/poseidon compiled by circom2 --O2, witnesses by snarkjs; demo's witness by cuzk)."
if [[ " $CURVES " == *" bls12_381 "* && " $CIRCUITS " == *" poseidon "* ]]; then
  echo "poseidon on bls12_381: circomlib's Poseidon constants are BN254's, used as they are in"
  echo "BLS12-381's field (all are below its modulus): the same constraint shape, not a standard instance."
fi
exit "$FAILED"
