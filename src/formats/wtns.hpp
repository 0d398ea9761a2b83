// Witness files (.wtns, version 2) as circom's witness calculator and snarkjs write them:
//   section 1: u32 n8 | prime[n8] (r, little-endian) | u32 nWitness
//   section 2: nWitness values, each n8 bytes little-endian in *standard* form.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "formats/binfile.hpp"
#include "formats/curve_id.hpp"
#include "formats/field_header.hpp"
#include "formats/mapped_file.hpp"

namespace cuzk::formats {

namespace wtns_section {
enum : uint32_t { kHeader = 1, kValues = 2 };
const char* name(uint32_t id);
}  // namespace wtns_section

// The values as stored: canonical integers below r. A prover uses them as they are
// (MSM scalars, and against the zkey's R²-form coefficients); field() converts.
template <class Fr>
struct Witness {
  using Int = typename Fr::Int;
  std::vector<Int> values;  // values[0] == 1, then outputs, public inputs, private inputs, internals

  size_t size() const { return values.size(); }
  Fr field(size_t i) const { return Fr::from_canonical(values[i]); }
};

template <class Fr>
Result<Witness<Fr>> read_wtns(const std::string& path);

// The same checks on a .wtns already in memory (a daemon receives witnesses as bytes);
// `label` names it in messages.
template <class Fr>
Result<Witness<Fr>> parse_wtns(std::span<const uint8_t> bytes, const std::string& label);

template <class Fr>
Status write_wtns(const std::string& path, std::span<const typename Fr::Int> values);

// ---------------------------------------------------------------------------------------

template <class Fr>
Result<Witness<Fr>> read_wtns(const std::string& path) {
  CUZK_ASSIGN_OR_RETURN(MappedFile file, MappedFile::open(path));
  return parse_wtns<Fr>(file.bytes(), file_label(path));
}

template <class Fr>
Result<Witness<Fr>> parse_wtns(std::span<const uint8_t> bytes, const std::string& label) {
  CUZK_ASSIGN_OR_RETURN(BinFile bin, BinFile::parse(bytes, label, "wtns", 2, 2, &wtns_section::name));
  constexpr uint32_t n8 = uint32_t(Fr::BYTES);  // read_scalar_field_prime checks the file's n8
  uint32_t n = 0;
  {
    CUZK_ASSIGN_OR_RETURN(auto sec, bin.section(wtns_section::kHeader));
    SectionReader in(sec, bin.where(wtns_section::kHeader));
    CUZK_RETURN_IF_ERROR(read_scalar_field_prime<Fr>(in));
    CUZK_RETURN_IF_ERROR(in.u32(n, "nWitness"));
    CUZK_RETURN_IF_ERROR(in.expect_end());
  }
  CUZK_ASSIGN_OR_RETURN(auto sec, bin.section(wtns_section::kValues));
  std::string where = bin.where(wtns_section::kValues);
  if (sec.size() != uint64_t(n) * n8) {
    return data_loss(where + " has " + std::to_string(sec.size()) + " bytes, expected " +
                     std::to_string(uint64_t(n) * n8) + " (nWitness " + std::to_string(n) + " x " +
                     std::to_string(n8) + ")");
  }
  Witness<Fr> w;
  w.values.resize(n);
  // The values are little-endian integers of n8 bytes: on a little-endian host with no padding
  // in Int that is Int's layout, so one copy, then the range check (a witness of 2^24 values
  // is 512 MiB to 1 GiB: a daemon parses it on the submitting thread).
  if constexpr (std::endian::native == std::endian::little && sizeof(typename Fr::Int) == n8) {
    std::memcpy(w.values.data(), sec.data(), size_t(n) * n8);
  } else {
    for (uint32_t i = 0; i < n; ++i) w.values[i] = Fr::read_le(sec.data() + size_t(i) * n8);
  }
  for (uint32_t i = 0; i < n; ++i) {
    if (!w.values[i].less_than(Fr::MODULUS)) {
      return data_loss(where + ": value " + std::to_string(i) + " is not reduced below r");
    }
  }
  if (n == 0 || w.values[0] != Fr::Int::from_u64(1)) {
    return data_loss(where + ": value 0 (the constant wire) must be 1");
  }
  return w;
}

template <class Fr>
Status write_wtns(const std::string& path, std::span<const typename Fr::Int> values) {
  if (values.size() > UINT32_MAX) return invalid_argument(path + ": too many witness values");
  BinWriter w;
  CUZK_RETURN_IF_ERROR(w.open(path, "wtns", 2, 2));
  CUZK_RETURN_IF_ERROR(w.begin_section(wtns_section::kHeader));
  uint8_t buf[Fr::BYTES];
  CUZK_RETURN_IF_ERROR(w.write_u32(Fr::BYTES));
  Fr::write_le(Fr::MODULUS, buf);
  CUZK_RETURN_IF_ERROR(w.write(buf, Fr::BYTES));
  CUZK_RETURN_IF_ERROR(w.write_u32(uint32_t(values.size())));
  CUZK_RETURN_IF_ERROR(w.end_section());
  CUZK_RETURN_IF_ERROR(w.begin_section(wtns_section::kValues));
  for (const auto& v : values) {
    Fr::write_le(v, buf);
    CUZK_RETURN_IF_ERROR(w.write(buf, Fr::BYTES));
  }
  CUZK_RETURN_IF_ERROR(w.end_section());
  return w.close();
}

}  // namespace cuzk::formats
