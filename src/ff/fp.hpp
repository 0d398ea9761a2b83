// Prime field elements in Montgomery form, templated on the modulus.
//
// One type serves the host and the device. A parameter struct P supplies
//   static constexpr size_t N;              // 64-bit limbs (4 or 6)
//   static constexpr BigInt<N> MODULUS;     // odd prime with a spare top bit
//   static constexpr uint64_t NONRESIDUE;   // a small quadratic non-residue (for sqrt)
//   static constexpr const char* NAME;
// and everything else (R, R^2, -p^-1 mod 2^64, exponents) is derived at compile time,
// so a typo in a constant cannot hide: only the modulus is written by hand.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "core/hd.hpp"
#include "ff/bigint.hpp"

// Host fast paths (ff/fp_x86.hpp), never used by device code, CUDA translation units or
// constant evaluation:
//   CUZK_FF_X86_ASM: modular add/sub in x86-64 assembly (adc/sbb/cmov), for 4 and 6 limbs.
//   CUZK_FF_X86_ADX: mulx/adcx/adox multiplication and squaring, when the compiler may
//   emit BMI2 and ADX (CMake option CUZK_HOST_ADX).
// Unoptimised builds keep the portable code: at -O0 GCC cannot fit the assembly blocks'
// 13 registers next to its frame pointer and operand addresses.
#if defined(__x86_64__) && defined(__OPTIMIZE__) && !defined(__CUDACC__)
#define CUZK_FF_X86_ASM 1
#include "ff/fp_x86.hpp"
#if defined(__BMI2__) && defined(__ADX__)
#define CUZK_FF_X86_ADX 1
#endif
#endif

// Device fast paths (ff/fp_cuda.hpp): 32-bit words and PTX carry chains, in device code
// only (never in constant evaluation).
#if defined(__CUDACC__)
// M0 = 2^32 - 1 in constant memory for fp_cuda.hpp's montgomery_m (see there). Declared in
// nvcc's host pass as well: the host side registers every __constant__ of the device side.
namespace cuzk::ff::cuda_fp {
[[maybe_unused]] static __constant__ uint32_t kOpaqueM0 = 0xffffffffu;
// 0 in constant memory for fp_cuda.hpp's sparse_m_h (CUZK_FP_CUDA_SPARSE_LOW; see there),
// declared likewise.
[[maybe_unused]] static __constant__ uint32_t kOpaqueZero = 0;
}  // namespace cuzk::ff::cuda_fp
#endif
#if defined(__CUDA_ARCH__)
#include "ff/fp_cuda.hpp"
#endif

namespace cuzk::ff {

namespace detail {

// -p^-1 mod 2^64 by Newton iteration (each step doubles the correct bits).
constexpr uint64_t mont_inv64(uint64_t p0) {
  uint64_t inv = 1;
  for (int i = 0; i < 7; ++i) inv *= 2 - p0 * inv;
  return ~inv + 1;
}

// (x * 2^k) mod p for x < p, by repeated modular doubling (compile time only).
template <size_t N>
constexpr BigInt<N> mul_pow2_mod(BigInt<N> x, const BigInt<N>& p, size_t k) {
  for (size_t i = 0; i < k; ++i) {
    uint64_t carry = x.add_in_place(x);
    if (carry || !x.less_than(p)) x.sub_in_place(p);
  }
  return x;
}

template <size_t N>
constexpr BigInt<N> sub_small(BigInt<N> x, uint64_t v) {
  x.sub_in_place(BigInt<N>::from_u64(v));
  return x;
}

template <size_t N>
constexpr BigInt<N> add_small(BigInt<N> x, uint64_t v) {
  x.add_in_place(BigInt<N>::from_u64(v));
  return x;
}

template <size_t N>
constexpr BigInt<N> shifted_right(BigInt<N> x, unsigned k) {
  x.shr(k);
  return x;
}

}  // namespace detail

template <class P>
class Fp {
 public:
  static constexpr size_t N = P::N;
  using Int = BigInt<N>;
  using Params = P;

