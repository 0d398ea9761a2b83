#include "formats/curve_id.hpp"

#include <cstring>

#include "ff/fields.hpp"
#include "formats/binfile.hpp"
#include "formats/mapped_file.hpp"

namespace cuzk::formats {

namespace {

template <class F>
bool is_modulus(std::span<const uint8_t> le) {
  if (le.size() != F::BYTES) return false;
  return F::read_le(le.data()) == F::MODULUS;
}

}  // namespace

const char* snarkjs_curve_name(CurveId id) { return id == CurveId::kBn254 ? "bn128" : "bls12381"; }

Result<CurveId> curve_from_prime(std::span<const uint8_t> prime_le, char* which) {
  auto set = [&](char w) {
    if (which != nullptr) *which = w;
  };
  if (is_modulus<bn254::Fq>(prime_le)) return set('q'), CurveId::kBn254;
  if (is_modulus<bn254::Fr>(prime_le)) return set('r'), CurveId::kBn254;
  if (is_modulus<bls12_381::Fq>(prime_le)) return set('q'), CurveId::kBls12_381;
  if (is_modulus<bls12_381::Fr>(prime_le)) return set('r'), CurveId::kBls12_381;
  return invalid_argument("prime of " + std::to_string(prime_le.size()) +
                          " bytes is not a field prime of bn128 or bls12381");
}

Result<CurveId> detect_curve(const std::string& path) {
  CUZK_ASSIGN_OR_RETURN(MappedFile file, MappedFile::open(path));
  std::string label = file_label(path);
  if (file.size() < 4) return data_loss(label + ": too short to hold a file type");
  std::string magic(reinterpret_cast<const char*>(file.data()), 4);
  // The header section holding the prime, and the one version each reader takes.
  uint32_t header_id = 0, version = 0;
  if (magic == "zkey") {
    header_id = 2, version = 1;
  } else if (magic == "r1cs") {
    header_id = 1, version = 1;
  } else if (magic == "wtns") {
    header_id = 1, version = 2;
  } else {
    std::string shown;
    for (char c : magic) shown += (c >= 0x20 && c < 0x7f) ? c : '?';
    return invalid_argument(label + ": not a .zkey, .r1cs or .wtns file (magic \"" + shown + "\")");
  }
  CUZK_ASSIGN_OR_RETURN(BinFile bin, BinFile::parse(file.bytes(), label, magic, version, version, nullptr));
  CUZK_ASSIGN_OR_RETURN(std::span<const uint8_t> sec, bin.section(header_id));
  // Both header sections start with "u32 n8; prime[n8]".
  SectionReader in(sec, bin.where(header_id));
  uint32_t n8 = 0;
  std::span<const uint8_t> prime;
  CUZK_RETURN_IF_ERROR(in.u32(n8, "n8"));
  CUZK_RETURN_IF_ERROR(in.bytes(n8, prime, "prime"));
  auto id = curve_from_prime(prime);
  if (!id) return id.status().with_context(bin.where(header_id));
  return id;
}

}  // namespace cuzk::formats
