// 2-adic roots of unity for NTT domains over a scalar field Fr.
//
// A root of order 2^k is g^(T * 2^(S-k)) for a quadratic non-residue g, with
// r - 1 = 2^S * T. Different libraries pick different g, and so different roots:
// snarkjs/ffjavascript use g = 5 on both curves, while blst/bellperson-era BLS12-381
// code uses g = 7. A key's domain must be built with the root its producer used.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ff/fp.hpp"

namespace cuzk::ff {

enum class RootConvention : uint8_t {
  kSnarkjs,  // generator 5 (ffjavascript Fr.w[])
  kSeven,    // generator 7 (blst, bellperson's BLS12-381 Fr::ROOT_OF_UNITY)
};

constexpr uint64_t root_generator(RootConvention c) { return c == RootConvention::kSnarkjs ? 5 : 7; }

// A primitive 2^log_n-th root of unity; log_n must be <= F::S.
template <class F>
F two_adic_root(size_t log_n, RootConvention conv = RootConvention::kSnarkjs) {
  F w = F::from_u64(root_generator(conv)).pow(F::T);
  for (size_t i = log_n; i < F::S; ++i) w = w.square();
  return w;
}

}  // namespace cuzk::ff
