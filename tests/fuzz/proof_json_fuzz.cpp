// proof.json as `cuzk verify` reads it, for both curves: a proof that reads back must be
// written and read again unchanged.
#include <cstdint>

#include "formats/snarkjs_json.hpp"
#include "json_fuzz.hpp"

namespace {

using namespace cuzk;

template <class C>
void read_proof(const std::string& path) {
  auto p = formats::read_proof_json<C>(path);
  if (!p.is_ok()) return;
  static fuzz::ScratchFile rewritten("rewritten-proof.json");
  Status w = formats::write_proof_json<C>(rewritten.path(), *p);
  CUZK_FUZZ_CHECK(w.is_ok(), w.message());
  auto again = formats::read_proof_json<C>(rewritten.path());
  CUZK_FUZZ_CHECK(again.is_ok(), again.status().message());
  CUZK_FUZZ_CHECK(*again == *p, "proof changed in a rewrite");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static fuzz::ScratchFile input("proof.json");
  input.write({data, size});
  fuzz::check_json_round_trip(input.path());
  read_proof<bn254::Curve>(input.path());
  read_proof<bls12_381::Curve>(input.path());
  return 0;
}
