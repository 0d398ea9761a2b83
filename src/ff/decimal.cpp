#include "ff/decimal.hpp"

#include <algorithm>
#include <vector>

namespace cuzk::ff::detail {

std::string limbs_to_decimal(const uint64_t* limbs, size_t n) {
  std::vector<uint64_t> x(limbs, limbs + n);
  std::string out;
  auto nonzero = [&] { return std::any_of(x.begin(), x.end(), [](uint64_t v) { return v != 0; }); };
  if (!nonzero()) return "0";
  // Repeated division by 10^19, the largest power of ten in a limb.
  constexpr uint64_t kChunk = 10000000000000000000ull;
  while (nonzero()) {
    unsigned __int128 rem = 0;
    for (size_t i = n; i-- > 0;) {
      unsigned __int128 cur = (rem << 64) | x[i];
      x[i] = uint64_t(cur / kChunk);
      rem = cur % kChunk;
    }
    uint64_t r = uint64_t(rem);
    for (int d = 0; d < 19; ++d) {
      out.push_back(char('0' + r % 10));
      r /= 10;
    }
  }
  while (out.size() > 1 && out.back() == '0') out.pop_back();
  std::reverse(out.begin(), out.end());
  return out;
}

bool limbs_from_decimal(std::string_view s, uint64_t* limbs, size_t n) {
  if (s.empty()) return false;
  std::fill(limbs, limbs + n, 0);
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    uint64_t carry = uint64_t(c - '0');
    for (size_t i = 0; i < n; ++i) {
      unsigned __int128 t = (unsigned __int128)limbs[i] * 10 + carry;
      limbs[i] = uint64_t(t);
      carry = uint64_t(t >> 64);
    }
    if (carry != 0) return false;
  }
  return true;
}

std::string limbs_to_hex(const uint64_t* limbs, size_t n) {
  static const char* kDigits = "0123456789abcdef";
  std::string out = "0x";
  bool started = false;
  for (size_t i = n; i-- > 0;) {
    for (int sh = 60; sh >= 0; sh -= 4) {
      unsigned d = (limbs[i] >> sh) & 0xf;
      if (d == 0 && !started) continue;
      started = true;
      out.push_back(kDigits[d]);
    }
  }
  if (!started) out.push_back('0');
  return out;
}

}  // namespace cuzk::ff::detail
