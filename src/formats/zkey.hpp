// snarkjs Groth16 proving keys (.zkey), read and written for one curve bundle C
// (bn254::Curve or bls12_381::Curve; formats::detect_curve tells which a file needs).
//
// Sections (any order on disk; docs: /work/shared/reference/snarkjs-formats.md §4):
//   1 header (protocol 1 = Groth16)   2 Groth header (primes, sizes, alpha1 .. delta2)
//   3 IC (nPublic+1 G1)   4 coefficients   5 A (nVars G1)   6 B1 (nVars G1)   7 B2 (nVars G2)
//   8 C (nVars-nPublic-1 G1)   9 H (domainSize G1)   10 MPC params (optional when reading)
//
// Point sections are spans of ec::Affine over the file mapping (no copy when aligned).
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "ec/curves.hpp"
#include "formats/binfile.hpp"
#include "formats/curve_id.hpp"
#include "formats/mapped_file.hpp"
#include "formats/point_table.hpp"

namespace cuzk::formats {

namespace zkey_section {
enum : uint32_t {
  kHeader = 1,
  kGrothHeader = 2,
  kIc = 3,
  kCoefficients = 4,
  kA = 5,
  kB1 = 6,
  kB2 = 7,
  kC = 8,
  kH = 9,
  kMpc = 10,
};
const char* name(uint32_t id);
}  // namespace zkey_section

template <class C>
struct ZkeyHeader {
  using G1 = ec::Affine<typename C::G1>;
  using G2 = ec::Affine<typename C::G2>;
  uint32_t n_vars = 0;       // wires, including wire 0 = 1
  uint32_t n_public = 0;     // public signals (outputs then public inputs), wires 1..n_public
  uint32_t domain_size = 0;  // power of two >= nConstraints + nPublic + 1
  G1 alpha1, beta1, delta1;
  G2 beta2, gamma2, delta2;
};

// One entry of section 4: matrix 0 = A, 1 = B (C is implied by C = A∘B on the domain).
//
// `value` is the stored field element exactly as snarkjs keeps it: its Montgomery limbs
// are the file's bytes, which hold coef·R² mod r, so `value` represents coef·R.
// How a prover uses it: wrap the limbs of a standard-form witness value w (as .wtns stores
// it) unchanged, W = Fr::from_mont(w_limbs), which represents w/R. Then value * W
// represents coef·R · w/R = coef·w: one Montgomery product yields the true term, with no
// conversion of the witness (snarkjs's buildABC does the same). coefficient() gives coef.
template <class Fr>
struct ZkeyCoefficient {
  uint32_t matrix = 0;
  uint32_t constraint = 0;
  uint32_t signal = 0;
  Fr value;

  // The true coefficient of the R1CS (undoing the extra R factor).
  Fr coefficient() const { return Fr::from_mont(value.to_canonical()); }
  // The stored form of a plain coefficient: the inverse of coefficient().
  static Fr stored(const Fr& coef) { return Fr::from_canonical(coef.mont()); }
};

// Section 4's entries where they lie (the file mapping), decoded on access: a key's
// coefficients are read once per proof, so copying them would only add to the memory a
// proof needs. Entries are 12 + Fr::BYTES bytes: matrix, constraint, signal (u32 LE) and
// the value's Montgomery limbs (LE). A reader validates every entry before handing one out.
template <class Fr>
class CoefficientTable {
 public:
  static constexpr size_t kEntryBytes = 12 + Fr::BYTES;

  CoefficientTable() = default;
  // `entries` holds whole entries and must outlive the table (it is not copied).
  explicit CoefficientTable(std::span<const uint8_t> entries) : bytes_(entries) {}

  size_t size() const { return bytes_.size() / kEntryBytes; }
  bool empty() const { return size() == 0; }
  std::span<const uint8_t> bytes() const { return bytes_; }

  uint32_t matrix(size_t i) const { return word(i, 0); }
  uint32_t constraint(size_t i) const { return word(i, 4); }
  uint32_t signal(size_t i) const { return word(i, 8); }
  Fr value(size_t i) const { return Fr::from_mont(Fr::read_le(entry(i) + 12)); }
  ZkeyCoefficient<Fr> operator[](size_t i) const { return {matrix(i), constraint(i), signal(i), value(i)}; }

