// The concrete fields of BN254 and BLS12-381, and their extension towers.
#pragma once

#include "ff/fp.hpp"
#include "ff/fp12.hpp"
#include "ff/fp2.hpp"
#include "ff/fp6.hpp"
#include "ff/params.hpp"

namespace cuzk::bn254 {
using Fq = ff::Fp<ff::Bn254FqParams>;
using Fr = ff::Fp<ff::Bn254FrParams>;
struct TowerConfig {
  using Fq = bn254::Fq;
  static constexpr uint64_t XI_C0 = 9;  // xi = 9 + u
  static constexpr uint64_t XI_C1 = 1;
};
using Fq2 = ff::Fp2<TowerConfig>;
using Fq6 = ff::Fp6<TowerConfig>;
using Fq12 = ff::Fp12<TowerConfig>;
}  // namespace cuzk::bn254

namespace cuzk::bls12_381 {
using Fq = ff::Fp<ff::Bls12381FqParams>;
using Fr = ff::Fp<ff::Bls12381FrParams>;
struct TowerConfig {
  using Fq = bls12_381::Fq;
  static constexpr uint64_t XI_C0 = 1;  // xi = 1 + u
  static constexpr uint64_t XI_C1 = 1;
};
using Fq2 = ff::Fp2<TowerConfig>;
using Fq6 = ff::Fp6<TowerConfig>;
using Fq12 = ff::Fp12<TowerConfig>;
}  // namespace cuzk::bls12_381
