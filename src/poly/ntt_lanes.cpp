// NTT butterflies and pointwise passes in AVX-512 IFMA lanes (see ntt_lanes.hpp; the field
// arithmetic is ff/lanes52.hpp).
#include "poly/ntt_lanes.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "ff/lanes52.hpp"

namespace cuzk::poly::lanes {

namespace {

using namespace ff::lanes52;

template <class F>
using Vec = V<Shape<F>::L>;

template <class F>
constexpr size_t kVecQwords = 8 * Shape<F>::L;  // one lane vector in a 52-bit buffer

// The first pass's blocks (2^12 elements: 160 KiB as 52-bit lanes, L2-resident).
constexpr unsigned kBlockLog = 12;
// Stages per column pass at most (2^6 rows of eight elements: 20 KiB, L1-resident).
constexpr unsigned kMaxColumnLog = 6;
// Below this many elements a loop is not worth handing to other threads.
constexpr size_t kMinParallel = size_t(1) << 12;

// Lane values between stages are normalised and below 4p + 2^208; a butterfly brings x
// below 2p + 2^208 by one subtraction chosen on the top limb alone. A product y·w with
// w < p is below 2p when y·w < p·2^256 (lanes52.hpp), which y < 4p + 2^208 gives only for
// p < 2^254: BN254's r, not BLS12-381's, whose y is first brought below 2p + 2^208 too.
template <class F>
constexpr bool kReduceBeforeMul = F::MODULUS.limb[3] >= (uint64_t(1) << 62);

// x, y <- x + w·y, x − w·y (w canonical), or x − w·y, x + w·y for kInverse, whose twiddles
// are negated (see twiddles).
template <class F, bool kInverse>
CUZK_LANES_INLINE void butterfly(Vec<F>& x, Vec<F>& y, const Vec<F>& w, const Consts<F>& c) {
  const Vec<F> u = sub_if_above(x, c.two_p);
  Vec<F> v;
  if constexpr (kReduceBeforeMul<F>) {
    Vec<F> y2 = sub_if_above(y, c.two_p);
    carry_signed(y2, c.mask);
    v = mul_lazy<F>(y2, w, c);
  } else {
    v = mul_lazy<F>(y, w, c);
  }
  const Vec<F> sum = add(u, v, c.mask), diff = sub(u, v, c.two_p, c.mask);
  x = kInverse ? diff : sum;
  y = kInverse ? sum : diff;
}

// The twiddles of butterflies j0 .. j0+7 of a stage whose twiddle for j is omega^(j·stride).
// The inverse transform's, omega^(−j·stride) = −omega^(n/2 − j·stride), are read negated
// from the same table (the butterfly swaps its sum and difference instead), j = 0's as −1.
template <class F, bool kInverse>
CUZK_LANES_INLINE Vec<F> twiddles(const F* tw, size_t n, size_t j0, size_t stride, const Consts<F>& c) {
  if constexpr (!kInverse) {
    return load8_strided<F>(tw + j0 * stride, ptrdiff_t(stride), c);
  } else {
    if (j0 > 0) return load8_strided<F>(tw + (n / 2 - j0 * stride), -ptrdiff_t(stride), c);
    F w[8];
    w[0] = -F::one();
    for (size_t l = 1; l < 8; ++l) w[l] = tw[n / 2 - l * stride];
    return load8<F>(w, c);
  }
}

// x, y <- x + y, x − y for x, y < 2p (the first stage, on canonical input).
template <class F>
CUZK_LANES_INLINE void butterfly_one(Vec<F>& x, Vec<F>& y, const Consts<F>& c) {
  const Vec<F> u = x;
  x = add(u, y, c.mask);
  y = sub(u, y, c.two_p, c.mask);
}

// A lane value as stored between passes: below 2p + 2^208 (which fits 256 bits), or
// canonical after the last pass.
template <class F>
CUZK_LANES_INLINE Vec<F> settle(const Vec<F>& v, bool canonical, const Consts<F>& c) {
  if (canonical) return reduce(reduce(reduce(v, c.two_p, c.mask), c.p, c.mask), c.p, c.mask);
  Vec<F> r = sub_if_above(v, c.two_p);
  carry_signed(r, c.mask);
  return r;
}

// ---- The first three stages pair lanes of one vector. They run on two vectors (sixteen
// elements) at a time, permuted so that the pairs' first elements fill one vector and
// their partners the other. ----

// Arrangement h (1, 2 or 4) of elements 0..15: lane t of the first vector holds the t-th
// element whose bit h is clear, lane t of the second its partner (+h); h = 0 is natural.
using Order = std::array<int, 16>;

constexpr Order arrangement(int h) {
  Order r{};
  for (int e = 0, t = 0; e < 16; ++e) {
    if (h == 0) {
      r[e] = e;
    } else if ((e & h) == 0) {
      r[t] = e;
      r[t + 8] = e + h;
      ++t;
    }
  }
  return r;
}

// vpermt2q indices taking arrangement `from` to `to`.
struct Shuffle {
  alignas(64) int64_t first[8];
  alignas(64) int64_t second[8];
};

constexpr Shuffle shuffle(int from, int to) {
  const Order a = arrangement(from), b = arrangement(to);
  Shuffle s{};
  for (int t = 0; t < 16; ++t) {
    for (int u = 0; u < 16; ++u) {
      if (a[u] == b[t]) (t < 8 ? s.first[t] : s.second[t - 8]) = u;
    }
  }
  return s;
}

constexpr Shuffle kNaturalTo1 = shuffle(0, 1), k1To2 = shuffle(1, 2), k2To4 = shuffle(2, 4),
                  k4ToNatural = shuffle(4, 0);

template <int L>
CUZK_LANES_INLINE void permute(V<L>& a, V<L>& b, const Shuffle& s) {
  const __m512i first = _mm512_load_si512(s.first), second = _mm512_load_si512(s.second);
#pragma GCC unroll 16
  for (int j = 0; j < L; ++j) {
    const __m512i x = a.l[j], y = b.l[j];
    a.l[j] = _mm512_permutex2var_epi64(x, first, y);
    b.l[j] = _mm512_permutex2var_epi64(x, second, y);
  }
}

// The twiddles of stage h (2 or 4) for the first vector of arrangement h: omega_2h^(e mod h),
// or for kInverse the negated omega_2h^(−(e mod h)), as in twiddles.
template <class F, bool kInverse>
CUZK_LANES_INLINE Vec<F> early_twiddles(int h, size_t n, const F* tw, const Consts<F>& c) {
  const Order order = arrangement(h);
  F w[8];
  for (int t = 0; t < 8; ++t) {
    const size_t m = size_t(order[t] % h) * (n / (2 * size_t(h)));
    w[t] = !kInverse ? tw[m] : m == 0 ? -F::one() : tw[n / 2 - m];
  }
  return load8<F>(w, c);
}

// ---- Passes ----

// Stages 1..block_log of one block of 2^block_log elements, on a 52-bit copy in buf.
template <class F, bool kInverse>
CUZK_LANES void block_pass(F* a, unsigned block_log, unsigned log_n, const F* tw, uint64_t* buf, bool last) {
  constexpr size_t kQ = kVecQwords<F>;
  static const Consts<F> c;
  const size_t n = size_t(1) << log_n, vecs = (size_t(1) << block_log) / 8;
  const Vec<F> w2 = early_twiddles<F, kInverse>(2, n, tw, c), w4 = early_twiddles<F, kInverse>(4, n, tw, c);
  for (size_t q = 0; q < vecs; q += 2) {
    Vec<F> x = load8<F>(a + 8 * q, c), y = load8<F>(a + 8 * q + 8, c);
    permute(x, y, kNaturalTo1);
    butterfly_one<F>(x, y, c);
    permute(x, y, k1To2);
    butterfly<F, kInverse>(x, y, w2, c);
    permute(x, y, k2To4);
    butterfly<F, kInverse>(x, y, w4, c);
    permute(x, y, k4ToNatural);
    store<F>(buf + q * kQ, x);
    store<F>(buf + (q + 1) * kQ, y);
  }
  for (unsigned s = 4; s <= block_log; ++s) {
    const size_t hv = size_t(1) << (s - 4), stride = n >> s;  // half = 8·hv butterflies per group
    for (size_t j = 0; j < hv; ++j) {
      const Vec<F> w = twiddles<F, kInverse>(tw, n, 8 * j, stride, c);
      for (size_t g = j; g < vecs; g += 2 * hv) {
        Vec<F> x = load<F>(buf + g * kQ), y = load<F>(buf + (g + hv) * kQ);
        butterfly<F, kInverse>(x, y, w, c);
        store<F>(buf + g * kQ, x);
        store<F>(buf + (g + hv) * kQ, y);
      }
    }
  }
  for (size_t v = 0; v < vecs; ++v) store8<F>(a + 8 * v, settle<F>(load<F>(buf + v * kQ), last, c));
}

// Stages first_bit+1 .. first_bit+bits on the 2^bits rows at + k·2^first_bit, eight
// elements wide; `low` is the index of at[0] mod 2^first_bit (a multiple of 8).
template <class F, bool kInverse>
CUZK_LANES void column_pass(F* at, unsigned first_bit, unsigned bits, size_t low, unsigned log_n, const F* tw,
                            bool last) {
  constexpr size_t kQ = kVecQwords<F>;
  static const Consts<F> c;
  alignas(64) uint64_t buf[(size_t(1) << kMaxColumnLog) * kQ];
  const size_t n = size_t(1) << log_n, rows = size_t(1) << bits, row = size_t(1) << first_bit;
  for (size_t k = 0; k < rows; ++k) store<F>(buf + k * kQ, load8<F>(at + k * row, c));
  for (unsigned t = 0; t < bits; ++t) {
    const size_t span = size_t(1) << t, stride = n >> (first_bit + t + 1);
    for (size_t m = 0; m < span; ++m) {
      // Row k (k mod 2^t = m) holds butterfly indices m·2^first_bit + low + lane.
      const Vec<F> w = twiddles<F, kInverse>(tw, n, (m << first_bit) + low, stride, c);
      for (size_t k = m; k < rows; k += 2 * span) {
        Vec<F> x = load<F>(buf + k * kQ), y = load<F>(buf + (k + span) * kQ);
        butterfly<F, kInverse>(x, y, w, c);
        store<F>(buf + k * kQ, x);
        store<F>(buf + (k + span) * kQ, y);
      }
    }
  }
  for (size_t k = 0; k < rows; ++k) store8<F>(at + k * row, settle<F>(load<F>(buf + k * kQ), last, c));
}

// This thread's block buffer, 64-byte aligned (kept between calls: 160 KiB per thread).
uint64_t* block_buffer(size_t qwords) {
  thread_local std::vector<uint64_t> storage;
  if (storage.size() < qwords + 8) storage.resize(qwords + 8);
  const auto p = reinterpret_cast<uintptr_t>(storage.data());
  return reinterpret_cast<uint64_t*>((p + 63) & ~uintptr_t(63));
}

template <class F>
CUZK_LANES void scale(F* a, size_t n, const F& c0, const F& g) {
  static const Consts<F> c;
  F p[8];
  p[0] = c0;
  for (int i = 1; i < 8; ++i) p[i] = p[i - 1] * g;
  const F g2 = g * g, g4 = g2 * g2;
  Vec<F> step, pv = load8<F>(p, c);
  broadcast<Shape<F>::L>(step, limbs52<F>((g4 * g4).mont()));
  const bool plain = g.is_one();
  size_t j = 0;
  for (; j + 8 <= n; j += 8) {
    store8<F>(a + j, reduce(mul<F>(load8<F>(a + j, c), pv, c), c.p, c.mask));
    if (!plain) pv = mul<F>(pv, step, c);
  }
  if (j == n) return;
  to_scalar<F>(pv, p);
  for (F q = p[0]; j < n; ++j, q = q * g) a[j] = a[j] * q;
}

// out[i] = a[i]·b[i] − c[i], in Montgomery form or as canonical integers.
template <class F, bool kCanonical>
CUZK_LANES void mul_sub(const F* a, const F* b, const F* cc, size_t n, F* out) {
  static const Consts<F> c;
  Vec<F> one;  // the integer 1: a product with it leaves Montgomery form
  broadcast<Shape<F>::L>(one, limbs52<F>(F::Int::from_u64(1)));
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const Vec<F> d = sub(mul<F>(load8<F>(a + i, c), load8<F>(b + i, c), c), load8<F>(cc + i, c), c.p, c.mask);
    if constexpr (kCanonical) {
      store8<F>(out + i, reduce(mul<F>(d, one, c), c.p, c.mask));  // d·1·2^-256 < p + 1
    } else {
      store8<F>(out + i, reduce(reduce(d, c.two_p, c.mask), c.p, c.mask));  // d < 3p
    }
  }
  for (; i < n; ++i) {
    const F d = a[i] * b[i] - cc[i];
    out[i] = kCanonical ? F::from_mont(d.to_canonical()) : d;
  }
}

template <class F, bool kInverse>
void run_butterflies(F* a, unsigned log_n, const F* tw, ThreadPool& pool) {
  const unsigned block_log = std::min(log_n, kBlockLog);
  const size_t n = size_t(1) << log_n, block = size_t(1) << block_log;
  pool.parallel_for(0, n / block, [&](size_t lo, size_t hi) {
    uint64_t* buf = block_buffer(block / 8 * kVecQwords<F>);
    for (size_t b = lo; b < hi; ++b) {
      block_pass<F, kInverse>(a + b * block, block_log, log_n, tw, buf, block_log == log_n);
    }
  });
  // The rest in column passes of balanced sizes.
  for (unsigned bit = block_log; bit < log_n;) {
    const unsigned left = log_n - bit, passes = (left + kMaxColumnLog - 1) / kMaxColumnLog;
    const unsigned bits = (left + passes - 1) / passes;
    const size_t cols = (size_t(1) << bit) / 8, span = size_t(1) << (bit + bits);
    const bool last = bit + bits == log_n;
    pool.parallel_for(
        0, (n / span) * cols,
        [&](size_t lo, size_t hi) {
          for (size_t i = lo; i < hi; ++i) {
            const size_t low = 8 * (i % cols);
            column_pass<F, kInverse>(a + (i / cols) * span + low, bit, bits, low, log_n, tw, last);
          }
        },
        std::max<size_t>(1, kMinParallel >> (bits + 3)));
    bit += bits;
  }
}

}  // namespace

