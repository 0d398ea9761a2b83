// What the engine knows about a proving key without holding it: its curve and sizes.
#pragma once

#include <cstdint>

#include "formats/curve_id.hpp"

namespace cuzk::engine {

struct KeyShape {
  formats::CurveId curve = formats::CurveId::kBn254;
  uint32_t n_vars = 0, n_public = 0, domain_size = 0;
  uint64_t key_bytes = 0;  // the key file's size: what it costs the key cache

  // Bytes of one field element of this curve's scalar field (both curves: 32).
  static constexpr uint64_t kFrBytes = 32;
  uint64_t witness_bytes() const { return uint64_t(n_vars) * kFrBytes; }
  uint64_t domain_bytes() const { return uint64_t(domain_size) * kFrBytes; }
};

}  // namespace cuzk::engine
