// The .wtns reader as `cuzk prove` reaches it (read_wtns on the mapped file, for the
// key's curve), on bytes (parse_wtns) and as the daemon does (the file read into a
// WtnsBuffer, locate_wtns, the values borrowed in place and range-checked on a pool): all
// must agree, and a witness that reads back must survive write_wtns unchanged.
#include <algorithm>
#include <cstdint>

#include "core/thread_pool.hpp"
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
    // The daemon's reader refuses it too, with the same message.
    auto buf = formats::WtnsBuffer::copy_of(bytes);
    CUZK_FUZZ_CHECK(buf.is_ok(), buf.status().message());
    auto at = formats::locate_wtns<Fr>(buf->bytes(), formats::file_label(path));
    Status daemon = at.is_ok() ? formats::borrow_wtns_values<Fr>(*buf, *at).status() : at.status();
    CUZK_FUZZ_CHECK(!daemon.is_ok() && daemon.message() == from_file.status().message(),
                    "the daemon's reader disagrees: " + daemon.message());
    return;
  }
  CUZK_FUZZ_CHECK(from_file->values == from_bytes->values, "file and byte readers read different values");
  static ThreadPool pool(3);
  auto buf = formats::WtnsBuffer::read_file(path, uint64_t(1) << 32);
  CUZK_FUZZ_CHECK(buf.is_ok(), buf.status().message());
  auto at = formats::locate_wtns<Fr>(buf->bytes(), formats::file_label(path));
  CUZK_FUZZ_CHECK(at.is_ok(), at.status().message());
  auto borrowed = formats::borrow_wtns_values<Fr>(*buf, *at, &pool);
  CUZK_FUZZ_CHECK(borrowed.is_ok(), borrowed.status().message());
  CUZK_FUZZ_CHECK(std::equal(borrowed->begin(), borrowed->end(), from_file->values.begin(), from_file->values.end()),
                  "the daemon's reader reads different values");
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
