#include "groth16/prepared_verifier.hpp"

#include <algorithm>
#include <utility>

#include "ec/batch_affine.hpp"
#include "ec/points.hpp"
#include "ff/inverse.hpp"
#include "groth16/verifier.hpp"

namespace cuzk::groth16 {

namespace {

// to_affine with the variable-time inversion: the points here are public.
template <class Cfg>
ec::Affine<Cfg> to_affine_vartime(const ec::Jacobian<Cfg>& p) {
  if (p.is_infinity()) return ec::Affine<Cfg>::infinity();
  auto zi = ff::inverse_vartime(p.z);
  auto zi2 = zi.square();
  return {p.x * zi2, p.y * zi2 * zi};
}

}  // namespace

template <class C>
PreparedVerifyingKey<C>::PreparedVerifyingKey(const VerifyingKey<C>& vk)
    : vk_(vk), gamma2_(pairing::prepare_g2<PC>(vk.gamma2)), delta2_(pairing::prepare_g2<PC>(vk.delta2)) {
  using G1J = ec::Jacobian<typename C::G1>;
  const std::pair<G1Affine, ec::Affine<typename C::G2>> ab{vk.alpha1, vk.beta2};
  alpha_beta_ = pairing::miller_loop<PC>(std::span(&ab, 1));
  if (vk.ic.size() != size_t(vk.n_public) + 1) return;  // verify rejects every proof for it
  tabled_ = std::min<size_t>(vk.n_public, kMaxTabledInputs);
  table_.resize(tabled_ * kWindows * kDigits);
  std::vector<G1J> row(kWindows * kDigits);
  for (size_t i = 0; i < tabled_; ++i) {
    G1J base = G1J::from_affine(vk.ic[i + 1]);
    for (size_t j = 0; j < kWindows; ++j) {
      G1J* m = &row[j * kDigits];
      m[0] = base;
      for (size_t d = 1; d < kDigits; ++d) m[d] = m[d - 1] + base;
      for (size_t b = 0; b < kWindowBits; ++b) base = base.dbl();
    }
    ec::batch_to_affine(row.data(), row.size(), &table_[i * kWindows * kDigits]);
  }
}

template <class C>
ec::Jacobian<typename C::G1> PreparedVerifyingKey<C>::ic_sum(std::span<const typename C::Fr::Int> pub) const {
  using G1J = ec::Jacobian<typename C::G1>;
  G1J acc = G1J::from_affine(vk_.ic[0]);
  for (size_t i = 0; i < pub.size(); ++i) {
    if (i >= tabled_) {
      acc += G1J::from_affine(vk_.ic[i + 1]).mul(pub[i]);
      continue;
    }
    const G1Affine* t = &table_[i * kWindows * kDigits];
    int carry = 0;
    for (size_t j = 0; j < kWindows; ++j, t += kDigits) {
      int d = carry;
      for (size_t b = 0; b < kWindowBits; ++b) {
        size_t bit = j * kWindowBits + b;
        if (bit < 64 * C::Fr::N && pub[i].bit(bit)) d += 1 << b;
      }
      carry = d > int(kDigits);
      if (carry) d -= 1 << kWindowBits;
      if (d > 0) acc += t[d - 1];
      if (d < 0) acc -= t[-d - 1];
    }
  }
  return acc;
}

template <class C>
Status verify(const PreparedVerifyingKey<C>& pvk, const Proof<C>& proof,
              std::span<const typename C::Fr::Int> public_signals) {
  using PC = typename PreparedVerifyingKey<C>::PC;
  // On BLS12 pi_b's walk through the Miller loop ends at [|x|] pi_b, which is what its
  // subgroup test computes: the loop makes that test (g2_in_subgroup_from_walk).
  constexpr bool kTestFromWalk = PC::FAMILY == pairing::Family::BLS12;
  const VerifyingKey<C>& vk = pvk.key();
  Status inputs = check_verify_inputs<C>(vk, proof, public_signals, !kTestFromWalk);
  // The full checks give verify's first message, which may come before pi_b's test or after.
  if (!inputs.is_ok()) return kTestFromWalk ? check_verify_inputs<C>(vk, proof, public_signals) : inputs;
  const pairing::PreparedPair<PC> fixed[2] = {
      {to_affine_vartime(pvk.ic_sum(public_signals)), &pvk.gamma2()},
      {proof.c, &pvk.delta2()},
  };
  pairing::G2Projective<PC> walk;
  auto f = pairing::miller_loop_prepared<PC>(-proof.a, proof.b, std::span(fixed), &walk);
  if constexpr (kTestFromWalk) {
    if (!pairing::g2_in_subgroup_from_walk<PC>(proof.b, walk)) {
      // Only pi_b's test is left to fail; the full checks name it.
      CUZK_RETURN_IF_ERROR(check_verify_inputs<C>(vk, proof, public_signals));
    }
  }
  if (!pairing::final_exponentiation_is_one<PC>(f * pvk.alpha_beta_miller())) return pairing_check_failed();
  return Status::ok();
}

template class PreparedVerifyingKey<bn254::Curve>;
template class PreparedVerifyingKey<bls12_381::Curve>;
template Status verify<bn254::Curve>(const PreparedVerifyingKey<bn254::Curve>&, const Proof<bn254::Curve>&,
                                     std::span<const bn254::Fr::Int>);
template Status verify<bls12_381::Curve>(const PreparedVerifyingKey<bls12_381::Curve>&, const Proof<bls12_381::Curve>&,
                                         std::span<const bls12_381::Fr::Int>);

}  // namespace cuzk::groth16
