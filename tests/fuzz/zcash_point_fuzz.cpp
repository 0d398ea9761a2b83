// The zcash/bellperson point decoders of BLS12-381 (G1 and G2, compressed and
// uncompressed). The first byte picks the decoder; the rest is the encoding. A point that
// decodes must encode to exactly the input bytes, and the subgroup check may only reject.
#include <cstdint>
#include <span>
#include <vector>

#include "ec/encoding.hpp"
#include "fuzz_util.hpp"

namespace {

using namespace cuzk;

template <class G>
void decode(std::span<const uint8_t> in, ec::Form form) {
  auto checked = ec::zcash_decode<G>(in, form);
  auto unchecked = ec::zcash_decode<G>(in, form, ec::DecodeOptions{.check_subgroup = false});
  if (checked.is_ok()) {
    CUZK_FUZZ_CHECK(unchecked.is_ok() && *unchecked == *checked, "the subgroup check changed the point");
  }
  if (!unchecked.is_ok()) return;
  std::vector<uint8_t> out = ec::zcash_encode(*unchecked, form);
  CUZK_FUZZ_CHECK(std::equal(out.begin(), out.end(), in.begin(), in.end()), "decode then encode changed the bytes");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::span<const uint8_t> in(data + 1, size - 1);
  switch (data[0] % 4) {
    case 0:
      decode<bls12_381::G1Config>(in, ec::Form::kCompressed);
      break;
    case 1:
      decode<bls12_381::G1Config>(in, ec::Form::kUncompressed);
      break;
    case 2:
      decode<bls12_381::G2Config>(in, ec::Form::kCompressed);
      break;
    default:
      decode<bls12_381::G2Config>(in, ec::Form::kUncompressed);
      break;
  }
  return 0;
}
