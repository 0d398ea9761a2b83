// Groth16 proofs and verification keys: the snarkjs JSON types of src/formats, so a proof
// goes to proof.json and a key to verification_key.json without conversion.
#pragma once

#include <type_traits>

#include "formats/snarkjs_json.hpp"
#include "pairing/pairing.hpp"

namespace cuzk::groth16 {

template <class C>
using Proof = formats::Groth16Proof<C>;

template <class C>
using VerifyingKey = formats::VerificationKey<C>;

// vk_alphabeta_12 exactly as snarkjs writes it. ffjavascript's final exponentiations raise
// to a multiple of (q^12 - 1)/r, so its "e(alpha1, beta2)" is a fixed power of the reduced
// pairing: e^(2x(6x^2+3x+1)) on bn128 (Fuentes-Castaneda et al.'s chain, x the BN
// parameter) and e^3 on bls12381. Checked against `snarkjs zkey export verificationkey`.
template <class C>
typename C::Fq12 snarkjs_alphabeta(const ec::Affine<typename C::G1>& alpha1, const ec::Affine<typename C::G2>& beta2) {
  using Fr = typename C::Fr;
  const typename C::Fq12 e = pairing::pairing(alpha1, beta2);
  if constexpr (std::is_same_v<C, bn254::Curve>) {
    const Fr x = Fr::from_u64(4965661367192848881ull);
    const Fr k = x.dbl() * (Fr::from_u64(6) * x.square() + Fr::from_u64(3) * x + Fr::one());
    return e.pow(k.to_canonical());
  } else {
    return e.square() * e;
  }
}

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
  vk.alphabeta_12 = snarkjs_alphabeta<C>(alpha1, beta2);
  return vk;
}

}  // namespace cuzk::groth16
