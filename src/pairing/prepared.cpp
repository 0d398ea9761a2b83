// The one copy of the prepared Miller loop (pairing/prepared.hpp) and of the verifier's
// final exponentiation (pairing/final_exponentiation_check.hpp) for both curves: the
// groth16 prepared verifier, the tests and the benchmarks link these instead of each
// compiling the inlined tower again.
#include "pairing/prepared.hpp"

#include "pairing/final_exponentiation_check.hpp"

namespace cuzk::pairing {

template G2Prepared<Bn254Pairing> prepare_g2<Bn254Pairing>(const bn254::G2Affine&, bool);
template G2Prepared<Bls12381Pairing> prepare_g2<Bls12381Pairing>(const bls12_381::G2Affine&, bool);
template bn254::Fq12 miller_loop_prepared<Bn254Pairing>(const bn254::G1Affine&, const bn254::G2Affine&,
                                                        std::span<const PreparedPair<Bn254Pairing>>,
                                                        G2Projective<Bn254Pairing>*);
template bls12_381::Fq12 miller_loop_prepared<Bls12381Pairing>(const bls12_381::G1Affine&, const bls12_381::G2Affine&,
                                                               std::span<const PreparedPair<Bls12381Pairing>>,
                                                               G2Projective<Bls12381Pairing>*);
template bool final_exponentiation_is_one<Bn254Pairing>(const bn254::Fq12&);
template bool final_exponentiation_is_one<Bls12381Pairing>(const bls12_381::Fq12&);

}  // namespace cuzk::pairing
