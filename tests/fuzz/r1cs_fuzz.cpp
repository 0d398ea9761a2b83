// The .r1cs reader as `cuzk setup` reaches it: detect_curve, then read_r1cs on the mapped
// file. A system that reads back must survive write_r1cs unchanged.
#include <cstdint>

#include "ff/fields.hpp"
#include "formats/curve_id.hpp"
#include "formats/r1cs.hpp"
#include "fuzz_util.hpp"

namespace {

using namespace cuzk;

template <class Fr>
void read_system(const std::string& path) {
  auto r = formats::read_r1cs<Fr>(path);
  if (!r.is_ok()) return;
  CUZK_FUZZ_CHECK(r->offsets.size() == 3 * size_t(r->n_constraints) + 1, "offsets do not match nConstraints");
  static fuzz::ScratchFile rewritten("rewritten.r1cs");
  Status w = formats::write_r1cs<Fr>(rewritten.path(), *r);
  CUZK_FUZZ_CHECK(w.is_ok(), w.message());
  auto again = formats::read_r1cs<Fr>(rewritten.path());
  CUZK_FUZZ_CHECK(again.is_ok(), again.status().message());
  CUZK_FUZZ_CHECK(again->n_vars == r->n_vars && again->n_outputs == r->n_outputs &&
                      again->n_pub_inputs == r->n_pub_inputs && again->n_prv_inputs == r->n_prv_inputs &&
                      again->n_labels == r->n_labels && again->n_constraints == r->n_constraints &&
                      again->offsets == r->offsets && again->wire_to_label == r->wire_to_label,
                  "header or layout changed in a rewrite");
  for (size_t i = 0; i < r->terms.size(); ++i) {
    CUZK_FUZZ_CHECK(again->terms[i].wire == r->terms[i].wire && again->terms[i].coef == r->terms[i].coef,
                    "term " + std::to_string(i) + " changed in a rewrite");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static fuzz::ScratchFile input("input.r1cs");
  input.write({data, size});
  (void)formats::detect_curve(input.path());
  read_system<bn254::Fr>(input.path());
  read_system<bls12_381::Fr>(input.path());
  return 0;
}
