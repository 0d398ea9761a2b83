// verification_key.json as `cuzk verify` reads it, for both curves: a key that reads back
// must be written and read again unchanged.
#include <cstdint>

#include "formats/snarkjs_json.hpp"
#include "json_fuzz.hpp"

namespace {

using namespace cuzk;

template <class C>
void read_vk(const std::string& path) {
  auto vk = formats::read_vk_json<C>(path);
  if (!vk.is_ok()) return;
  CUZK_FUZZ_CHECK(vk->ic.size() == size_t(vk->n_public) + 1, "IC does not hold nPublic + 1 points");
  static fuzz::ScratchFile rewritten("rewritten-vk.json");
  Status w = formats::write_vk_json<C>(rewritten.path(), *vk);
  CUZK_FUZZ_CHECK(w.is_ok(), w.message());
  auto again = formats::read_vk_json<C>(rewritten.path());
  CUZK_FUZZ_CHECK(again.is_ok(), again.status().message());
  CUZK_FUZZ_CHECK(again->n_public == vk->n_public && again->alpha1 == vk->alpha1 && again->beta2 == vk->beta2 &&
                      again->gamma2 == vk->gamma2 && again->delta2 == vk->delta2 && again->ic == vk->ic &&
                      again->alphabeta_12 == vk->alphabeta_12,
                  "verification key changed in a rewrite");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static fuzz::ScratchFile input("vk.json");
  input.write({data, size});
  fuzz::check_json_round_trip(input.path());
  read_vk<bn254::Curve>(input.path());
  read_vk<bls12_381::Curve>(input.path());
  return 0;
}
