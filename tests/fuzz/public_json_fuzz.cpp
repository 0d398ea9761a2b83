// public.json as `cuzk verify` reads it, for both scalar fields: signals that read back
// must be written and read again unchanged.
#include <cstdint>

#include "formats/snarkjs_json.hpp"
#include "json_fuzz.hpp"

namespace {

using namespace cuzk;

template <class Fr>
void read_public(const std::string& path) {
  auto pub = formats::read_public_json<Fr>(path);
  if (!pub.is_ok()) return;
  static fuzz::ScratchFile rewritten("rewritten-public.json");
  Status w = formats::write_public_json<Fr>(rewritten.path(), *pub);
  CUZK_FUZZ_CHECK(w.is_ok(), w.message());
  auto again = formats::read_public_json<Fr>(rewritten.path());
  CUZK_FUZZ_CHECK(again.is_ok(), again.status().message());
  CUZK_FUZZ_CHECK(*again == *pub, "public signals changed in a rewrite");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static fuzz::ScratchFile input("public.json");
  input.write({data, size});
  fuzz::check_json_round_trip(input.path());
  read_public<bn254::Fr>(input.path());
  read_public<bls12_381::Fr>(input.path());
  return 0;
}
