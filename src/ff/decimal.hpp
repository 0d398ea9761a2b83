// Decimal and hexadecimal text for field elements and big integers (host only):
// the form snarkjs writes in proof.json, public.json and verification_key.json.
#pragma once

#include <string>
#include <string_view>

#include "ff/bigint.hpp"

namespace cuzk::ff {

namespace detail {
std::string limbs_to_decimal(const uint64_t* limbs, size_t n);
// Parses unsigned decimal digits into n limbs; false on a non-digit, empty input or overflow.
bool limbs_from_decimal(std::string_view s, uint64_t* limbs, size_t n);
std::string limbs_to_hex(const uint64_t* limbs, size_t n);
}  // namespace detail

template <size_t N>
std::string to_decimal(const BigInt<N>& x) {
  return detail::limbs_to_decimal(x.limb, N);
}
template <size_t N>
bool from_decimal(std::string_view s, BigInt<N>& out) {
  return detail::limbs_from_decimal(s, out.limb, N);
}
template <size_t N>
std::string to_hex(const BigInt<N>& x) {
  return detail::limbs_to_hex(x.limb, N);
}

// Field helpers: canonical decimal text, and parsing that rejects values >= p.
template <class F>
std::string field_to_decimal(const F& x) {
  return to_decimal(x.to_canonical());
}
template <class F>
bool field_from_decimal(std::string_view s, F& out) {
  typename F::Int v{};
  return from_decimal(s, v) && F::from_canonical_checked(v, out);
}

}  // namespace cuzk::ff
