// The `u32 n8; prime[n8]` pair that opens the header of .r1cs and .wtns files.
#pragma once

#include <span>
#include <string>

#include "core/status.hpp"
#include "formats/binfile.hpp"
#include "formats/curve_id.hpp"

namespace cuzk::formats {

// Reads n8 and the prime, and checks that they describe the scalar field Fr; the error
// names the curve the file was made for when the prime is another known one.
template <class Fr>
Status read_scalar_field_prime(SectionReader& in) {
  uint32_t n8 = 0;
  std::span<const uint8_t> prime;
  CUZK_RETURN_IF_ERROR(in.u32(n8, "n8"));
  if (n8 != Fr::BYTES) {
    return invalid_argument(in.where() + ": n8 is " + std::to_string(n8) + ", expected " + std::to_string(Fr::BYTES));
  }
  CUZK_RETURN_IF_ERROR(in.bytes(n8, prime, "prime"));
  if (Fr::read_le(prime.data()) != Fr::MODULUS) {
    auto id = curve_from_prime(prime);
    std::string got = id ? std::string("the ") + snarkjs_curve_name(*id) + " prime" : "an unknown prime";
    return invalid_argument(in.where() + ": prime is " + got + ", expected the scalar field of " + Fr::Params::NAME +
                            " (wrong curve?)");
  }
  return Status::ok();
}

}  // namespace cuzk::formats
