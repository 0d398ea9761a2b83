// Groth16 proofs and verification keys: the snarkjs JSON types of src/formats, so a proof
// goes to proof.json and a key to verification_key.json without conversion.
#pragma once

#include "formats/snarkjs_json.hpp"
#include "pairing/pairing.hpp"

namespace cuzk::groth16 {

template <class C>
using Proof = formats::Groth16Proof<C>;

template <class C>
using VerifyingKey = formats::VerificationKey<C>;

// A verification key from its points, with vk_alphabeta_12 in snarkjs's convention.
template <class C>
VerifyingKey<C> make_verifying_key(const ec::Affine<typename C::G1>& alpha1, const ec::Affine<typename C::G2>& beta2,
                                   const ec::Affine<typename C::G2>& gamma2, const ec::Affine<typename C::G2>& delta2,
                                   std::span<const ec::Affine<typename C::G1>> ic) {
  VerifyingKey<C> vk;
  vk.n_public = uint32_t(ic.size() - 1);
  vk.alpha1 = alpha1;
  vk.beta2 = beta2;
  vk.gamma2 = gamma2;
  vk.delta2 = delta2;
  vk.ic.assign(ic.begin(), ic.end());
  // snarkjs's e(alpha1, beta2) is a fixed power of the reduced pairing (see pairing.hpp);
  // pairing_compat reproduces it so vk.json matches `snarkjs zkey export verificationkey`.
  vk.alphabeta_12 = pairing::pairing_compat(alpha1, beta2);
  return vk;
}

// The verifier recomputes e(alpha1, beta2), so a changed vk_alphabeta_12 would go unnoticed;
// a key whose stored pairing disagrees with its points was altered after export.
template <class C>
Status check_alphabeta(const VerifyingKey<C>& vk, const std::string& label) {
  if (vk.alphabeta_12 == pairing::pairing_compat(vk.alpha1, vk.beta2)) return Status::ok();
  return invalid_argument(label + ": vk_alphabeta_12 is not e(vk_alpha_1, vk_beta_2): the key was altered");
}

}  // namespace cuzk::groth16
