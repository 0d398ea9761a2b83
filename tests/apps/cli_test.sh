#!/usr/bin/env bash
# The cuzk command line keeps its contract: setup -> prove -> verify round trips on both
# curves, verify exits 0 for valid and 1 for invalid proofs, the demo runs from an empty
# cache and then reuses it, and wrong inputs fail with a message that names the problem.
# usage: cli_test.sh CUZK
set -euo pipefail
cuzk=${1:?cuzk binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"

for curve in bn254 bls12_381; do
  d=$tmp/$curve
  mkdir -p "$d"
  expect 0 "INSECURE" "$curve: setup --dev --demo writes keys and warns" \
    "$cuzk" setup --dev --demo 200 --curve "$curve" --zkey "$d/k.zkey" --vk "$d/vk.json" --wtns "$d/w.wtns"
  expect 0 "the proof verifies against the key" "$curve: prove checks its proof" \
    "$cuzk" prove "$d/k.zkey" "$d/w.wtns" "$d/proof.json" "$d/public.json"
  expect 0 "not verified: --no-verify" "$curve: prove --no-verify skips the check" \
    "$cuzk" prove --no-verify "$d/k.zkey" "$d/w.wtns" "$d/p_nv.json" "$d/q_nv.json"
  expect 0 "OK" "$curve: verify accepts the proof" "$cuzk" verify "$d/vk.json" "$d/public.json" "$d/proof.json"
  sed '0,/"[0-9]*"/s//"12345"/' "$d/public.json" >"$d/public_bad.json"
  expect 1 "INVALID: proof.json with public_bad.json under vk.json" "$curve: verify names the files it rejects" \
    "$cuzk" verify "$d/vk.json" "$d/public_bad.json" "$d/proof.json"
  expect 1 "verify: the pairing check failed" "$curve: verify rejects a changed public signal" \
    "$cuzk" verify "$d/vk.json" "$d/public_bad.json" "$d/proof.json"
  expect 0 "wrote" "$curve: setup of a second demo size" \
    "$cuzk" setup --dev --demo 300 --curve "$curve" --zkey "$d/k2.zkey" --vk "$d/vk2.json" --wtns "$d/w2.wtns"
  expect 1 "INVALID" "$curve: verify rejects a proof for another circuit" \
    "$cuzk" verify "$d/vk2.json" "$d/public.json" "$d/proof.json"
  expect 1 "expects nVars" "$curve: prove rejects a witness of another circuit" \
    "$cuzk" prove "$d/k.zkey" "$d/w2.wtns" "$d/p.json" "$d/q.json"
done
expect 1 "curve" "verify rejects a bls12_381 proof under a bn254 key" \
  "$cuzk" verify "$tmp/bn254/vk.json" "$tmp/bls12_381/public.json" "$tmp/bls12_381/proof.json"
sed '1a "1",' "$tmp/bn254/public.json" >"$tmp/five_signals.json"
expect 1 "five_signals.json: 5 public signals, but vk.json expects 4 (nPublic)" \
  "verify names both files on a signal count mismatch" \
  "$cuzk" verify "$tmp/bn254/vk.json" "$tmp/five_signals.json" "$tmp/bn254/proof.json"
sed 's/"bn128"/128/' "$tmp/bn254/vk.json" >"$tmp/vk_numcurve.json"
expect 1 'vk_numcurve.json: curve is 128, expected "bn128" or "bls12381"' "verify: a numeric curve is named as such" \
  "$cuzk" verify "$tmp/vk_numcurve.json" "$tmp/bn254/public.json" "$tmp/bn254/proof.json"

# Found by fuzzing (issue 10): size fields beyond the file or the machine exited on std::bad_alloc.
regress=$(dirname "${BASH_SOURCE[0]}")/../fuzz/regress/r1cs
expect 1 "constraint-count-beyond-section.r1cs: section 2 (constraints): nConstraints 4294967295 needs" \
  "setup rejects a constraint count beyond its section" \
  "$cuzk" setup --dev "$regress/constraint-count-beyond-section.r1cs" --zkey "$tmp/x.zkey" --vk "$tmp/x.json"
expect 1 "nvars-beyond-memory.r1cs: the key for nVars 4294967295 and domain 4 needs 1374.4 GB" \
  "setup refuses a key larger than the machine's memory" \
  "$cuzk" setup --dev "$regress/nvars-beyond-memory.r1cs" --zkey "$tmp/x.zkey" --vk "$tmp/x.json"

expect 0 "proofs verified" "demo builds its keys in an empty cache and verifies every proof" \
  "$cuzk" demo --no-selfcheck -n 500 -p 2 --cache "$tmp/cache"
expect 0 "using the cached demo key" "demo reuses the cached keys" \
  "$cuzk" demo --no-selfcheck -n 500 -p 1 --cache "$tmp/cache"
expect 0 "median" "bench reports median timings" "$cuzk" bench -n 500 -r 3 --cache "$tmp/cache"
expect 0 "all .* checks passed" "demo --selfcheck-only passes" "$cuzk" demo --selfcheck-only 4
expect 0 "all 2 proofs verified" "bench --builtin chain proves the multiplication chain" \
  "$cuzk" bench --builtin chain -n 300 -r 2 --curve bls12_381 --backend cpu --cache "$tmp/cache"
expect 0 "chain-v1-bls12_381-300" "bench --builtin chain caches its key apart from the demo's" ls "$tmp/cache"
# A key built in GPU memory needs the CUDA backend; without a device (CI) it says why.
expect 2 "needs --backend cuda" "bench --key-on-device refuses the CPU backend" \
  "$cuzk" bench --key-on-device -n 500 --backend cpu
expect 2 "takes no --zkey" "bench --key-on-device takes no key file" \
  "$cuzk" bench --key-on-device --zkey "$tmp/bn254/k.zkey" --wtns "$tmp/bn254/w.wtns"
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  expect 1 "CUDA device\|without nvcc" "bench --key-on-device without a GPU fails with the reason" \
    "$cuzk" bench --key-on-device -n 500 --backend cuda
fi

if ((failures > 0)); then
  echo "$failures checks failed"
  exit 1
fi
echo "all checks passed"
