// Groth16 verification against a key prepared once, for verifying many proofs (the
// daemon checks every proof it returns). The same equation and the same accept/reject
// decisions and messages as verify (verifier.hpp), at a fraction of the cost:
//   - e(alpha1, beta2) is a fixed factor: its Miller-loop value is computed once;
//   - gamma2 and delta2 are fixed: their Miller-loop lines are computed once
//     (pairing/prepared.hpp), so only -pi_a, pi_b walks the loop;
//   - the IC points are fixed: IC_0 + sum pub_i IC_i adds precomputed multiples
//     (signed 4-bit windows, no doublings) instead of full scalar multiplications;
//   - the final exponentiation only decides "is one" (pairing/final_exponentiation_check.hpp);
//   - on BLS12-381, pi_b's subgroup test psi(Q) == [x]Q reuses [|x|] pi_b, where pi_b's
//     walk through the Miller loop ends (pairing::g2_in_subgroup_from_walk).
#pragma once

#include <span>
#include <vector>

#include "core/status.hpp"
#include "ec/jacobian.hpp"
#include "groth16/proof.hpp"
#include "pairing/curve_params.hpp"
#include "pairing/final_exponentiation_check.hpp"
#include "pairing/prepared.hpp"

namespace cuzk::groth16 {

template <class C>
class PreparedVerifyingKey {
 public:
  using PC = typename pairing::PairingFor<C>::type;
  using G1Affine = ec::Affine<typename C::G1>;

  // Signed 4-bit windows of a scalar below r: digits in [-7, 8], with a bit of headroom for
  // the last carry; the table holds d * 16^j * IC_i for d = 1..8.
  static constexpr size_t kWindowBits = 4;
  static constexpr size_t kWindows = (C::Fr::BITS + kWindowBits) / kWindowBits;
  static constexpr size_t kDigits = size_t(1) << (kWindowBits - 1);
  // Tables for at most this many public inputs (about 50 KB each on BLS12-381); the IC
  // points of any others are multiplied out at verify time.
  static constexpr size_t kMaxTabledInputs = 128;

  // Never fails: a malformed key (IC count not nPublic + 1) is prepared as far as it goes
  // and every verify against it returns verify's message for that key.
  explicit PreparedVerifyingKey(const VerifyingKey<C>& vk);

  const VerifyingKey<C>& key() const { return vk_; }
  size_t tabled_inputs() const { return tabled_; }

  // IC_0 + sum_i pub_i IC_{i+1} (pub the canonical public signals, as many as nPublic).
  ec::Jacobian<typename C::G1> ic_sum(std::span<const typename C::Fr::Int> pub) const;
  const pairing::G2Prepared<PC>& gamma2() const { return gamma2_; }
  const pairing::G2Prepared<PC>& delta2() const { return delta2_; }
  // miller_loop(alpha1, beta2), before the final exponentiation.
  const typename C::Fq12& alpha_beta_miller() const { return alpha_beta_; }

 private:
  VerifyingKey<C> vk_;
  pairing::G2Prepared<PC> gamma2_, delta2_;
  typename C::Fq12 alpha_beta_;
  size_t tabled_ = 0;
  std::vector<G1Affine> table_;  // [input][window][digit - 1]
};

// verify(pvk.key(), proof, public_signals), faster: the same result and message.
template <class C>
Status verify(const PreparedVerifyingKey<C>& pvk, const Proof<C>& proof,
              std::span<const typename C::Fr::Int> public_signals);

}  // namespace cuzk::groth16
