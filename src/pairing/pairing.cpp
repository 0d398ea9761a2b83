#include "pairing/pairing.hpp"

#include "pairing/curve_params.hpp"
#include "pairing/final_exponentiation.hpp"
#include "pairing/miller_loop.hpp"

namespace cuzk::pairing {

// The one copy of each template that miller_loop.hpp and final_exponentiation.hpp declare extern.
template bn254::Fq12 miller_loop<Bn254Pairing>(std::span<const std::pair<bn254::G1Affine, bn254::G2Affine>>);
template bls12_381::Fq12 miller_loop<Bls12381Pairing>(
    std::span<const std::pair<bls12_381::G1Affine, bls12_381::G2Affine>>);
template bn254::Fq12 final_exponentiation<Bn254Pairing>(const bn254::Fq12&);
template bls12_381::Fq12 final_exponentiation<Bls12381Pairing>(const bls12_381::Fq12&);
template bn254::Fq12 final_exponentiation_compat<Bn254Pairing>(const bn254::Fq12&);
template bls12_381::Fq12 final_exponentiation_compat<Bls12381Pairing>(const bls12_381::Fq12&);

bn254::Fq12 miller_loop(std::span<const Bn254Pair> pairs) { return miller_loop<Bn254Pairing>(pairs); }
bls12_381::Fq12 miller_loop(std::span<const Bls12381Pair> pairs) { return miller_loop<Bls12381Pairing>(pairs); }

bn254::Fq12 final_exponentiation(const bn254::Fq12& f) { return final_exponentiation<Bn254Pairing>(f); }
bls12_381::Fq12 final_exponentiation(const bls12_381::Fq12& f) { return final_exponentiation<Bls12381Pairing>(f); }

bn254::Fq12 final_exponentiation_compat(const bn254::Fq12& f) {
  return final_exponentiation_compat<Bn254Pairing>(f);
}
bls12_381::Fq12 final_exponentiation_compat(const bls12_381::Fq12& f) {
  return final_exponentiation_compat<Bls12381Pairing>(f);
}

bn254::Fq12 pairing_compat(const bn254::G1Affine& p, const bn254::G2Affine& q) {
  Bn254Pair pair{p, q};
  return final_exponentiation_compat(miller_loop(std::span<const Bn254Pair>(&pair, 1)));
}
bls12_381::Fq12 pairing_compat(const bls12_381::G1Affine& p, const bls12_381::G2Affine& q) {
  Bls12381Pair pair{p, q};
  return final_exponentiation_compat(miller_loop(std::span<const Bls12381Pair>(&pair, 1)));
}

bn254::Fq12 pairing(const bn254::G1Affine& p, const bn254::G2Affine& q) {
  Bn254Pair pair{p, q};
  return final_exponentiation(miller_loop(std::span<const Bn254Pair>(&pair, 1)));
}
bls12_381::Fq12 pairing(const bls12_381::G1Affine& p, const bls12_381::G2Affine& q) {
  Bls12381Pair pair{p, q};
  return final_exponentiation(miller_loop(std::span<const Bls12381Pair>(&pair, 1)));
}

bool pairing_product_is_one(std::span<const Bn254Pair> pairs) {
  return final_exponentiation(miller_loop(pairs)).is_one();
}
bool pairing_product_is_one(std::span<const Bls12381Pair> pairs) {
  return final_exponentiation(miller_loop(pairs)).is_one();
}

}  // namespace cuzk::pairing
