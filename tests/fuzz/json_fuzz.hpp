// Shared by the snarkjs JSON targets: the input as a file read by read_json_file (as
// `cuzk verify` reads it), and the parser's own property: what it reads, it writes back in
// a form that parses to the same value, compact or indented.
#pragma once

#include "formats/json.hpp"
#include "fuzz_util.hpp"

namespace cuzk::fuzz {

inline void check_json_round_trip(const std::string& path) {
  auto j = formats::read_json_file(path);
  if (!j.is_ok()) return;
  for (int indent : {-1, 1}) {
    auto again = formats::Json::parse(j->dump(indent));
    CUZK_FUZZ_CHECK(again.is_ok(), again.status().message());
    CUZK_FUZZ_CHECK(*again == *j, "a dumped document parses to another value");
  }
}

}  // namespace cuzk::fuzz
