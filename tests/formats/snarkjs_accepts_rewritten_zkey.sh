#!/usr/bin/env bash
# Checks that snarkjs accepts .zkey files written by cuzk's formats writer, on both curves:
#  - chain/circuit.zkey (one contribution) read and re-written: `zkey export
#    verificationkey` gives the same key as the original, `groth16 prove` + `verify` succeed;
#  - poseidon_hash/circuit_0000.zkey (setup order 1,2,4,3,9,8,5,6,7,10) re-written without
#    its MPC section (what a dev setup writes): export, prove and verify succeed.
# One circuit per case keeps the node start-ups (the cost here) few.
# usage: snarkjs_accepts_rewritten_zkey.sh REWRITE_TOOL FIXTURES_DIR NODE_MODULES WORK_DIR
set -euo pipefail
tool=$1 fixtures=$2 modules=$3 work=$4
snarkjs=(node "$modules/snarkjs/build/cli.cjs")
rm -rf "$work" && mkdir -p "$work"

same_json() {
  node -e 'const fs=require("fs");const a=JSON.parse(fs.readFileSync(process.argv[1]));
    const b=JSON.parse(fs.readFileSync(process.argv[2]));
    if (JSON.stringify(a)!==JSON.stringify(b)) { console.error("differ: "+process.argv[1]+" "+process.argv[2]); process.exit(1); }' "$1" "$2"
}

for curve in bn128 bls12381; do
  src=$fixtures/$curve/chain
  out=$work/$curve/chain
  mkdir -p "$out"
  echo "== $curve/chain: rewrite circuit.zkey"
  "$tool" "$src/circuit.zkey" "$out/rewritten.zkey"
  "${snarkjs[@]}" zkey export verificationkey "$out/rewritten.zkey" "$out/vk.json" >/dev/null
  same_json "$src/verification_key.json" "$out/vk.json"
  "${snarkjs[@]}" groth16 prove "$out/rewritten.zkey" "$src/witness.wtns" "$out/proof.json" "$out/public.json" >/dev/null
  "${snarkjs[@]}" groth16 verify "$out/vk.json" "$out/public.json" "$out/proof.json" | grep -q "OK"
  same_json "$src/public.json" "$out/public.json"

  src=$fixtures/$curve/poseidon_hash
  out=$work/$curve/poseidon_hash
  mkdir -p "$out"
  echo "== $curve/poseidon_hash: rewrite circuit_0000.zkey without MPC section"
  "$tool" "$src/circuit_0000.zkey" "$out/fresh.zkey" --drop-mpc
  "${snarkjs[@]}" zkey export verificationkey "$out/fresh.zkey" "$out/vk.json" >/dev/null
  "${snarkjs[@]}" groth16 prove "$out/fresh.zkey" "$src/witness.wtns" "$out/proof.json" "$out/public.json" >/dev/null
  "${snarkjs[@]}" groth16 verify "$out/vk.json" "$out/public.json" "$out/proof.json" | grep -q "OK"
done
echo "snarkjs accepted every rewritten key"
