// The .wtns reader as `cuzk prove` reaches it (read_wtns on the mapped file, for the
// key's curve) and as the daemon does (parse_wtns on bytes): both must agree, and a
// witness that reads back must survive write_wtns unchanged.
#include <cstdint>

#include "ff/fields.hpp"
#include "formats/curve_id.hpp"
#include "formats/wtns.hpp"
#include "fuzz_util.hpp"

namespace {

using namespace cuzk;

template <class Fr>
void read_witness(const std::string& path, std::span<const uint8_t> bytes) {
  auto from_file = formats::read_wtns<Fr>(path);
  auto from_bytes = formats::parse_wtns<Fr>(bytes, formats::file_label(path));
  CUZK_FUZZ_CHECK(from_file.is_ok() == from_bytes.is_ok(), "file and byte readers disagree");
  if (!from_file.is_ok()) {
    CUZK_FUZZ_CHECK(from_file.status().message() == from_bytes.status().message(), from_file.status().message());
    return;
  }
  CUZK_FUZZ_CHECK(from_file->values == from_bytes->values, "file and byte readers read different values");
  static fuzz::ScratchFile rewritten("rewritten.wtns");
  Status w = formats::write_wtns<Fr>(rewritten.path(), from_file->values);
  CUZK_FUZZ_CHECK(w.is_ok(), w.message());
  auto again = formats::read_wtns<Fr>(rewritten.path());
  CUZK_FUZZ_CHECK(again.is_ok(), again.status().message());
  CUZK_FUZZ_CHECK(again->values == from_file->values, "values changed in a rewrite");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static fuzz::ScratchFile input("input.wtns");
  input.write({data, size});
  (void)formats::detect_curve(input.path());
  read_witness<bn254::Fr>(input.path(), {data, size});
  read_witness<bls12_381::Fr>(input.path(), {data, size});
  return 0;
}
