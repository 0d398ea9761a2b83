// Which pairing curve a snarkjs/circom file belongs to, told by the primes it carries.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "core/status.hpp"

namespace cuzk::formats {

enum class CurveId { kBn254, kBls12_381 };

// "bn128" / "bls12381": the names snarkjs writes in JSON.
const char* snarkjs_curve_name(CurveId id);

// Matches a little-endian prime against the base (q) or scalar (r) field primes of both
// curves; `which` is set to 'q' or 'r'. Fails when the prime is neither.
Result<CurveId> curve_from_prime(std::span<const uint8_t> prime_le, char* which = nullptr);

// Reads just enough of a .zkey (section 2's q), .r1cs or .wtns (section 1's r) to tell
// the curve, so a caller can pick the Zkey<bn254::Curve> or Zkey<bls12_381::Curve> reader.
Result<CurveId> detect_curve(const std::string& path);

}  // namespace cuzk::formats
