// circom constraint systems (.r1cs, version 1):
//   section 1 header: u32 n8 | prime[n8] (r) | u32 nVars | u32 nOutputs | u32 nPubInputs |
//                     u32 nPrvInputs | u64 nLabels | u32 nConstraints
//   section 2 constraints: per constraint the linear combinations A, B, C, each
//                     u32 nTerms then nTerms x { u32 wire | coef[n8] standard-form LE }
//   section 3 wire->label: nVars x u64
// A constraint means <A,w> * <B,w> - <C,w> = 0. Term order is kept as in the file.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "formats/binfile.hpp"
#include "formats/curve_id.hpp"
#include "formats/field_header.hpp"
#include "formats/mapped_file.hpp"

namespace cuzk::formats {

namespace r1cs_section {
enum : uint32_t { kHeader = 1, kConstraints = 2, kWireToLabel = 3, kCustomGatesList = 4, kCustomGatesUses = 5 };
const char* name(uint32_t id);
}  // namespace r1cs_section

template <class Fr>
struct R1csTerm {
  uint32_t wire = 0;
  Fr coef;
};

template <class Fr>
struct R1cs {
  using Term = R1csTerm<Fr>;
  uint32_t n_vars = 0;  // wires, wire 0 = 1
  uint32_t n_outputs = 0;
  uint32_t n_pub_inputs = 0;
  uint32_t n_prv_inputs = 0;
  uint64_t n_labels = 0;
  uint32_t n_constraints = 0;
  // Linear combination k (= 3*constraint + 0/1/2 for A/B/C) is terms[offsets[k], offsets[k+1]).
  std::vector<Term> terms;
  std::vector<uint64_t> offsets{0};
  std::vector<uint64_t> wire_to_label;  // empty when the file has no section 3

  uint32_t n_public() const { return n_outputs + n_pub_inputs; }
  std::span<const Term> lc(size_t constraint, int which) const {
    size_t k = 3 * constraint + size_t(which);
    return std::span<const Term>(terms).subspan(offsets[k], offsets[k + 1] - offsets[k]);
  }
  std::span<const Term> a(size_t i) const { return lc(i, 0); }
  std::span<const Term> b(size_t i) const { return lc(i, 1); }
  std::span<const Term> c(size_t i) const { return lc(i, 2); }

