// GPU against CPU with the same r and s: for the device prover tests.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "cuda/cuda_test_util.hpp"
#include "formats/snarkjs_json.hpp"
#include "groth16/proof.hpp"
#include "groth16/verifier.hpp"

namespace cuzk::cuda::testing_prover {

// A proof as snarkjs JSON text: equal text, equal proof.
template <class C>
std::string proof_bytes(const groth16::Proof<C>& p) {
  return formats::proof_to_json<C>(p).dump();
}

// Proves `witness` on both provers with one fresh r and s (from the seeded stream `seed`):
// the proofs and public signals are the same, and the GPU's proof verifies.
template <class C, class CpuProver, class GpuProver, class Witness>
void expect_same_proofs(CpuProver& cpu, GpuProver& gpu, const Witness& witness, const groth16::VerifyingKey<C>& vk,
                        const std::string& seed) {
  using Fr = typename C::Fr;
  auto rng = testing::seeded_rng(seed);
  const Fr r = Fr::from_u64(rng()) * Fr::from_u64(rng()) + Fr::from_u64(rng());
  const Fr s = Fr::from_u64(rng()) * Fr::from_u64(rng()) + Fr::from_u64(rng());
  auto want = cpu.prove_with_blinding(witness, r, s);
  ASSERT_TRUE(want.is_ok()) << want.status().to_string();
  auto got = gpu.prove_with_blinding(witness, r, s);
  ASSERT_TRUE(got.is_ok()) << got.status().to_string();
  EXPECT_EQ(proof_bytes<C>(got->proof), proof_bytes<C>(want->proof));
  EXPECT_EQ(got->public_signals, want->public_signals);
  Status v = groth16::verify<C>(vk, got->proof, got->public_signals);
  EXPECT_TRUE(v.is_ok()) << v.to_string();
}

}  // namespace cuzk::cuda::testing_prover