  static constexpr Int MODULUS = P::MODULUS;
  static constexpr size_t BITS = MODULUS.num_bits();
  static constexpr size_t BYTES = N * 8;
  static constexpr uint64_t INV = detail::mont_inv64(MODULUS.limb[0]);
  static constexpr Int R = detail::mul_pow2_mod(Int::from_u64(1), MODULUS, 64 * N);  // 1 in Montgomery form
  static constexpr Int R2 = detail::mul_pow2_mod(R, MODULUS, 64 * N);
  // p - 1 = 2^S * T with T odd.
  static constexpr size_t S = detail::sub_small(MODULUS, 1).trailing_zeros();
  static constexpr Int T = detail::shifted_right(detail::sub_small(MODULUS, 1), S);
  static constexpr Int P_MINUS_2 = detail::sub_small(MODULUS, 2);
  static constexpr Int P_MINUS_1_HALF = detail::shifted_right(detail::sub_small(MODULUS, 1), 1);

  // The no-carry CIOS multiplication and carry-free addition need a spare top bit.
  static_assert(MODULUS.limb[N - 1] < (uint64_t(1) << 63) - 1, "modulus must leave a spare top bit");
  static_assert((MODULUS.limb[0] & 1) == 1, "modulus must be odd");

  CUZK_INLINE constexpr Fp() : v_{} {}

  CUZK_INLINE static constexpr Fp zero() { return Fp(); }
  // Functions copy the static constants into locals first: a local constexpr copy is
  // what nvcc can use in device code (a static member would need __device__ storage).
  CUZK_INLINE static constexpr Fp one() {
    constexpr Int r = R;
    return from_mont(r);
  }
  // Wraps limbs that are already in Montgomery form (value * R mod p). The caller
  // guarantees they are < p; see from_mont_checked for untrusted input.
  CUZK_INLINE static constexpr Fp from_mont(const Int& m) {
    Fp r;
    r.v_ = m;
    return r;
  }
  CUZK_INLINE static constexpr bool from_mont_checked(const Int& m, Fp& out) {
    constexpr Int p = MODULUS;
    if (!m.less_than(p)) return false;
    out.v_ = m;
    return true;
  }
  // Converts a canonical integer < p into the field.
  CUZK_INLINE static constexpr Fp from_canonical(const Int& x) {
    constexpr Int r2 = R2;
    return from_mont(x) * from_mont(r2);
  }
  CUZK_INLINE static constexpr bool from_canonical_checked(const Int& x, Fp& out) {
    constexpr Int p = MODULUS;
    if (!x.less_than(p)) return false;
    out = from_canonical(x);
    return true;
  }
  CUZK_INLINE static constexpr Fp from_u64(uint64_t x) { return from_canonical(Int::from_u64(x)); }

  // Montgomery-form limbs (value * R mod p), for serialisation and the device.
  CUZK_INLINE constexpr const Int& mont() const { return v_; }
  // The canonical integer in [0, p).
  CUZK_INLINE constexpr Int to_canonical() const {
    Int one{};
    one.limb[0] = 1;
    return (*this * from_mont(one)).v_;
  }

  CUZK_INLINE constexpr bool is_zero() const { return v_.is_zero(); }
  CUZK_INLINE constexpr bool is_one() const {
    constexpr Int r = R;
    return v_ == r;
  }
  CUZK_INLINE constexpr bool operator==(const Fp& o) const { return v_ == o.v_; }
  CUZK_INLINE constexpr bool operator!=(const Fp& o) const { return !(v_ == o.v_); }