  class Iterator {
   public:
    Iterator(const CoefficientTable* t, size_t i) : t_(t), i_(i) {}
    ZkeyCoefficient<Fr> operator*() const { return (*t_)[i_]; }
    Iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator!=(const Iterator& o) const { return i_ != o.i_; }

   private:
    const CoefficientTable* t_;
    size_t i_;
  };
  Iterator begin() const { return {this, 0}; }
  Iterator end() const { return {this, size()}; }

 private:
  const uint8_t* entry(size_t i) const { return bytes_.data() + i * kEntryBytes; }
  uint32_t word(size_t i, size_t offset) const {
    uint32_t v;
    std::memcpy(&v, entry(i) + offset, 4);  // little-endian hosts only (as every reader here)
    return v;
  }

  std::span<const uint8_t> bytes_;
};

// Section 10, kept byte-exact so a rewritten key carries its ceremony transcript; the
// contributions are walked only to validate the structure.
struct ZkeyMpc {
  std::array<uint8_t, 64> cs_hash{};
  uint32_t n_contributions = 0;
  std::vector<uint8_t> raw;  // the whole section as stored
};

// Everything a .zkey holds, as views: what the writer takes and a reader hands back.
template <class C>
struct ZkeyContents {
  using G1 = ec::Affine<typename C::G1>;
  using G2 = ec::Affine<typename C::G2>;
  ZkeyHeader<C> header;
  std::span<const G1> ic, a, b1, c, h;
  std::span<const G2> b2;
  // Section 4: entries built in memory, or (from a reader) the stored table, written
  // byte for byte. At most one of the two is non-empty.
  std::span<const ZkeyCoefficient<typename C::Fr>> coefficients;
  CoefficientTable<typename C::Fr> stored_coefficients;
  // Raw section 10; empty writes a fresh one (zero csHash, no contributions).
  std::span<const uint8_t> mpc;
};

struct ZkeyReadOptions {
  bool check_points = true;  // reduced coordinates and on-curve, for every point
  unsigned threads = 0;      // for the point checks; 0 = all hardware threads
  // false: pages of the mapping are dropped from this process's resident set once a
  // section has been read (after its checks here, after each use through done_with()).
  // The kernel keeps them in its page cache, so reading them again costs a minor fault.
  // A one-shot prover sets it: its peak memory is then one section's, not the whole key's.
  // A daemon that proves with the key again keeps it resident.
  bool keep_resident = true;
};

template <class C>
class Zkey {
 public:
  using Fr = typename C::Fr;
  using Fq = typename C::Fq;
  using G1 = ec::Affine<typename C::G1>;
  using G2 = ec::Affine<typename C::G2>;
  static constexpr size_t kG1Bytes = sizeof(G1);
  static constexpr size_t kG2Bytes = sizeof(G2);

  static Result<Zkey> open(const std::string& path, const ZkeyReadOptions& opts = {});
  // A key built in memory whose point sections A, B1, B2, C and H live elsewhere (the
  // CUDA backend's dev setup computes them straight into device memory): the header, IC
  // and section 4 (stored entries, checked as a reader checks them) only. `label` names
  // the key in messages where a file's path would.
  static Result<Zkey> held_elsewhere(std::string label, const ZkeyHeader<C>& header, std::vector<G1> ic,
                                     std::vector<uint8_t> coefficients);
  // False for held_elsewhere keys: their a() .. h() are empty.
  bool has_points() const { return has_points_; }

  const ZkeyHeader<C>& header() const { return header_; }
  std::span<const G1> ic() const { return ic_.span(); }
  std::span<const G1> a() const { return a_.span(); }
  std::span<const G1> b1() const { return b1_.span(); }
  std::span<const G2> b2() const { return b2_.span(); }
  std::span<const G1> c() const { return c_.span(); }
  std::span<const G1> h() const { return h_.span(); }
  const CoefficientTable<Fr>& coefficients() const { return coefs_; }
  // Says the caller has finished reading `data` (a section or part of one) for now: with
  // keep_resident = false its pages leave this process's resident set. Data not in the
  // mapping (a copied table) is left alone.
  template <class T>
  void done_with(std::span<const T> data) const {
    if (!keep_resident_) {
      file_.drop_resident({reinterpret_cast<const uint8_t*>(data.data()), data.size_bytes()});
    }
  }
  void done_with_coefficients() const {
    if (!keep_resident_) file_.drop_resident(coefs_.bytes());
  }
  const std::optional<ZkeyMpc>& mpc() const { return mpc_; }
  // True when every point section is a view into the mapping (no copy was needed).
  bool zero_copy() const {
    return ic_.borrowed() && a_.borrowed() && b1_.borrowed() && b2_.borrowed() && c_.borrowed() && h_.borrowed();
  }
  const std::string& path() const { return label_.empty() ? file_.path() : label_; }

