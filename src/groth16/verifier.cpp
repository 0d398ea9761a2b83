#include "groth16/verifier.hpp"

#include <string>
#include <utility>

#include "ec/points.hpp"
#include "ec/subgroup.hpp"
#include "pairing/pairing.hpp"

namespace cuzk::groth16 {

namespace {

template <class Cfg>
Status check_point(const ec::Affine<Cfg>& p, const char* name, bool subgroup = true) {
  if (p.is_infinity()) return invalid_argument(std::string("verify: proof point ") + name + " is the point at infinity");
  if (!p.is_on_curve()) return invalid_argument(std::string("verify: proof point ") + name + " is not on the curve");
  if (subgroup && !ec::is_in_subgroup(p)) {
    return invalid_argument(std::string("verify: proof point ") + name + " is not in the prime-order subgroup");
  }
  return Status::ok();
}

}  // namespace

template <class C>
Status check_verify_inputs(const VerifyingKey<C>& vk, const Proof<C>& proof,
                           std::span<const typename C::Fr::Int> public_signals, bool pi_b_subgroup) {
  using Fr = typename C::Fr;
  if (vk.ic.size() != size_t(vk.n_public) + 1) {
    return invalid_argument("verify: the verification key has " + std::to_string(vk.ic.size()) +
                            " IC points for nPublic " + std::to_string(vk.n_public));
  }
  if (public_signals.size() != vk.n_public) {
    return invalid_argument("verify: " + std::to_string(public_signals.size()) +
                            " public signals given, the verification key expects " + std::to_string(vk.n_public));
  }
  for (size_t i = 0; i < public_signals.size(); ++i) {
    if (!public_signals[i].less_than(Fr::MODULUS)) {
      return invalid_argument("verify: public signal " + std::to_string(i) + " is not below the field order r");
    }
  }
  CUZK_RETURN_IF_ERROR(check_point(proof.a, "pi_a"));
  CUZK_RETURN_IF_ERROR(check_point(proof.b, "pi_b", pi_b_subgroup));
  return check_point(proof.c, "pi_c");
}

template <class C>
Status verify(const VerifyingKey<C>& vk, const Proof<C>& proof, std::span<const typename C::Fr::Int> public_signals) {
  using G1J = ec::Jacobian<typename C::G1>;
  using Pair = std::pair<ec::Affine<typename C::G1>, ec::Affine<typename C::G2>>;
  CUZK_RETURN_IF_ERROR(check_verify_inputs<C>(vk, proof, public_signals));

  G1J vk_x = G1J::from_affine(vk.ic[0]);
  for (size_t i = 0; i < public_signals.size(); ++i) vk_x += G1J::from_affine(vk.ic[i + 1]).mul(public_signals[i]);

  const Pair pairs[4] = {
      {{proof.a.x, -proof.a.y}, proof.b},
      {vk_x.to_affine(), vk.gamma2},
      {proof.c, vk.delta2},
      {vk.alpha1, vk.beta2},
  };
  if (!pairing::pairing_product_is_one(std::span<const Pair>(pairs))) return pairing_check_failed();
  return Status::ok();
}

template Status check_verify_inputs<bn254::Curve>(const VerifyingKey<bn254::Curve>&, const Proof<bn254::Curve>&,
                                                  std::span<const bn254::Fr::Int>, bool);
template Status check_verify_inputs<bls12_381::Curve>(const VerifyingKey<bls12_381::Curve>&,
                                                      const Proof<bls12_381::Curve>&,
                                                      std::span<const bls12_381::Fr::Int>, bool);
template Status verify<bn254::Curve>(const VerifyingKey<bn254::Curve>&, const Proof<bn254::Curve>&,
                                     std::span<const bn254::Fr::Int>);
template Status verify<bls12_381::Curve>(const VerifyingKey<bls12_381::Curve>&, const Proof<bls12_381::Curve>&,
                                         std::span<const bls12_381::Fr::Int>);

}  // namespace cuzk::groth16
