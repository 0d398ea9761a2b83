// The device NTT's passes: the plan, and the per-element and per-butterfly steps that the
// kernels run (ntt_kernels.cuh) and that a host model runs the same way (the plan test), so
// the index arithmetic is checked on machines without a GPU too.
//
// A transform of n = 2^L elements is split into passes over digits of the index (the
// four-step method, applied recursively). DIF pass t works on the digit of k_t bits below
// bit hi_t: each line of 2^k_t elements, stride 2^(hi_t - k_t), gets a local radix-2 DIF
// by a 2^k_t-th root, then element (line, row) is multiplied by the boundary twiddle
// w_t^(col * rev(row)) (w_t = w^(2^(L - hi_t)), col the line's position below the digit).
// After the last pass the result is in bit-reversed order. The DIT transform (bit-reversed
// in, natural out) is the transpose: the same passes in reverse order, each one's boundary
// twiddle applied on its input, and local DITs.
//
// A block holds one tile of 2^tile_log elements in shared memory: 2^(tile_log - k) lines
// that are neighbours in memory (runs of at least 4 elements, 128 bytes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/hd.hpp"

namespace cuzk::cuda::ntt_detail {

CUZK_INLINE uint64_t reverse_bits(uint64_t x, unsigned bits) {
#if defined(__CUDA_ARCH__)
  return bits == 0 ? 0 : __brevll(x) >> (64 - bits);
#else
  x = ((x >> 1) & 0x5555555555555555ull) | ((x & 0x5555555555555555ull) << 1);
  x = ((x >> 2) & 0x3333333333333333ull) | ((x & 0x3333333333333333ull) << 2);
  x = ((x >> 4) & 0x0F0F0F0F0F0F0F0Full) | ((x & 0x0F0F0F0F0F0F0F0Full) << 4);
  x = __builtin_bswap64(x);
  return bits == 0 ? 0 : x >> (64 - bits);
#endif
}

// One pass: the digit [hi - k, hi) of an index of log_n bits, in tiles of 2^tile_log.
struct Geometry {
  unsigned log_n = 0;
  unsigned hi = 0;
  unsigned k = 0;
  unsigned tile_log = 0;
};

// The passes of a transform of 2^log_n elements with tiles of 2^tile_log elements, first
// (top digit) to last. Every pass but the last has lines of at most tile_log - 2 bits, so a
// tile's lines form runs of at least 4 neighbouring elements in memory; the last pass's
// lines are contiguous and may fill a tile.
inline std::vector<Geometry> make_plan(unsigned log_n, unsigned tile_log) {
  std::vector<Geometry> plan;
  if (log_n <= tile_log) {
    plan.push_back({log_n, log_n, log_n, log_n});
    return plan;
  }
  const unsigned kmax = tile_log - 2;
  const unsigned passes = 1 + (log_n - tile_log + kmax - 1) / kmax;
  unsigned k_last = (log_n + passes - 1) / passes;
  if (log_n - (passes - 1) * kmax > k_last) k_last = log_n - (passes - 1) * kmax;
  unsigned rest = log_n - k_last;
  unsigned hi = log_n;
  for (unsigned t = 0; t + 1 < passes; ++t) {
    unsigned left = passes - 1 - t;
    unsigned k = (rest + left - 1) / left;
    plan.push_back({log_n, hi, k, tile_log});
    hi -= k;
    rest -= k;
  }
  plan.push_back({log_n, hi, hi, tile_log});
  return plan;
}

CUZK_INLINE unsigned tile_elements_log(const Geometry& g) { return g.tile_log < g.log_n ? g.tile_log : g.log_n; }

// Where element e of tile `tile` lives: its memory position p, its line within the tile,
// its row within the line and its line's column below the digit.
struct ElemPos {
  uint64_t p;
  uint64_t col;
  unsigned line;
  unsigned row;
};

// Consecutive e are neighbours in memory wherever the geometry allows.
CUZK_INLINE ElemPos tile_element(const Geometry& g, uint64_t tile, unsigned e) {
  const unsigned clog = tile_elements_log(g) - g.k;
  const unsigned slog = g.hi - g.k;
  const unsigned sl = slog < clog ? slog : clog;
  const unsigned colp = e & ((1u << sl) - 1);
  const unsigned row = (e >> sl) & ((1u << g.k) - 1);
  const unsigned tl = e >> (sl + g.k);
  const unsigned line = (tl << sl) | colp;
  const uint64_t lambda = (tile << clog) + line;
  const uint64_t col = lambda & ((uint64_t(1) << slog) - 1);
  const uint64_t p = ((lambda >> slog) << g.hi) + (uint64_t(row) << slog) + col;
  return {p, col, line, row};
}

// The exponent of w of element (col, row)'s boundary twiddle.
CUZK_INLINE uint64_t twiddle_exponent(const Geometry& g, const ElemPos& ep) {
  return (ep.col * reverse_bits(ep.row, g.k)) << (g.log_n - g.hi);
}

// w^e (w^-e when `inverse`) for e < n from the table of w^i, i < n/2: w^(n/2) = -1.
template <class F>
CUZK_INLINE F root_pow(const F* half, unsigned log_n, uint64_t e, bool inverse) {
  const uint64_t n = uint64_t(1) << log_n;
  const uint64_t h = n >> 1;
  if (inverse) e = (n - e) & (n - 1);
  return e < h ? half[e] : -half[e - h];
}

// Butterfly b of a line (b < 2^(k-1)) at stage s: its two rows and the index of its
// twiddle in the table of the line's root (w_R^i, i < R/2). DIF stages halve the distance
// (natural in, bit-reversed out); DIT stages double it.
struct Butterfly {
  unsigned r0;
  unsigned r1;
  unsigned w;
};

CUZK_INLINE Butterfly butterfly_rows(unsigned k, unsigned s, unsigned b, bool dit) {
  const unsigned hl = dit ? s : k - 1 - s;
  const unsigned j = b & ((1u << hl) - 1);
  const unsigned r0 = ((b >> hl) << (hl + 1)) | j;
  return {r0, r0 + (1u << hl), dit ? j << (k - 1 - s) : j << s};
}

template <class F>
CUZK_INLINE void butterfly(F& x0, F& x1, const F& w, bool trivial, bool dit) {
  if (dit) {
    F t = trivial ? x1 : x1 * w;
    x1 = x0 - t;
    x0 = x0 + t;
  } else {
    F d = x0 - x1;
    x0 = x0 + x1;
    x1 = trivial ? d : d * w;
  }
}

// What a pass does to an element on its way in (pre) or out (post).
enum class OpKind : uint8_t {
  kNone,
  kTwiddle,           // the pass's boundary twiddle
  kScale,             // times the constant c
  kPowers,            // times c * g^i, i = p or rev(p), from two tables (lo: g^j, hi: c * g^(j * 2^lo_bits))
  kCombineCanonical,  // post only: out[p] = a[p] * b[p] - x, where b and x carry a factor R^-1 (their
                      // Montgomery limbs are canonical integers), so the product lands canonical
  kCombineMont,       // post only: out[p] = a[p] * b[p] - x (Montgomery form)
};

template <class F>
struct Op {
  OpKind kind = OpKind::kNone;
  bool rev_index = false;
  unsigned lo_bits = 0;
  const F* lo = nullptr;
  const F* hi = nullptr;
  F c;
  const F* a = nullptr;
  const F* b = nullptr;
  void* out = nullptr;
};

template <class F>
struct PassArgs {
  F* data;
  const F* half;  // w^i for i < n/2
  Geometry g;
  bool inverse;  // by w^-1
  bool dit;
  Op<F> pre;
  Op<F> post;
};

// c * g^i from an op's two tables.
template <class F>
CUZK_INLINE F power_factor(const Op<F>& op, uint64_t i) {
  return op.lo[i & ((uint64_t(1) << op.lo_bits) - 1)] * op.hi[i >> op.lo_bits];
}

// x after the factors of `op` (kNone, kTwiddle, kScale, kPowers) at element ep.
template <class F>
CUZK_INLINE F apply_factor(const Op<F>& op, const PassArgs<F>& a, const ElemPos& ep, const F& x) {
  switch (op.kind) {
    case OpKind::kTwiddle: {
      const uint64_t e = twiddle_exponent(a.g, ep);
      return e == 0 ? x : x * root_pow(a.half, a.g.log_n, e, a.inverse);
    }
    case OpKind::kScale:
      return x * op.c;
    case OpKind::kPowers:
      return x * power_factor(op, op.rev_index ? reverse_bits(ep.p, a.g.log_n) : ep.p);
    default:
      return x;
  }
}

// Writes element ep's final value x of the pass.
template <class F>
CUZK_INLINE void store_element(const PassArgs<F>& a, const ElemPos& ep, const F& x) {
  const Op<F>& op = a.post;
  if (op.kind == OpKind::kCombineCanonical || op.kind == OpKind::kCombineMont) {
    // Read a and b before writing out: out may alias a.
    const F v = op.a[ep.p] * op.b[ep.p] - x;
    if (op.kind == OpKind::kCombineCanonical) {
      static_cast<typename F::Int*>(op.out)[ep.p] = v.mont();
    } else {
      static_cast<F*>(op.out)[ep.p] = v;
    }
    return;
  }
  a.data[ep.p] = apply_factor(op, a, ep, x);
}

CUZK_INLINE unsigned line_stride(const Geometry& g) { return (1u << g.k) + 1; }
CUZK_INLINE unsigned tile_words(const Geometry& g) { return (1u << (tile_elements_log(g) - g.k)) * line_stride(g); }
// Where (line, row) sits in shared memory: lines padded by one element, and a row's low two
// bits XORed with its next two, so that the radix-4 step's groups of four rows spread over
// the banks (a permutation within each group of four keeps runs of rows conflict-free).
CUZK_INLINE unsigned smem_index(const Geometry& g, unsigned line, unsigned row) {
  return line * line_stride(g) + (row ^ ((row >> 2) & 3));
}

// The stages that run one at a time through shared memory; the two stages whose twiddles
// are 1 and w_R^(R/4) only (DIF's last two, DIT's first two) run as one radix-4 step in
// registers when the line has at least 4 rows.
CUZK_INLINE bool has_radix4(const Geometry& g) { return g.k >= 2; }
CUZK_INLINE unsigned first_single_stage(const Geometry& g, bool dit) { return dit && has_radix4(g) ? 2 : 0; }
CUZK_INLINE unsigned end_single_stage(const Geometry& g, bool dit) { return !dit && has_radix4(g) ? g.k - 2 : g.k; }

// The three phases of a pass over one tile, run by `threads` threads with index `tid` (the
// kernel puts a barrier between phases and between stages; the host model runs one thread).
// smem holds the tile, then the table of the line's root.
template <class F>
CUZK_INLINE void load_tile(const PassArgs<F>& a, uint64_t tile, F* smem, unsigned tid, unsigned threads) {
  const unsigned count = 1u << tile_elements_log(a.g);
  const unsigned half_line = (1u << a.g.k) >> 1;
  F* w = smem + tile_words(a.g);
  for (unsigned i = tid; i < half_line; i += threads) {
    w[i] = root_pow(a.half, a.g.log_n, uint64_t(i) << (a.g.log_n - a.g.k), a.inverse);
  }
  for (unsigned e = tid; e < count; e += threads) {
    const ElemPos ep = tile_element(a.g, tile, e);
    smem[smem_index(a.g, ep.line, ep.row)] = apply_factor(a.pre, a, ep, a.data[ep.p]);
  }
}

template <class F>
CUZK_INLINE void tile_stage(const PassArgs<F>& a, unsigned s, F* smem, unsigned tid, unsigned threads) {
  const unsigned count = 1u << tile_elements_log(a.g);
  const unsigned k = a.g.k;
  const F* w = smem + tile_words(a.g);
  for (unsigned b = tid; b < count / 2; b += threads) {
    const unsigned line = b >> (k - 1);
    const Butterfly bf = butterfly_rows(k, s, b & ((1u << (k - 1)) - 1), a.dit);
    F& y0 = smem[smem_index(a.g, line, bf.r0)];
    F& y1 = smem[smem_index(a.g, line, bf.r1)];
    F x0 = y0, x1 = y1;
    butterfly(x0, x1, w[bf.w], bf.w == 0, a.dit);
    y0 = x0;
    y1 = x1;
  }
}

// DIF's stages at distance 2 and 1 (DIT's at 1 and 2) on rows 4m .. 4m+3 of each line: of
// the four butterflies only (1, 3) at distance 2 has a twiddle other than 1, w_R^(R/4).
template <class F>
CUZK_INLINE void tile_radix4(const PassArgs<F>& a, F* smem, unsigned tid, unsigned threads) {
  const unsigned count = 1u << tile_elements_log(a.g);
  const unsigned k = a.g.k;
  const F w4 = smem[tile_words(a.g) + ((1u << k) >> 2)];
  const F one = F::one();
  for (unsigned q = tid; q < count / 4; q += threads) {
    const unsigned line = q >> (k - 2);
    const unsigned r = (q & ((1u << (k - 2)) - 1)) << 2;
    unsigned at[4];
    F x[4];
    CUZK_UNROLL
    for (unsigned i = 0; i < 4; ++i) {
      at[i] = smem_index(a.g, line, r + i);
      x[i] = smem[at[i]];
    }
    if (a.dit) {
      butterfly(x[0], x[1], one, true, true);
      butterfly(x[2], x[3], one, true, true);
      butterfly(x[0], x[2], one, true, true);
      butterfly(x[1], x[3], w4, false, true);
    } else {
      butterfly(x[0], x[2], one, true, false);
      butterfly(x[1], x[3], w4, false, false);
      butterfly(x[0], x[1], one, true, false);
      butterfly(x[2], x[3], one, true, false);
    }
    CUZK_UNROLL
    for (unsigned i = 0; i < 4; ++i) smem[at[i]] = x[i];
  }
}

template <class F>
CUZK_INLINE void store_tile(const PassArgs<F>& a, uint64_t tile, const F* smem, unsigned tid, unsigned threads) {
  const unsigned count = 1u << tile_elements_log(a.g);
  for (unsigned e = tid; e < count; e += threads) {
    const ElemPos ep = tile_element(a.g, tile, e);
    store_element(a, ep, smem[smem_index(a.g, ep.line, ep.row)]);
  }
}

// Shared-memory elements one tile of the pass needs.
CUZK_INLINE size_t tile_smem_elements(const Geometry& g) { return tile_words(g) + ((size_t(1) << g.k) >> 1); }

// The bit reversal in tiles of 32 x 32 (log_n >= 10): index bits (r: 5 | m | c: 5) go to
// (rev c | rev m | rev r), so tile m's rows land as rows of tile rev m.
constexpr unsigned kBitrevTileLog = 5;

CUZK_INLINE uint64_t bitrev_position(unsigned log_n, uint64_t m, unsigned r, unsigned c) {
  return (uint64_t(r) << (log_n - kBitrevTileLog)) | (m << kBitrevTileLog) | c;
}

}  // namespace cuzk::cuda::ntt_detail