  CUZK_INLINE constexpr Fp operator+(const Fp& o) const {
#if defined(__CUDA_ARCH__)
    if (!__builtin_is_constant_evaluated()) return from_mont(cuda_fp::mod_add<P>(v_, o.v_));
#endif
#if CUZK_FF_X86_ASM
    if constexpr (N == 4 || N == 6) {
      if (!std::is_constant_evaluated()) {
        Fp r;
        if constexpr (N == 4) {
          x86::mod_add_4<P>(r.v_.limb, v_.limb, o.v_.limb);
        } else {
          x86::mod_add_6<P>(r.v_.limb, v_.limb, o.v_.limb);
        }
        return r;
      }
    }
#endif
    return add_portable(o);
  }
  CUZK_INLINE constexpr Fp operator-(const Fp& o) const {
#if defined(__CUDA_ARCH__)
    if (!__builtin_is_constant_evaluated()) return from_mont(cuda_fp::mod_sub<P>(v_, o.v_));
#endif
#if CUZK_FF_X86_ASM
    if constexpr (N == 4 || N == 6) {
      if (!std::is_constant_evaluated()) {
        Fp r;
        if constexpr (N == 4) {
          x86::mod_sub_4<P>(r.v_.limb, v_.limb, o.v_.limb);
        } else {
          x86::mod_sub_6<P>(r.v_.limb, v_.limb, o.v_.limb);
        }
        return r;
      }
    }
#endif
    return sub_portable(o);
  }
  CUZK_INLINE constexpr Fp operator-() const { return zero() - *this; }
  CUZK_INLINE constexpr Fp dbl() const { return *this + *this; }
  CUZK_INLINE constexpr Fp& operator+=(const Fp& o) { return *this = *this + o; }
  CUZK_INLINE constexpr Fp& operator-=(const Fp& o) { return *this = *this - o; }
  CUZK_INLINE constexpr Fp& operator*=(const Fp& o) { return *this = *this * o; }

  CUZK_INLINE constexpr Fp operator*(const Fp& o) const {
#if defined(__CUDA_ARCH__)
    if (!__builtin_is_constant_evaluated()) return from_mont(cuda_fp::mont_mul<P>(v_, o.v_));
#endif
#if CUZK_FF_X86_ADX
    if constexpr (N == 4 || N == 6) {
      if (!std::is_constant_evaluated()) {
        Fp r;
        if constexpr (N == 4) {
          x86::mont_mul_4<P, INV>(r.v_.limb, v_.limb, o.v_.limb);
        } else {
          x86::mont_mul_6<P, INV>(r.v_.limb, v_.limb, o.v_.limb);
        }
        return r;
      }
    }
#endif
    return mul_portable(o);
  }
  // a·b - c·d; on the device with one Montgomery reduction for both products.
  CUZK_INLINE static constexpr Fp mul_sub(const Fp& a, const Fp& b, const Fp& c, const Fp& d) {
#if defined(__CUDA_ARCH__)
    if (!__builtin_is_constant_evaluated()) return from_mont(cuda_fp::mont_mul_sub<P>(a.v_, b.v_, c.v_, d.v_));
#endif
    return a * b - c * d;
  }
  CUZK_INLINE constexpr Fp square() const {
#if defined(__CUDA_ARCH__)
    if (!__builtin_is_constant_evaluated()) return from_mont(cuda_fp::mont_sqr<P>(v_));
#endif
#if CUZK_FF_X86_ADX
    if constexpr (N == 4 || N == 6) {
      if (!std::is_constant_evaluated()) {
        Fp r;
        if constexpr (N == 4) {
          x86::mont_sqr_4<P, INV>(r.v_.limb, v_.limb);
        } else {
          x86::mont_sqr_6<P, INV>(r.v_.limb, v_.limb);
        }
        return r;
      }
    }
#endif
    return mul_portable(*this);
  }

