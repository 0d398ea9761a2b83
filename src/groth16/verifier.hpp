// Groth16 verification (reference/snarkjs-formats.md §4.4 step 6):
//   e(−π_A, π_B) · e(IC₀ + Σ pub_i·IC_i, γ₂) · e(π_C, δ₂) · e(α₁, β₂) == 1.
// Stricter than snarkjs: besides rejecting public signals ≥ r and points off the curve,
// it rejects proof points outside the prime-order subgroups (and at infinity), which
// snarkjs accepts.
#pragma once

#include <span>

#include "core/status.hpp"
#include "groth16/proof.hpp"

namespace cuzk::groth16 {

// Ok when the proof is valid for these public signals (standard form, in public.json
// order). Otherwise the message says why: malformed input, or the pairing check failed.
template <class C>
Status verify(const VerifyingKey<C>& vk, const Proof<C>& proof, std::span<const typename C::Fr::Int> public_signals);

// The checks verify runs before any pairing: the key's IC count, the number and range of
// the public signals, and the proof points (not at infinity, on the curve, in the subgroup).
// Ok, or the message verify would return. pi_b_subgroup = false leaves out pi_b's subgroup
// test only (for a caller that makes it another way).
template <class C>
Status check_verify_inputs(const VerifyingKey<C>& vk, const Proof<C>& proof,
                           std::span<const typename C::Fr::Int> public_signals, bool pi_b_subgroup = true);

// verify's message when the pairing check fails.
inline Status pairing_check_failed() {
  return invalid_argument("verify: the pairing check failed: the proof is not valid for these public signals");
}

}  // namespace cuzk::groth16
