// The .zkey reader as `cuzk prove` reaches it: detect_curve, then Zkey<C>::open on the
// mapped file with every point checked. A key that reads back must survive write_zkey and
// a second read unchanged.
#include <algorithm>
#include <cstdint>
#include <span>

#include "formats/curve_id.hpp"
#include "formats/zkey.hpp"
#include "fuzz_util.hpp"

namespace {

using namespace cuzk;

template <class T>
bool same(std::span<const T> a, std::span<const T> b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

template <class C>
void read_key(const std::string& path, bool one_shot) {
  formats::ZkeyReadOptions opts;
  opts.threads = 1;
  opts.keep_resident = !one_shot;
  auto z = formats::Zkey<C>::open(path, opts);
  if (!z.is_ok()) {
    CUZK_FUZZ_CHECK(!z.status().message().empty(), "an error without a message");
    return;
  }
  static fuzz::ScratchFile rewritten("rewritten.zkey");
  Status w = formats::write_zkey<C>(rewritten.path(), z->contents());
  CUZK_FUZZ_CHECK(w.is_ok(), w.message());
  auto again = formats::Zkey<C>::open(rewritten.path(), opts);
  CUZK_FUZZ_CHECK(again.is_ok(), again.status().message());
  const auto &h1 = z->header(), &h2 = again->header();
  CUZK_FUZZ_CHECK(h1.n_vars == h2.n_vars && h1.n_public == h2.n_public && h1.domain_size == h2.domain_size &&
                      h1.alpha1 == h2.alpha1 && h1.beta1 == h2.beta1 && h1.delta1 == h2.delta1 &&
                      h1.beta2 == h2.beta2 && h1.gamma2 == h2.gamma2 && h1.delta2 == h2.delta2,
                  "header changed in a rewrite");
  CUZK_FUZZ_CHECK(same(z->ic(), again->ic()) && same(z->a(), again->a()) && same(z->b1(), again->b1()) &&
                      same(z->b2(), again->b2()) && same(z->c(), again->c()) && same(z->h(), again->h()),
                  "points changed in a rewrite");
  CUZK_FUZZ_CHECK(same(z->coefficients().bytes(), again->coefficients().bytes()), "coefficients changed");
  CUZK_FUZZ_CHECK(again->mpc().has_value(), "the rewritten key has no MPC section");
  if (z->mpc()) CUZK_FUZZ_CHECK(z->mpc()->raw == again->mpc()->raw, "MPC section changed in a rewrite");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static fuzz::ScratchFile input("input.zkey");
  input.write({data, size});
  auto id = formats::detect_curve(input.path());
  // The reader of the detected curve, as cuzk prove runs it, and the other one (which must
  // reject the key cleanly).
  bool bn = id.is_ok() && *id == formats::CurveId::kBn254;
  read_key<bn254::Curve>(input.path(), bn);
  read_key<bls12_381::Curve>(input.path(), id.is_ok() && !bn);
  return 0;
}