  // The portable arithmetic: what constant evaluation always runs, and what the host
  // runs without the x86 paths (device code runs ff/fp_cuda.hpp). Public so tests can
  // hold both paths against the same oracle.
  CUZK_INLINE constexpr Fp add_portable(const Fp& o) const {
    Fp r = *this;
    r.v_.add_in_place(o.v_);  // no carry out: 2p < 2^(64N)
    r.reduce_once();
    return r;
  }
  CUZK_INLINE constexpr Fp sub_portable(const Fp& o) const {
    Fp r = *this;
    uint64_t borrow = r.v_.sub_in_place(o.v_);
    // Add p back when the subtraction borrowed, without a branch on the value.
    constexpr Int p = MODULUS;
    uint64_t mask = 0 - borrow;
    uint64_t carry = 0;
    CUZK_UNROLL
    for (size_t i = 0; i < N; ++i) r.v_.limb[i] = adc(r.v_.limb[i], p.limb[i] & mask, carry);
    return r;
  }
  CUZK_INLINE constexpr Fp square_portable() const { return mul_portable(*this); }
  // Montgomery multiplication, CIOS without the extra carry limb (valid because the
  // modulus leaves a spare top bit; see Gautam Botrel & Youssef El Housni, gnark-crypto).
  CUZK_INLINE constexpr Fp mul_portable(const Fp& o) const {
    constexpr Int p = MODULUS;
    const uint64_t* a = v_.limb;
    const uint64_t* b = o.v_.limb;
    uint64_t t[N] = {};
    CUZK_UNROLL
    for (size_t i = 0; i < N; ++i) {
      uint64_t A = 0;
      t[0] = mac(t[0], a[0], b[i], A);
      uint64_t m = t[0] * INV;
      uint64_t C = 0;
      mac(t[0], m, p.limb[0], C);
      CUZK_UNROLL
      for (size_t j = 1; j < N; ++j) {
        t[j] = mac(t[j], a[j], b[i], A);
        t[j - 1] = mac(t[j], m, p.limb[j], C);
      }
      t[N - 1] = C + A;
    }
    Fp r;
    CUZK_UNROLL
    for (size_t i = 0; i < N; ++i) r.v_.limb[i] = t[i];
    r.reduce_once();
    return r;
  }

  // x^e for a public exponent (the running time depends on e, never on x).
  template <size_t M>
  CUZK_HD constexpr Fp pow(const BigInt<M>& e) const {
    Fp r = one();
    for (size_t i = e.num_bits(); i-- > 0;) {
      r = r.square();
      if (e.bit(i)) r = r * *this;
    }
    return r;
  }
  CUZK_HD constexpr Fp pow(uint64_t e) const { return pow(BigInt<1>{{e}}); }

  // Multiplicative inverse by Fermat's little theorem; the inverse of 0 is 0.
  CUZK_HD constexpr Fp inverse() const {
    constexpr Int e = P_MINUS_2;
    return pow(e);
  }

  // 1 if x is a non-zero square, -1 (as p-1) if not, 0 for 0: returned as an int.
  CUZK_HD constexpr int legendre() const {
    constexpr Int e = P_MINUS_1_HALF;
    Fp l = pow(e);
    if (l.is_zero()) return 0;
    return l.is_one() ? 1 : -1;
  }

  // A square root of x if one exists (returns false otherwise). Which of the two roots
  // is returned is unspecified; callers that need a sign choose it themselves.
  CUZK_HD constexpr bool sqrt(Fp& out) const {
    if (is_zero()) {
      out = zero();
      return true;
    }
    if constexpr ((MODULUS.limb[0] & 3) == 3) {
      constexpr Int e = detail::shifted_right(detail::add_small(MODULUS, 1), 2);  // (p+1)/4
      Fp r = pow(e);
      if (r.square() != *this) return false;
      out = r;
      return true;
    } else {
      // Tonelli-Shanks with the parameter's fixed non-residue.
      constexpr Int t = T;
      constexpr Int t_minus_1_half = detail::shifted_right(T, 1);
      Fp z = from_u64(P::NONRESIDUE).pow(t);
      Fp w = pow(t_minus_1_half);
      Fp x = w * *this;  // x^((t+1)/2)
      Fp b = x * w;      // x^t
      size_t v = S;
      while (!b.is_one()) {
        size_t k = 0;
        Fp b2k = b;
        while (!b2k.is_one()) {
          b2k = b2k.square();
          if (++k == v) return false;  // not a square
        }
        Fp w2 = z;
        for (size_t j = 0; j + 1 < v - k; ++j) w2 = w2.square();
        z = w2.square();
        b = b * z;
        x = x * w2;
        v = k;
      }
      out = x;
      return true;
    }
  }