  // Appends one constraint (for building systems in code and tests).
  void add_constraint(std::span<const Term> a, std::span<const Term> b, std::span<const Term> c) {
    for (auto lc : {a, b, c}) {
      terms.insert(terms.end(), lc.begin(), lc.end());
      offsets.push_back(terms.size());
    }
    ++n_constraints;
  }
  // True when every constraint holds for the witness w (field elements).
  bool is_satisfied(std::span<const Fr> w) const {
    auto eval = [&](std::span<const Term> lc) {
      Fr acc = Fr::zero();
      for (const Term& t : lc) acc += t.coef * w[t.wire];
      return acc;
    };
    for (size_t i = 0; i < n_constraints; ++i) {
      if (eval(a(i)) * eval(b(i)) != eval(c(i))) return false;
    }
    return true;
  }
};

template <class Fr>
Result<R1cs<Fr>> read_r1cs(const std::string& path);

template <class Fr>
Status write_r1cs(const std::string& path, const R1cs<Fr>& r);

// ---------------------------------------------------------------------------------------

template <class Fr>
Result<R1cs<Fr>> read_r1cs(const std::string& path) {
  CUZK_ASSIGN_OR_RETURN(MappedFile file, MappedFile::open(path));
  CUZK_ASSIGN_OR_RETURN(BinFile bin, BinFile::parse(file.bytes(), file_label(path), "r1cs", 1, 1, &r1cs_section::name));
  for (uint32_t id : {r1cs_section::kCustomGatesList, r1cs_section::kCustomGatesUses}) {
    if (bin.has(id)) return invalid_argument(bin.where(id) + ": custom gates (PLONK only) are not supported");
  }
  R1cs<Fr> r;
  {
    CUZK_ASSIGN_OR_RETURN(auto sec, bin.section(r1cs_section::kHeader));
    SectionReader in(sec, bin.where(r1cs_section::kHeader));
    CUZK_RETURN_IF_ERROR(read_scalar_field_prime<Fr>(in));
    CUZK_RETURN_IF_ERROR(in.u32(r.n_vars, "nVars"));
    CUZK_RETURN_IF_ERROR(in.u32(r.n_outputs, "nOutputs"));
    CUZK_RETURN_IF_ERROR(in.u32(r.n_pub_inputs, "nPubInputs"));
    CUZK_RETURN_IF_ERROR(in.u32(r.n_prv_inputs, "nPrvInputs"));
    CUZK_RETURN_IF_ERROR(in.u64(r.n_labels, "nLabels"));
    CUZK_RETURN_IF_ERROR(in.u32(r.n_constraints, "nConstraints"));
    CUZK_RETURN_IF_ERROR(in.expect_end());
    uint64_t named = 1ull + r.n_outputs + r.n_pub_inputs + r.n_prv_inputs;
    if (named > r.n_vars) {
      return invalid_argument(in.where() + ": nVars " + std::to_string(r.n_vars) +
                              " is smaller than 1 + outputs + inputs = " + std::to_string(named));
    }
  }
  {
    CUZK_ASSIGN_OR_RETURN(auto sec, bin.section(r1cs_section::kConstraints));
    SectionReader in(sec, bin.where(r1cs_section::kConstraints));
    // Every constraint holds at least its three term counts, and every term 4 + n8 bytes:
    // the header's count is checked against the section before anything is reserved.
    constexpr uint64_t kMinConstraintBytes = 3 * 4;
    if (uint64_t(r.n_constraints) > sec.size() / kMinConstraintBytes) {
      return data_loss(in.where() + ": nConstraints " + std::to_string(r.n_constraints) + " needs at least " +
                       std::to_string(uint64_t(r.n_constraints) * kMinConstraintBytes) + " bytes, section has " +
                       std::to_string(sec.size()));
    }
    r.terms.reserve(sec.size() / (4 + Fr::BYTES));
    r.offsets.reserve(3 * size_t(r.n_constraints) + 1);
    static constexpr const char* kLc[] = {"A", "B", "C"};
    for (uint32_t i = 0; i < r.n_constraints; ++i) {
      for (int k = 0; k < 3; ++k) {
        uint32_t n_terms = 0;
        CUZK_RETURN_IF_ERROR(in.u32(n_terms, "nTerms"));
        for (uint32_t j = 0; j < n_terms; ++j) {
          R1csTerm<Fr> t;
          std::span<const uint8_t> coef;
          CUZK_RETURN_IF_ERROR(in.u32(t.wire, "wire id"));
          CUZK_RETURN_IF_ERROR(in.bytes(Fr::BYTES, coef, "coefficient"));
          auto at = [&] {
            return "constraint " + std::to_string(i) + " " + kLc[k] + " term " + std::to_string(j) + ": ";
          };
          if (t.wire >= r.n_vars) {
            return in.error(at() + "wire " + std::to_string(t.wire) + " is not below nVars " +
                            std::to_string(r.n_vars));
          }
          if (!Fr::from_bytes_le(coef.data(), t.coef)) return in.error(at() + "coefficient is not reduced below r");
          r.terms.push_back(t);
        }
        r.offsets.push_back(r.terms.size());
      }
    }
    CUZK_RETURN_IF_ERROR(in.expect_end());
  }
  if (bin.has(r1cs_section::kWireToLabel)) {
    CUZK_ASSIGN_OR_RETURN(auto sec, bin.section(r1cs_section::kWireToLabel));
    std::string where = bin.where(r1cs_section::kWireToLabel);
    if (sec.size() != uint64_t(r.n_vars) * 8) {
      return data_loss(where + " has " + std::to_string(sec.size()) + " bytes, expected " +
                       std::to_string(uint64_t(r.n_vars) * 8) + " (nVars x 8)");
    }
    r.wire_to_label.resize(r.n_vars);
    for (uint32_t i = 0; i < r.n_vars; ++i) {
      r.wire_to_label[i] = load_u64(sec.data() + 8 * size_t(i));
      if (r.wire_to_label[i] >= r.n_labels) {
        return data_loss(where + ": wire " + std::to_string(i) + " has label " + std::to_string(r.wire_to_label[i]) +
                         ", not below nLabels " + std::to_string(r.n_labels));
      }
    }
  }
  return r;
}

template <class Fr>
Status write_r1cs(const std::string& path, const R1cs<Fr>& r) {
  if (r.offsets.size() != 3 * size_t(r.n_constraints) + 1 || r.offsets.back() != r.terms.size()) {
    return invalid_argument(path + ": constraint offsets do not match nConstraints");
  }
  if (!r.wire_to_label.empty() && r.wire_to_label.size() != r.n_vars) {
    return invalid_argument(path + ": wire_to_label has " + std::to_string(r.wire_to_label.size()) +
                            " entries, expected nVars " + std::to_string(r.n_vars));
  }
  BinWriter w;
  CUZK_RETURN_IF_ERROR(w.open(path, "r1cs", 1, r.wire_to_label.empty() ? 2 : 3));
  CUZK_RETURN_IF_ERROR(w.begin_section(r1cs_section::kHeader));
  uint8_t buf[Fr::BYTES];
  CUZK_RETURN_IF_ERROR(w.write_u32(Fr::BYTES));
  Fr::write_le(Fr::MODULUS, buf);
  CUZK_RETURN_IF_ERROR(w.write(buf, Fr::BYTES));
  CUZK_RETURN_IF_ERROR(w.write_u32(r.n_vars));
  CUZK_RETURN_IF_ERROR(w.write_u32(r.n_outputs));
  CUZK_RETURN_IF_ERROR(w.write_u32(r.n_pub_inputs));
  CUZK_RETURN_IF_ERROR(w.write_u32(r.n_prv_inputs));
  CUZK_RETURN_IF_ERROR(w.write_u64(r.n_labels));
  CUZK_RETURN_IF_ERROR(w.write_u32(r.n_constraints));
  CUZK_RETURN_IF_ERROR(w.end_section());
  CUZK_RETURN_IF_ERROR(w.begin_section(r1cs_section::kConstraints));
  for (size_t k = 0; k + 1 < r.offsets.size(); ++k) {
    CUZK_RETURN_IF_ERROR(w.write_u32(uint32_t(r.offsets[k + 1] - r.offsets[k])));
    for (uint64_t t = r.offsets[k]; t < r.offsets[k + 1]; ++t) {
      CUZK_RETURN_IF_ERROR(w.write_u32(r.terms[t].wire));
      r.terms[t].coef.to_bytes_le(buf);
      CUZK_RETURN_IF_ERROR(w.write(buf, Fr::BYTES));
    }
  }
  CUZK_RETURN_IF_ERROR(w.end_section());
  if (!r.wire_to_label.empty()) {
    CUZK_RETURN_IF_ERROR(w.begin_section(r1cs_section::kWireToLabel));
    CUZK_RETURN_IF_ERROR(w.write(r.wire_to_label.data(), r.wire_to_label.size() * 8));
    CUZK_RETURN_IF_ERROR(w.end_section());
  }
  return w.close();
}

}  // namespace cuzk::formats