template <class F>
void butterflies(F* a, unsigned log_n, const F* tw, bool inverse, ThreadPool& pool) {
  if (inverse) {
    run_butterflies<F, true>(a, log_n, tw, pool);
  } else {
    run_butterflies<F, false>(a, log_n, tw, pool);
  }
}

template <class F>
void scale_run(F* a, size_t n, const F& c, const F& g) {
  scale<F>(a, n, c, g);
}

template <class F>
void mul_sub_run(const F* a, const F* b, const F* c, size_t n, F* out) {
  mul_sub<F, false>(a, b, c, n, out);
}

template <class F>
void mul_sub_canonical_run(const F* a, const F* b, const F* c, size_t n, typename F::Int* out) {
  static_assert(sizeof(typename F::Int) == sizeof(F));
  mul_sub<F, true>(a, b, c, n, reinterpret_cast<F*>(out));
}

template void butterflies<bn254::Fr>(bn254::Fr*, unsigned, const bn254::Fr*, bool, ThreadPool&);
template void butterflies<bls12_381::Fr>(bls12_381::Fr*, unsigned, const bls12_381::Fr*, bool, ThreadPool&);
template void scale_run<bn254::Fr>(bn254::Fr*, size_t, const bn254::Fr&, const bn254::Fr&);
template void scale_run<bls12_381::Fr>(bls12_381::Fr*, size_t, const bls12_381::Fr&, const bls12_381::Fr&);
template void mul_sub_run<bn254::Fr>(const bn254::Fr*, const bn254::Fr*, const bn254::Fr*, size_t, bn254::Fr*);
template void mul_sub_run<bls12_381::Fr>(const bls12_381::Fr*, const bls12_381::Fr*, const bls12_381::Fr*, size_t,
                                         bls12_381::Fr*);
template void mul_sub_canonical_run<bn254::Fr>(const bn254::Fr*, const bn254::Fr*, const bn254::Fr*, size_t,
                                               bn254::Fr::Int*);
template void mul_sub_canonical_run<bls12_381::Fr>(const bls12_381::Fr*, const bls12_381::Fr*, const bls12_381::Fr*,
                                                   size_t, bls12_381::Fr::Int*);

}  // namespace cuzk::poly::lanes