  // Canonical encodings, BYTES long. The decoders reject values >= p.
  CUZK_HD constexpr void to_bytes_be(uint8_t* out) const { write_be(to_canonical(), out); }
  CUZK_HD constexpr void to_bytes_le(uint8_t* out) const { write_le(to_canonical(), out); }
  CUZK_HD static constexpr bool from_bytes_be(const uint8_t* in, Fp& out) {
    return from_canonical_checked(read_be(in), out);
  }
  CUZK_HD static constexpr bool from_bytes_le(const uint8_t* in, Fp& out) {
    return from_canonical_checked(read_le(in), out);
  }
  // Montgomery-form encodings (snarkjs's "LEM": value*R mod p, little-endian).
  CUZK_HD constexpr void to_mont_bytes_le(uint8_t* out) const { write_le(v_, out); }
  CUZK_HD static constexpr bool from_mont_bytes_le(const uint8_t* in, Fp& out) {
    return from_mont_checked(read_le(in), out);
  }

  CUZK_HD static constexpr Int read_le(const uint8_t* in) {
    Int x{};
    for (size_t i = 0; i < BYTES; ++i) x.limb[i / 8] |= uint64_t(in[i]) << (8 * (i % 8));
    return x;
  }
  CUZK_HD static constexpr Int read_be(const uint8_t* in) {
    Int x{};
    for (size_t i = 0; i < BYTES; ++i) x.limb[(BYTES - 1 - i) / 8] |= uint64_t(in[i]) << (8 * ((BYTES - 1 - i) % 8));
    return x;
  }
  CUZK_HD static constexpr void write_le(const Int& x, uint8_t* out) {
    for (size_t i = 0; i < BYTES; ++i) out[i] = uint8_t(x.limb[i / 8] >> (8 * (i % 8)));
  }
  CUZK_HD static constexpr void write_be(const Int& x, uint8_t* out) {
    for (size_t i = 0; i < BYTES; ++i) out[BYTES - 1 - i] = uint8_t(x.limb[i / 8] >> (8 * (i % 8)));
  }

  // A uniformly random element from any source of 64-bit words (rejection sampling).
  template <class Rng>
  static Fp random(Rng& rng) {
    constexpr uint64_t top_mask = (BITS % 64 == 0) ? ~uint64_t(0) : (uint64_t(1) << (BITS % 64)) - 1;
    for (;;) {
      Int x{};
      for (size_t i = 0; i < N; ++i) x.limb[i] = uint64_t(rng());
      x.limb[N - 1] &= top_mask;
      constexpr Int p = MODULUS;
      if (x.less_than(p)) return from_mont(x);
    }
  }

  // In-place batch inversion (Montgomery's trick): one inversion and 3(n-1) products.
  // Zeros stay zero. `scratch` must hold n elements.
  static void batch_inverse(Fp* xs, size_t n, Fp* scratch) {
    Fp acc = one();
    for (size_t i = 0; i < n; ++i) {
      scratch[i] = acc;
      if (!xs[i].is_zero()) acc = acc * xs[i];
    }
    Fp inv = acc.inverse();
    for (size_t i = n; i-- > 0;) {
      if (xs[i].is_zero()) continue;
      Fp xi = xs[i];
      xs[i] = inv * scratch[i];
      inv = inv * xi;
    }
  }

 private:
  CUZK_INLINE constexpr void reduce_once() {
    constexpr Int p = MODULUS;
    Int s = v_;
    uint64_t borrow = s.sub_in_place(p);
    uint64_t mask = 0 - borrow;  // all ones when v < p: keep v
    CUZK_UNROLL
    for (size_t i = 0; i < N; ++i) v_.limb[i] = (v_.limb[i] & mask) | (s.limb[i] & ~mask);
  }

  Int v_;
};

}  // namespace cuzk::ff
