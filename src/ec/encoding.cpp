#include "ec/encoding.hpp"

#include <cstring>
#include <string_view>

#include "ec/subgroup.hpp"
#include "ff/decimal.hpp"

namespace cuzk::ec {

namespace {

constexpr uint8_t kCompressedFlag = 0x80;
constexpr uint8_t kInfinityFlag = 0x40;
constexpr uint8_t kSortFlag = 0x20;
constexpr uint8_t kFlagMask = kCompressedFlag | kInfinityFlag | kSortFlag;

// "bls12_381 G1": C::NAME with the dot turned into a space.
template <class C>
std::string group_label() {
  std::string s = C::NAME;
  for (char& c : s) {
    if (c == '.') c = ' ';
  }
  return s;
}

template <class C>
Status decode_error(std::string_view form, StatusCode code, const std::string& what) {
  return {code, group_label<C>() + " " + std::string(form) + ": " + what};
}

// Whether y is the larger of {y, -y} as integers (Fq2: decided by c1 unless c1 is zero).
bool lexicographically_largest(const bls12_381::Fq& y) {
  constexpr auto half = bls12_381::Fq::P_MINUS_1_HALF;
  return half.less_than(y.to_canonical());
}
bool lexicographically_largest(const bls12_381::Fq2& y) {
  if (!y.c1.is_zero()) return lexicographically_largest(y.c1);
  return lexicographically_largest(y.c0);
}

// The zcash form writes Fq2 as c1 then c0, big-endian.
void write_be(const bls12_381::Fq& x, uint8_t* out) { x.to_bytes_be(out); }
void write_be(const bls12_381::Fq2& x, uint8_t* out) {
  x.c1.to_bytes_be(out);
  x.c0.to_bytes_be(out + bls12_381::Fq::BYTES);
}
// Names the offending component ("x", "x.c0", ...) on failure; empty on success.
std::string read_be(const uint8_t* in, const char* name, bls12_381::Fq& out) {
  return bls12_381::Fq::from_bytes_be(in, out) ? std::string() : std::string(name);
}
std::string read_be(const uint8_t* in, const char* name, bls12_381::Fq2& out) {
  if (!bls12_381::Fq::from_bytes_be(in, out.c1)) return std::string(name) + ".c1";
  if (!bls12_381::Fq::from_bytes_be(in + bls12_381::Fq::BYTES, out.c0)) return std::string(name) + ".c0";
  return {};
}

template <class C>
Status check_point(const Affine<C>& p, std::string_view form, const DecodeOptions& opts) {
  if (!p.is_on_curve()) return decode_error<C>(form, StatusCode::kInvalidArgument, "point is not on the curve");
  if (opts.check_subgroup && !is_in_subgroup(p)) {
    return decode_error<C>(form, StatusCode::kInvalidArgument, "point is not in the prime-order subgroup");
  }
  return Status::ok();
}

template <class F>
void write_mont_le(const F& x, uint8_t* out) {
  if constexpr (requires { x.c1; }) {
    x.c0.to_mont_bytes_le(out);
    x.c1.to_mont_bytes_le(out + F::Fq::BYTES);
  } else {
    x.to_mont_bytes_le(out);
  }
}
template <class F>
std::string read_mont_le(const uint8_t* in, const char* name, F& out) {
  if constexpr (requires { out.c1; }) {
    if (!F::Fq::from_mont_bytes_le(in, out.c0)) return std::string(name) + ".c0";
    if (!F::Fq::from_mont_bytes_le(in + F::Fq::BYTES, out.c1)) return std::string(name) + ".c1";
    return {};
  } else {
    return F::from_mont_bytes_le(in, out) ? std::string() : std::string(name);
  }
}

bool is_decimal(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// One base-field element from decimal text; names the component on failure.
template <class Fq>
Status parse_fq(const std::string& s, const std::string& name, Fq& out) {
  if (!is_decimal(s)) return invalid_argument(name + ": \"" + s + "\" is not a decimal integer");
  if (!ff::field_from_decimal(s, out)) return out_of_range(name + " is not less than the field modulus");
  return Status::ok();
}

}  // namespace

// ---- zcash ----

template <class C>
void zcash_write(const Affine<C>& p, Form form, uint8_t* out) {
  const size_t n = zcash_size<C>(form);
  std::memset(out, 0, n);
  if (p.is_infinity()) {
    out[0] = kInfinityFlag | (form == Form::kCompressed ? kCompressedFlag : 0);
    return;
  }
  constexpr size_t coord = C::Base::BYTES;
  write_be(p.x, out);
  if (form == Form::kCompressed) {
    out[0] |= kCompressedFlag;
    if (lexicographically_largest(p.y)) out[0] |= kSortFlag;
  } else {
    write_be(p.y, out + coord);
  }
}

template <class C>
Result<Affine<C>> zcash_decode(std::span<const uint8_t> in, Form form, DecodeOptions opts) {
  using Base = typename C::Base;
  const bool compressed = form == Form::kCompressed;
  const std::string_view fname = compressed ? "compressed" : "uncompressed";
  auto fail = [&](StatusCode code, const std::string& what) { return decode_error<C>(fname, code, what); };

  const size_t n = zcash_size<C>(form);
  if (in.size() != n) {
    return fail(StatusCode::kInvalidArgument,
                "expected " + std::to_string(n) + " bytes, got " + std::to_string(in.size()));
  }
  const uint8_t flags = in[0] & kFlagMask;
  const bool c_flag = flags & kCompressedFlag, i_flag = flags & kInfinityFlag, s_flag = flags & kSortFlag;
  if (c_flag != compressed) {
    return fail(StatusCode::kInvalidArgument, compressed ? "compression flag is not set, expected a compressed point"
                                                         : "compression flag is set, expected an uncompressed point");
  }
  if (!compressed && s_flag) return fail(StatusCode::kInvalidArgument, "sort flag is set on an uncompressed point");
  if (i_flag) {
    if (s_flag) return fail(StatusCode::kInvalidArgument, "sort flag is set on the point at infinity");
    bool rest_zero = (in[0] & ~kFlagMask) == 0;
    for (size_t i = 1; i < n && rest_zero; ++i) rest_zero = in[i] == 0;
    if (!rest_zero) {
      return fail(StatusCode::kInvalidArgument,
                  "infinity flag is set but other bits are not zero (non-canonical infinity)");
    }
    return Affine<C>::infinity();
  }

  // The coordinates with the flag bits cleared.
  std::array<uint8_t, 192> buf{};
  std::memcpy(buf.data(), in.data(), n);
  buf[0] &= static_cast<uint8_t>(~kFlagMask);
  constexpr size_t coord = Base::BYTES;

  Affine<C> p;
  if (std::string bad = read_be(buf.data(), "x", p.x); !bad.empty()) {
    return fail(StatusCode::kOutOfRange, bad + " is not less than the field modulus");
  }
  if (compressed) {
    Base rhs = p.x.square() * p.x + C::b();
    Base y;
    if (!rhs.sqrt(y)) return fail(StatusCode::kInvalidArgument, "no point with this x (x^3 + b is not a square)");
    if (lexicographically_largest(y) != s_flag) y = -y;
    p.y = y;
  } else {
    if (std::string bad = read_be(buf.data() + coord, "y", p.y); !bad.empty()) {
      return fail(StatusCode::kOutOfRange, bad + " is not less than the field modulus");
    }
    // (0, 0) written without the infinity flag is not a point of the curve.
    if (p.is_infinity()) return fail(StatusCode::kInvalidArgument, "point is not on the curve");
  }
  CUZK_RETURN_IF_ERROR(check_point(p, fname, opts));
  return p;
}

// ---- snarkjs binary ----

template <class C>
void snarkjs_write(const Affine<C>& p, uint8_t* out) {
  // Infinity is (0, 0), whose Montgomery form is all zero bytes too.
  write_mont_le(p.x, out);
  write_mont_le(p.y, out + C::Base::BYTES);
}

template <class C>
Result<Affine<C>> snarkjs_decode(std::span<const uint8_t> in, DecodeOptions opts) {
  constexpr std::string_view fname = "snarkjs";
  constexpr size_t n = snarkjs_size<C>();
  if (in.size() != n) {
    return decode_error<C>(fname, StatusCode::kInvalidArgument,
                           "expected " + std::to_string(n) + " bytes, got " + std::to_string(in.size()));
  }
  Affine<C> p;
  if (std::string bad = read_mont_le(in.data(), "x", p.x); !bad.empty()) {
    return decode_error<C>(fname, StatusCode::kOutOfRange, bad + " is not less than the field modulus");
  }
  if (std::string bad = read_mont_le(in.data() + C::Base::BYTES, "y", p.y); !bad.empty()) {
    return decode_error<C>(fname, StatusCode::kOutOfRange, bad + " is not less than the field modulus");
  }
  CUZK_RETURN_IF_ERROR(check_point(p, fname, opts));
  return p;
}

// ---- snarkjs JSON ----

template <class C>
JsonPoint<C> json_encode(const Affine<C>& p) {
  using Base = typename C::Base;
  // ffjavascript writes infinity as the projective (0, 1, 0).
  const bool inf = p.is_infinity();
  const Base x = inf ? Base::zero() : p.x;
  const Base y = inf ? Base::one() : p.y;
  const Base z = inf ? Base::zero() : Base::one();
  if constexpr (kIsG2<C>) {
    auto text = [](const Base& v) {
      return std::vector<std::string>{ff::field_to_decimal(v.c0), ff::field_to_decimal(v.c1)};
    };
    return {text(x), text(y), text(z)};
  } else {
    return {ff::field_to_decimal(x), ff::field_to_decimal(y), ff::field_to_decimal(z)};
  }
}

template <class C>
Result<Affine<C>> json_decode(const JsonPoint<C>& in, DecodeOptions opts) {
  using Base = typename C::Base;
  constexpr std::string_view fname = "json";
  auto fail = [&](const Status& s) { return decode_error<C>(fname, s.code(), s.message()); };
  if (in.size() != 2 && in.size() != 3) {
    return fail(invalid_argument("expected 2 or 3 coordinates (x, y[, z]), got " + std::to_string(in.size())));
  }
  static constexpr const char* kNames[3] = {"x", "y", "z"};
  Base v[3] = {Base::zero(), Base::zero(), Base::one()};
  for (size_t i = 0; i < in.size(); ++i) {
    if constexpr (kIsG2<C>) {
      const auto& e = in[i];
      if (e.size() != 2) {
        return fail(invalid_argument(std::string(kNames[i]) + ": expected 2 components (c0, c1), got " +
                                     std::to_string(e.size())));
      }
      Status s0 = parse_fq(e[0], std::string(kNames[i]) + ".c0", v[i].c0);
      if (!s0.is_ok()) return fail(s0);
      Status s1 = parse_fq(e[1], std::string(kNames[i]) + ".c1", v[i].c1);
      if (!s1.is_ok()) return fail(s1);
    } else {
      Status s = parse_fq(in[i], kNames[i], v[i]);
      if (!s.is_ok()) return fail(s);
    }
  }
  if (v[2].is_zero()) {
    if (!v[0].is_zero() || !v[1].is_one()) {
      return fail(invalid_argument("z is 0 but (x, y) is not (0, 1) (non-canonical infinity)"));
    }
    return Affine<C>::infinity();
  }
  if (!v[2].is_one()) return fail(invalid_argument("z must be 1 (affine) or 0 (infinity)"));
  Affine<C> p{v[0], v[1]};
  if (p.is_infinity()) return fail(invalid_argument("point is not on the curve"));
  CUZK_RETURN_IF_ERROR(check_point(p, fname, opts));
  return p;
}

// The zcash form exists for BLS12-381 only; the snarkjs forms for both curves.
#define CUZK_EC_INSTANTIATE_ZCASH(C)                                                        \
  template void zcash_write<C>(const Affine<C>&, Form, uint8_t*);                           \
  template Result<Affine<C>> zcash_decode<C>(std::span<const uint8_t>, Form, DecodeOptions);
#define CUZK_EC_INSTANTIATE_SNARKJS(C)                                                      \
  template void snarkjs_write<C>(const Affine<C>&, uint8_t*);                               \
  template Result<Affine<C>> snarkjs_decode<C>(std::span<const uint8_t>, DecodeOptions);    \
  template JsonPoint<C> json_encode<C>(const Affine<C>&);                                   \
  template Result<Affine<C>> json_decode<C>(const JsonPoint<C>&, DecodeOptions);

CUZK_EC_INSTANTIATE_ZCASH(bls12_381::G1Config)
CUZK_EC_INSTANTIATE_ZCASH(bls12_381::G2Config)
CUZK_EC_INSTANTIATE_SNARKJS(bn254::G1Config)
CUZK_EC_INSTANTIATE_SNARKJS(bn254::G2Config)
CUZK_EC_INSTANTIATE_SNARKJS(bls12_381::G1Config)
CUZK_EC_INSTANTIATE_SNARKJS(bls12_381::G2Config)

}  // namespace cuzk::ec