  ZkeyContents<C> contents() const {
    ZkeyContents<C> z;
    z.header = header_;
    z.ic = ic();
    z.a = a();
    z.b1 = b1();
    z.b2 = b2();
    z.c = c();
    z.h = h();
    z.stored_coefficients = coefs_;
    if (mpc_) z.mpc = mpc_->raw;
    return z;
  }

 private:
  Status parse(const ZkeyReadOptions& opts);
  Status parse_header(const BinFile& bin);
  Status parse_coefficients(const BinFile& bin);
  // Every entry of section 4 in range: matrix 0/1, constraint in the domain, signal below
  // nVars, value reduced. `where` prefixes the messages.
  Status check_coefficients(std::span<const uint8_t> entries, const std::string& where) const;
  Status parse_mpc(const BinFile& bin);
  template <class P>
  Status read_points(const BinFile& bin, uint32_t id, size_t expected, const char* why, PointTable<P>& out,
                     const ZkeyReadOptions& opts);

  MappedFile file_;
  ZkeyHeader<C> header_;
  PointTable<typename C::G1> ic_, a_, b1_, c_, h_;
  PointTable<typename C::G2> b2_;
  CoefficientTable<Fr> coefs_;
  std::optional<ZkeyMpc> mpc_;
  bool keep_resident_ = true;
  bool has_points_ = true;
  std::string label_;                  // held_elsewhere keys only
  std::vector<uint8_t> owned_coefs_;   // held_elsewhere keys: coefs_ views this
};

// Writes a Groth16 .zkey that snarkjs (zkey export verificationkey, groth16 prove/verify)
// reads, sections 1..10 in order. Sizes are checked against the header first.
template <class C>
Status write_zkey(const std::string& path, const ZkeyContents<C>& z);

// ---------------------------------------------------------------------------------------
// Implementation.

namespace detail {

template <class F>
bool le_equals_modulus(std::span<const uint8_t> le) {
  return le.size() == F::BYTES && F::read_le(le.data()) == F::MODULUS;
}

template <class P>
Status read_point(SectionReader& in, ec::Affine<P>& out, const char* field) {
  std::span<const uint8_t> b;
  CUZK_RETURN_IF_ERROR(in.bytes(sizeof(out), b, field));
  std::memcpy(static_cast<void*>(&out), b.data(), sizeof(out));
  if (const char* d = point_defect(out)) return in.error(std::string(field) + " " + d);
  return Status::ok();
}

// A name for a prime that is not the one expected, for mismatch messages.
inline std::string describe_prime(std::span<const uint8_t> le) {
  char which = 0;
  auto id = curve_from_prime(le, &which);
  if (!id) return "an unknown prime";
  return std::string("the ") + snarkjs_curve_name(*id) + (which == 'q' ? " base field prime q" : " scalar field prime r");
}

}  // namespace detail

template <class C>
Result<Zkey<C>> Zkey<C>::open(const std::string& path, const ZkeyReadOptions& opts) {
  Zkey z;
  CUZK_ASSIGN_OR_RETURN(z.file_, MappedFile::open(path));
  z.keep_resident_ = opts.keep_resident;
  CUZK_RETURN_IF_ERROR(z.parse(opts));
  return z;
}

template <class C>
Status Zkey<C>::parse(const ZkeyReadOptions& opts) {
  CUZK_ASSIGN_OR_RETURN(BinFile bin,
                        BinFile::parse(file_.bytes(), file_label(file_.path()), "zkey", 1, 1, &zkey_section::name));
  {
    CUZK_ASSIGN_OR_RETURN(auto sec, bin.section(zkey_section::kHeader));
    SectionReader in(sec, bin.where(zkey_section::kHeader));
    uint32_t protocol = 0;
    CUZK_RETURN_IF_ERROR(in.u32(protocol, "protocol"));
    if (protocol != 1) {
      const char* what = protocol == 2 ? " (PLONK)" : protocol == 10 ? " (FFLONK)" : "";
      return invalid_argument(in.where() + ": protocol " + std::to_string(protocol) + what +
                              " is not supported, only 1 (Groth16)");
    }
    CUZK_RETURN_IF_ERROR(in.expect_end());
  }
  CUZK_RETURN_IF_ERROR(parse_header(bin));
  const ZkeyHeader<C>& h = header_;
  CUZK_RETURN_IF_ERROR(read_points(bin, zkey_section::kIc, size_t(h.n_public) + 1, "nPublic + 1", ic_, opts));
  CUZK_RETURN_IF_ERROR(read_points(bin, zkey_section::kA, h.n_vars, "nVars", a_, opts));
  CUZK_RETURN_IF_ERROR(read_points(bin, zkey_section::kB1, h.n_vars, "nVars", b1_, opts));
  CUZK_RETURN_IF_ERROR(read_points(bin, zkey_section::kB2, h.n_vars, "nVars", b2_, opts));
  CUZK_RETURN_IF_ERROR(
      read_points(bin, zkey_section::kC, size_t(h.n_vars) - h.n_public - 1, "nVars - nPublic - 1", c_, opts));
  CUZK_RETURN_IF_ERROR(read_points(bin, zkey_section::kH, h.domain_size, "domain size", h_, opts));
  CUZK_RETURN_IF_ERROR(parse_coefficients(bin));
  if (bin.has(zkey_section::kMpc)) CUZK_RETURN_IF_ERROR(parse_mpc(bin));
  return Status::ok();
}

template <class C>
Status Zkey<C>::parse_header(const BinFile& bin) {
  CUZK_ASSIGN_OR_RETURN(auto sec, bin.section(zkey_section::kGrothHeader));
  SectionReader in(sec, bin.where(zkey_section::kGrothHeader));
  uint32_t n8q = 0, n8r = 0;
  std::span<const uint8_t> q, r;
  // The primes are compared before their lengths so a key of the other curve is named as such.
  CUZK_RETURN_IF_ERROR(in.u32(n8q, "n8q"));
  CUZK_RETURN_IF_ERROR(in.bytes(n8q, q, "q"));
  if (!detail::le_equals_modulus<Fq>(q)) {
    return invalid_argument(in.where() + ": field q is " + detail::describe_prime(q) + ", but this reader expects " +
                            C::SNARKJS_NAME + " (wrong curve?)");
  }
  CUZK_RETURN_IF_ERROR(in.u32(n8r, "n8r"));
  CUZK_RETURN_IF_ERROR(in.bytes(n8r, r, "r"));
  if (!detail::le_equals_modulus<Fr>(r)) {
    return invalid_argument(in.where() + ": field r is " + detail::describe_prime(r) + ", expected the " +
                            C::SNARKJS_NAME + " scalar field prime");
  }
  ZkeyHeader<C>& h = header_;
  CUZK_RETURN_IF_ERROR(in.u32(h.n_vars, "nVars"));
  CUZK_RETURN_IF_ERROR(in.u32(h.n_public, "nPublic"));
  CUZK_RETURN_IF_ERROR(in.u32(h.domain_size, "domainSize"));
  if (h.n_public >= h.n_vars) {
    return invalid_argument(in.where() + ": nPublic " + std::to_string(h.n_public) + " must be below nVars " +
                            std::to_string(h.n_vars) + " (wire 0 is the constant 1)");
  }
  if (h.domain_size == 0 || (h.domain_size & (h.domain_size - 1)) != 0) {
    return invalid_argument(in.where() + ": domainSize " + std::to_string(h.domain_size) +
                            " is not a power of two");
  }
  if (h.domain_size <= h.n_public) {
    return invalid_argument(in.where() + ": domainSize " + std::to_string(h.domain_size) +
                            " cannot hold the nPublic + 1 public-input rows");
  }
  CUZK_RETURN_IF_ERROR(detail::read_point(in, h.alpha1, "alpha_1"));
  CUZK_RETURN_IF_ERROR(detail::read_point(in, h.beta1, "beta_1"));
  CUZK_RETURN_IF_ERROR(detail::read_point(in, h.beta2, "beta_2"));
  CUZK_RETURN_IF_ERROR(detail::read_point(in, h.gamma2, "gamma_2"));
  CUZK_RETURN_IF_ERROR(detail::read_point(in, h.delta1, "delta_1"));
  CUZK_RETURN_IF_ERROR(detail::read_point(in, h.delta2, "delta_2"));
  return in.expect_end();
}

template <class C>
template <class P>
Status Zkey<C>::read_points(const BinFile& bin, uint32_t id, size_t expected, const char* why, PointTable<P>& out,
                            const ZkeyReadOptions& opts) {
  constexpr size_t kBytes = PointTable<P>::kBytes;
  CUZK_ASSIGN_OR_RETURN(auto sec, bin.section(id));
  if (sec.size() % kBytes != 0) {
    return data_loss(bin.where(id) + ": size " + std::to_string(sec.size()) + " bytes is not a multiple of the " +
                     std::to_string(kBytes) + "-byte point size");
  }
  size_t n = sec.size() / kBytes;
  if (n != expected) {
    return data_loss(bin.where(id) + " has " + std::to_string(n) + " points, expected " + std::to_string(expected) +
                     " (" + why + ")");
  }
  out = PointTable<P>(sec);
  if (opts.check_points) CUZK_RETURN_IF_ERROR(check_points<P>(out.span(), bin.where(id), opts.threads));
  if (!opts.keep_resident) file_.drop_resident(sec);
  return Status::ok();
}

template <class C>
Status Zkey<C>::parse_coefficients(const BinFile& bin) {
  constexpr size_t kEntry = 12 + Fr::BYTES;
  CUZK_ASSIGN_OR_RETURN(auto sec, bin.section(zkey_section::kCoefficients));
  SectionReader in(sec, bin.where(zkey_section::kCoefficients));
  uint32_t n = 0;
  CUZK_RETURN_IF_ERROR(in.u32(n, "nCoef"));
  if (in.remaining() != uint64_t(n) * kEntry) {
    return data_loss(in.where() + ": nCoef " + std::to_string(n) + " needs " + std::to_string(uint64_t(n) * kEntry) +
                     " bytes of entries, section has " + std::to_string(in.remaining()));
  }
  CUZK_RETURN_IF_ERROR(check_coefficients(sec.subspan(4), in.where()));
  coefs_ = CoefficientTable<Fr>(sec.subspan(4));
  done_with_coefficients();
  return Status::ok();
}

template <class C>
Status Zkey<C>::check_coefficients(std::span<const uint8_t> entries, const std::string& where) const {
  constexpr size_t kEntry = 12 + Fr::BYTES;
  if (entries.size() % kEntry != 0) {
    return data_loss(where + ": " + std::to_string(entries.size()) + " bytes of entries are not whole entries of " +
                     std::to_string(kEntry));
  }
  const size_t n = entries.size() / kEntry;
  const uint8_t* p = entries.data();
  for (size_t i = 0; i < n; ++i, p += kEntry) {
    const uint32_t matrix = load_u32(p), constraint = load_u32(p + 4), signal = load_u32(p + 8);
    auto at = [&] { return where + ": entry " + std::to_string(i) + ": "; };
    if (matrix > 1) return data_loss(at() + "matrix " + std::to_string(matrix) + " is not 0 (A) or 1 (B)");
    if (constraint >= header_.domain_size) {
      return data_loss(at() + "constraint " + std::to_string(constraint) + " is outside the domain of size " +
                       std::to_string(header_.domain_size));
    }
    if (signal >= header_.n_vars) {
      return data_loss(at() + "signal " + std::to_string(signal) + " is not below nVars " +
                       std::to_string(header_.n_vars));
    }
    Fr value;
    if (!Fr::from_mont_bytes_le(p + 12, value)) return data_loss(at() + "value is not reduced below r");
  }
  return Status::ok();
}

template <class C>
Result<Zkey<C>> Zkey<C>::held_elsewhere(std::string label, const ZkeyHeader<C>& header, std::vector<G1> ic,
                                        std::vector<uint8_t> coefficients) {
  if (header.domain_size == 0 || (header.domain_size & (header.domain_size - 1)) != 0) {
    return invalid_argument(label + ": domainSize " + std::to_string(header.domain_size) + " is not a power of two");
  }
  if (size_t(header.n_public) + 1 > header.n_vars) {
    return invalid_argument(label + ": nPublic " + std::to_string(header.n_public) + " does not leave room in nVars " +
                            std::to_string(header.n_vars));
  }
  if (ic.size() != size_t(header.n_public) + 1) {
    return invalid_argument(label + ": " + std::to_string(ic.size()) + " IC points for nPublic + 1 = " +
                            std::to_string(header.n_public + 1));
  }
  Zkey z;
  z.label_ = std::move(label);
  z.header_ = header;
  z.has_points_ = false;
  CUZK_RETURN_IF_ERROR(z.check_coefficients(coefficients, z.label_ + ": coefficients"));
  z.ic_ = PointTable<typename C::G1>(std::move(ic));
  z.owned_coefs_ = std::move(coefficients);
  z.coefs_ = CoefficientTable<Fr>(z.owned_coefs_);
  return z;
}

template <class C>
Status Zkey<C>::parse_mpc(const BinFile& bin) {
  CUZK_ASSIGN_OR_RETURN(auto sec, bin.section(zkey_section::kMpc));
  SectionReader in(sec, bin.where(zkey_section::kMpc));
  ZkeyMpc m;
  std::span<const uint8_t> hash;
  CUZK_RETURN_IF_ERROR(in.bytes(64, hash, "csHash"));
  std::memcpy(m.cs_hash.data(), hash.data(), 64);
  CUZK_RETURN_IF_ERROR(in.u32(m.n_contributions, "nContributions"));
  for (uint32_t i = 0; i < m.n_contributions; ++i) {
    G1 g1;
    G2 g2;
    CUZK_RETURN_IF_ERROR(detail::read_point(in, g1, "contribution deltaAfter"));
    CUZK_RETURN_IF_ERROR(detail::read_point(in, g1, "contribution g1_s"));
    CUZK_RETURN_IF_ERROR(detail::read_point(in, g1, "contribution g1_sx"));
    CUZK_RETURN_IF_ERROR(detail::read_point(in, g2, "contribution g2_spx"));
    uint32_t type = 0, params_len = 0;
    CUZK_RETURN_IF_ERROR(in.skip(64, "contribution transcript"));
    CUZK_RETURN_IF_ERROR(in.u32(type, "contribution type"));
    CUZK_RETURN_IF_ERROR(in.u32(params_len, "contribution paramsLength"));
    CUZK_RETURN_IF_ERROR(in.skip(params_len, "contribution params"));
  }
  CUZK_RETURN_IF_ERROR(in.expect_end());
  m.raw.assign(sec.begin(), sec.end());
  mpc_ = std::move(m);
  return Status::ok();
}

template <class C>
Status write_zkey(const std::string& path, const ZkeyContents<C>& z) {
  using Fr = typename C::Fr;
  using Fq = typename C::Fq;
  const ZkeyHeader<C>& h = z.header;
  std::string label = file_label(path);
  auto check = [&](uint32_t id, size_t got, size_t want, const char* why) -> Status {
    if (got == want) return Status::ok();
    return invalid_argument(label + ": section " + std::to_string(id) + " (" + zkey_section::name(id) + ") has " +
                            std::to_string(got) + " points, expected " + std::to_string(want) + " (" + why + ")");
  };
  if (h.n_public >= h.n_vars) return invalid_argument(label + ": nPublic must be below nVars");
  if (h.domain_size == 0 || (h.domain_size & (h.domain_size - 1)) != 0) {
    return invalid_argument(label + ": domainSize " + std::to_string(h.domain_size) + " is not a power of two");
  }
  CUZK_RETURN_IF_ERROR(check(zkey_section::kIc, z.ic.size(), size_t(h.n_public) + 1, "nPublic + 1"));
  CUZK_RETURN_IF_ERROR(check(zkey_section::kA, z.a.size(), h.n_vars, "nVars"));
  CUZK_RETURN_IF_ERROR(check(zkey_section::kB1, z.b1.size(), h.n_vars, "nVars"));
  CUZK_RETURN_IF_ERROR(check(zkey_section::kB2, z.b2.size(), h.n_vars, "nVars"));
  CUZK_RETURN_IF_ERROR(check(zkey_section::kC, z.c.size(), size_t(h.n_vars) - h.n_public - 1, "nVars - nPublic - 1"));
  CUZK_RETURN_IF_ERROR(check(zkey_section::kH, z.h.size(), h.domain_size, "domain size"));
  if (!z.coefficients.empty() && !z.stored_coefficients.empty()) {
    return invalid_argument(label + ": both in-memory and stored coefficients given");
  }
  const size_t n_coefs = z.coefficients.size() + z.stored_coefficients.size();
  if (n_coefs > UINT32_MAX) return invalid_argument(label + ": too many coefficients");

  BinWriter w;
  CUZK_RETURN_IF_ERROR(w.open(path, "zkey", 1, 10));
  CUZK_RETURN_IF_ERROR(w.begin_section(zkey_section::kHeader));
  CUZK_RETURN_IF_ERROR(w.write_u32(1));
  CUZK_RETURN_IF_ERROR(w.end_section());

  CUZK_RETURN_IF_ERROR(w.begin_section(zkey_section::kGrothHeader));
  uint8_t prime[Fq::BYTES];
  CUZK_RETURN_IF_ERROR(w.write_u32(Fq::BYTES));
  Fq::write_le(Fq::MODULUS, prime);
  CUZK_RETURN_IF_ERROR(w.write(prime, Fq::BYTES));
  CUZK_RETURN_IF_ERROR(w.write_u32(Fr::BYTES));
  Fr::write_le(Fr::MODULUS, prime);
  CUZK_RETURN_IF_ERROR(w.write(prime, Fr::BYTES));
  CUZK_RETURN_IF_ERROR(w.write_u32(h.n_vars));
  CUZK_RETURN_IF_ERROR(w.write_u32(h.n_public));
  CUZK_RETURN_IF_ERROR(w.write_u32(h.domain_size));
  CUZK_RETURN_IF_ERROR(w.write(&h.alpha1, sizeof(h.alpha1)));
  CUZK_RETURN_IF_ERROR(w.write(&h.beta1, sizeof(h.beta1)));
  CUZK_RETURN_IF_ERROR(w.write(&h.beta2, sizeof(h.beta2)));
  CUZK_RETURN_IF_ERROR(w.write(&h.gamma2, sizeof(h.gamma2)));
  CUZK_RETURN_IF_ERROR(w.write(&h.delta1, sizeof(h.delta1)));
  CUZK_RETURN_IF_ERROR(w.write(&h.delta2, sizeof(h.delta2)));
  CUZK_RETURN_IF_ERROR(w.end_section());

  auto points = [&](uint32_t id, auto span) -> Status {
    CUZK_RETURN_IF_ERROR(w.begin_section(id));
    CUZK_RETURN_IF_ERROR(w.write(span.data(), span.size_bytes()));
    return w.end_section();
  };
  CUZK_RETURN_IF_ERROR(points(zkey_section::kIc, z.ic));

  CUZK_RETURN_IF_ERROR(w.begin_section(zkey_section::kCoefficients));
  CUZK_RETURN_IF_ERROR(w.write_u32(uint32_t(n_coefs)));
  if (!z.stored_coefficients.empty()) {
    CUZK_RETURN_IF_ERROR(w.write(z.stored_coefficients.bytes().data(), z.stored_coefficients.bytes().size()));
  }
  for (const ZkeyCoefficient<Fr>& e : z.coefficients) {
    uint8_t entry[12 + Fr::BYTES];
    std::memcpy(entry, &e.matrix, 4);
    std::memcpy(entry + 4, &e.constraint, 4);
    std::memcpy(entry + 8, &e.signal, 4);
    e.value.to_mont_bytes_le(entry + 12);
    CUZK_RETURN_IF_ERROR(w.write(entry, sizeof(entry)));
  }
  CUZK_RETURN_IF_ERROR(w.end_section());

  CUZK_RETURN_IF_ERROR(points(zkey_section::kA, z.a));
  CUZK_RETURN_IF_ERROR(points(zkey_section::kB1, z.b1));
  CUZK_RETURN_IF_ERROR(points(zkey_section::kB2, z.b2));
  CUZK_RETURN_IF_ERROR(points(zkey_section::kC, z.c));
  CUZK_RETURN_IF_ERROR(points(zkey_section::kH, z.h));

  CUZK_RETURN_IF_ERROR(w.begin_section(zkey_section::kMpc));
  if (z.mpc.empty()) {
    // No ceremony: a zero csHash and no contributions, which snarkjs reads as a fresh key.
    CUZK_RETURN_IF_ERROR(w.write_zeros(64));
    CUZK_RETURN_IF_ERROR(w.write_u32(0));
  } else {
    CUZK_RETURN_IF_ERROR(w.write(z.mpc.data(), z.mpc.size()));
  }
  CUZK_RETURN_IF_ERROR(w.end_section());
  return w.close();
}

}  // namespace cuzk::formats
