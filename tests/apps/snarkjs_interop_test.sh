#!/usr/bin/env bash
# cuzk and snarkjs accept each other's Groth16 proofs and keys, and both reject tampering:
#   1. cuzk proves with snarkjs's zkey; snarkjs verifies the proof; public.json matches.
#   2. cuzk verify accepts snarkjs's own proof.
#   3. a changed public signal or proof point is rejected by both.
#   4. a cuzk dev-setup zkey: snarkjs exports the same verification key cuzk wrote,
#      snarkjs verifies cuzk's proof, and cuzk verifies snarkjs's proof from that key.
# usage: snarkjs_interop_test.sh CUZK NODE_MODULES FIXTURES_DIR
set -euo pipefail
cuzk=${1:?cuzk binary}
modules=${2:?node_modules}
fixtures=${3:?fixtures dir}
snarkjs=(node "$modules/snarkjs/build/cli.cjs")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

pass() { printf 'ok    %s\n' "$*"; }
bad() {
  printf 'FAIL  %s\n' "$*"
  failures=$((failures + 1))
}
# expect_status WANT DESCRIPTION CMD...: runs CMD, compares its exit status with WANT.
expect_status() {
  local want=$1 what=$2
  shift 2
  local got=0
  "$@" >"$tmp/out.txt" 2>&1 || got=$?
  if [[ $got == "$want" ]]; then pass "$what"; else bad "$what (exit $got, wanted $want): $(tail -3 "$tmp/out.txt")"; fi
}
snarkjs_verify() { "${snarkjs[@]}" groth16 verify "$@"; }
# node_edit IN OUT JS: writes OUT = f(IN) where JS edits the parsed JSON `j` in place.
node_edit() {
  node -e "const fs=require('fs'); const j=JSON.parse(fs.readFileSync(process.argv[1])); $3;
           fs.writeFileSync(process.argv[2], JSON.stringify(j, null, 1));" "$1" "$2"
}
same_json() {
  node -e "const fs=require('fs'); const a=JSON.parse(fs.readFileSync(process.argv[1]));
           const b=JSON.parse(fs.readFileSync(process.argv[2]));
           process.exit(JSON.stringify(a)===JSON.stringify(b)?0:1);" "$1" "$2"
}

for curve in bn128 bls12381; do
  for circuit in chain poseidon_hash; do
    d=$fixtures/$curve/$circuit
    t=$tmp/$curve-$circuit
    mkdir -p "$t"
    tag="$curve/$circuit"

    expect_status 0 "$tag: cuzk prove with the snarkjs zkey" \
      "$cuzk" prove "$d/circuit.zkey" "$d/witness.wtns" "$t/proof.json" "$t/public.json"
    expect_status 0 "$tag: snarkjs verifies the cuzk proof" snarkjs_verify "$d/verification_key.json" "$t/public.json" "$t/proof.json"
    expect_status 0 "$tag: cuzk public.json equals snarkjs's" same_json "$t/public.json" "$d/public.json"
    expect_status 0 "$tag: cuzk verifies the cuzk proof" "$cuzk" verify "$d/verification_key.json" "$t/public.json" "$t/proof.json"
    expect_status 0 "$tag: cuzk verifies the snarkjs proof" "$cuzk" verify "$d/verification_key.json" "$d/public.json" "$d/proof.json"

    node_edit "$t/public.json" "$t/public_bad.json" "j[0] = (BigInt(j[0]) + 1n).toString()"
    expect_status 1 "$tag: snarkjs rejects a changed public signal" snarkjs_verify "$d/verification_key.json" "$t/public_bad.json" "$t/proof.json"
    expect_status 1 "$tag: cuzk rejects a changed public signal" "$cuzk" verify "$d/verification_key.json" "$t/public_bad.json" "$t/proof.json"
    # pi_a -> -pi_a stays on the curve, so only the pairing check can catch it.
    node_edit "$d/proof.json" "$t/proof_bad.json" \
      "const q = $( [[ $curve == bn128 ]] && echo 21888242871839275222246405745257275088696311157297823662689037894645226208583n || echo 4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559787n ); j.pi_a[1] = ((q - BigInt(j.pi_a[1])) % q).toString()"
    expect_status 1 "$tag: snarkjs rejects a negated pi_a" snarkjs_verify "$d/verification_key.json" "$d/public.json" "$t/proof_bad.json"
    expect_status 1 "$tag: cuzk rejects a negated pi_a" "$cuzk" verify "$d/verification_key.json" "$d/public.json" "$t/proof_bad.json"

    expect_status 0 "$tag: cuzk dev setup from the circom r1cs" \
      "$cuzk" setup --dev "$d/circuit.r1cs" --zkey "$t/dev.zkey" --vk "$t/dev_vk.json"
    expect_status 0 "$tag: snarkjs exports a verification key from the dev zkey" \
      "${snarkjs[@]}" zkey export verificationkey "$t/dev.zkey" "$t/dev_vk_snarkjs.json"
    expect_status 0 "$tag: snarkjs's exported key equals cuzk's" same_json "$t/dev_vk.json" "$t/dev_vk_snarkjs.json"
    expect_status 0 "$tag: cuzk proves with the dev zkey" \
      "$cuzk" prove "$t/dev.zkey" "$d/witness.wtns" "$t/dev_proof.json" "$t/dev_public.json"
    expect_status 0 "$tag: snarkjs verifies it" snarkjs_verify "$t/dev_vk_snarkjs.json" "$t/dev_public.json" "$t/dev_proof.json"
    expect_status 0 "$tag: snarkjs proves with the dev zkey" \
      "${snarkjs[@]}" groth16 prove "$t/dev.zkey" "$d/witness.wtns" "$t/dev_sproof.json" "$t/dev_spublic.json"
    expect_status 0 "$tag: cuzk verifies snarkjs's proof from the dev zkey" \
      "$cuzk" verify "$t/dev_vk.json" "$t/dev_spublic.json" "$t/dev_sproof.json"
    expect_status 1 "$tag: a proof from another key is rejected by snarkjs" \
      snarkjs_verify "$d/verification_key.json" "$t/dev_public.json" "$t/dev_proof.json"
    expect_status 1 "$tag: a proof from another key is rejected by cuzk" \
      "$cuzk" verify "$d/verification_key.json" "$t/dev_public.json" "$t/dev_proof.json"
  done
done

if ((failures > 0)); then
  echo "$failures checks failed"
  exit 1
fi
echo "all checks passed"
