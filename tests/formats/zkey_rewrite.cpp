// Reads a .zkey with the formats reader and writes it back with the formats writer, so
// snarkjs can be run on the result (snarkjs_accepts_rewritten_zkey.sh).
// usage: zkey_rewrite IN OUT [--drop-mpc]
#include <cstdio>
#include <cstring>
#include <string>

#include "formats/zkey.hpp"

namespace {

template <class C>
cuzk::Status rewrite(const std::string& in, const std::string& out, bool drop_mpc) {
  CUZK_ASSIGN_OR_RETURN(auto z, cuzk::formats::Zkey<C>::open(in));
  auto contents = z.contents();
  if (drop_mpc) contents.mpc = {};
  return cuzk::formats::write_zkey<C>(out, contents);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || (argc == 4 && std::strcmp(argv[3], "--drop-mpc") != 0) || argc > 4) {
    std::fprintf(stderr, "usage: %s IN OUT [--drop-mpc]\n", argv[0]);
    return 2;
  }
  bool drop = argc == 4;
  auto id = cuzk::formats::detect_curve(argv[1]);
  if (!id.is_ok()) {
    std::fprintf(stderr, "%s\n", id.status().to_string().c_str());
    return 1;
  }
  cuzk::Status s = *id == cuzk::formats::CurveId::kBn254 ? rewrite<cuzk::bn254::Curve>(argv[1], argv[2], drop)
                                                         : rewrite<cuzk::bls12_381::Curve>(argv[1], argv[2], drop);
  if (!s.is_ok()) {
    std::fprintf(stderr, "%s\n", s.to_string().c_str());
    return 1;
  }
  return 0;
}
