// The snarkjs binary point decoders (little-endian Montgomery x || y) of both curves' G1
// and G2. The first byte picks the decoder; the rest is the encoding. A point that decodes
// must encode to exactly the input bytes and survive the JSON decimal form unchanged.
#include <cstdint>
#include <span>
#include <vector>

#include "ec/encoding.hpp"
#include "fuzz_util.hpp"

namespace {

using namespace cuzk;

template <class G>
void decode(std::span<const uint8_t> in) {
  auto checked = ec::snarkjs_decode<G>(in);
  auto unchecked = ec::snarkjs_decode<G>(in, ec::DecodeOptions{.check_subgroup = false});
  if (checked.is_ok()) {
    CUZK_FUZZ_CHECK(unchecked.is_ok() && *unchecked == *checked, "the subgroup check changed the point");
  }
  if (!unchecked.is_ok()) return;
  std::vector<uint8_t> out = ec::snarkjs_encode(*unchecked);
  CUZK_FUZZ_CHECK(std::equal(out.begin(), out.end(), in.begin(), in.end()), "decode then encode changed the bytes");
  auto json = ec::json_decode<G>(ec::json_encode(*unchecked), ec::DecodeOptions{.check_subgroup = false});
  CUZK_FUZZ_CHECK(json.is_ok(), json.status().message());
  CUZK_FUZZ_CHECK(*json == *unchecked, "the JSON form changed the point");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::span<const uint8_t> in(data + 1, size - 1);
  switch (data[0] % 4) {
    case 0:
      decode<bn254::G1Config>(in);
      break;
    case 1:
      decode<bn254::G2Config>(in);
      break;
    case 2:
      decode<bls12_381::G1Config>(in);
      break;
    default:
      decode<bls12_381::G2Config>(in);
      break;
  }
  return 0;
}
