// The device NTT's passes: the plan, and the per-element and per-butterfly steps that the
// kernels run (ntt_impl.cuh) and that a host model runs the same way (the plan test), so
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
#if defined(CUZK_FP_CUDA_HOST_MODEL) && !defined(__CUDA_ARCH__)
// The device's field steps modelled on the host (tests): the lazy butterflies below run.
#include "ff/fp_cuda.hpp"
#endif
#if defined(__CUDA_ARCH__) || defined(CUZK_FP_CUDA_HOST_MODEL)
#define CUZK_NTT_FP_STEPS 1
#endif

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

// Where a pass stores: in place; into PassArgs::out at the same positions; or into out at the
// bit-reversed positions (the last pass of dif_reversed), `post` taken there. The last kind
// also spreads a tile's lines over the top bits of the line number instead of the bottom
// ones (the last pass: hi == k), so that stored reversed they land side by side: one row of a
// tile's 4 lines fills 128 bytes. A template argument of the passes: in-place passes compile
// as if the others did not exist.
enum class Store : uint8_t { kInPlace, kOut, kReversedOut };

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
template <Store kStore = Store::kInPlace>
CUZK_INLINE ElemPos tile_element(const Geometry& g, uint64_t tile, unsigned e) {
  const unsigned clog = tile_elements_log(g) - g.k;
  const unsigned slog = g.hi - g.k;
  const unsigned sl = slog < clog ? slog : clog;
  const unsigned colp = e & ((1u << sl) - 1);
  const unsigned row = (e >> sl) & ((1u << g.k) - 1);
  const unsigned tl = e >> (sl + g.k);
  const unsigned line = (tl << sl) | colp;
  const uint64_t lambda =
      kStore == Store::kReversedOut ? (uint64_t(line) << (g.log_n - g.k - clog)) | tile : (tile << clog) + line;
  const uint64_t col = lambda & ((uint64_t(1) << slog) - 1);
  const uint64_t p = ((lambda >> slog) << g.hi) + (uint64_t(row) << slog) + col;
  return {p, col, line, row};
}

// The exponent of w of element (col, row)'s boundary twiddle.
CUZK_INLINE uint64_t twiddle_exponent(const Geometry& g, const ElemPos& ep) {
  return (ep.col * reverse_bits(ep.row, g.k)) << (g.log_n - g.hi);
}

// Device memory in 16-byte accesses (the elements are 16-byte aligned; ntt.hpp asks so).
// load_table reads tables no kernel writes (the read-only path).
template <class I>
CUZK_INLINE I load_int(const I* p) {
#if defined(__CUDA_ARCH__)
  static_assert(sizeof(I) % 16 == 0);
  I r;
  CUZK_UNROLL
  for (size_t i = 0; i < sizeof(I) / 16; ++i) {
    const ulonglong2 v = reinterpret_cast<const ulonglong2*>(p)[i];
    r.limb[2 * i] = v.x;
    r.limb[2 * i + 1] = v.y;
  }
  return r;
#else
  return *p;
#endif
}
template <class I>
CUZK_INLINE void store_int(I* p, const I& x) {
#if defined(__CUDA_ARCH__)
  CUZK_UNROLL
  for (size_t i = 0; i < sizeof(I) / 16; ++i) {
    reinterpret_cast<ulonglong2*>(p)[i] = make_ulonglong2(x.limb[2 * i], x.limb[2 * i + 1]);
  }
#else
  *p = x;
#endif
}
template <class F>
CUZK_INLINE F load_elem(const F* p) {
  return F::from_mont(load_int(&p->mont()));
}
template <class F>
CUZK_INLINE void store_elem(F* p, const F& x) {
  store_int(const_cast<typename F::Int*>(&p->mont()), x.mont());
}
template <class F>
CUZK_INLINE F load_table(const F* p) {
#if defined(__CUDA_ARCH__)
  typename F::Int r;
  CUZK_UNROLL
  for (size_t i = 0; i < sizeof(F) / 16; ++i) {
    const ulonglong2 v = __ldg(reinterpret_cast<const ulonglong2*>(p) + i);
    r.limb[2 * i] = v.x;
    r.limb[2 * i + 1] = v.y;
  }
  return F::from_mont(r);
#else
  return *p;
#endif
}

// w^e (w^-e when `inverse`) for e < n from the table of w^i, i < n/2: w^(n/2) = -1.
template <class F>
CUZK_INLINE F root_pow(const F* half, unsigned log_n, uint64_t e, bool inverse) {
  const uint64_t n = uint64_t(1) << log_n;
  const uint64_t h = n >> 1;
  if (inverse) e = (n - e) & (n - 1);
  return e < h ? load_table(half + e) : -load_table(half + (e - h));
}

// Lazy butterflies (Harvey) on the device: inside a pass the values stay in [0, 2p), products
// by the (canonical) twiddles skip their final subtraction, sums and differences take one
// conditional step each, of 2p; store_element brings values back below p, through the
// element's factor product where it has one (factor_times). Two forms:
//
// - Narrow (5p < 2^(64N): BN254's Fr, p ~ 0.19·2^256): the DIF difference x0 - x1 + 2p
//   (< 4p) goes into the product unreduced, so a DIF butterfly has one conditional step
//   instead of three, a DIT butterfly two. The product's data operand is its row operand x:
//   mont_mul_lazy needs x + p < 2^(64N), which x < 4p meets here.
// - Wide (p < 2^(64N) / 2, every field here: BLS12-381's Fr, p ~ 0.45·2^256): the twiddle is
//   the row operand (x = w < p: the accumulator stays below 2p) and the data the other one
//   (y < 2p: the product is below 2p^2 2^(-64N) + p < 2p); the DIF difference takes its
//   conditional step before the product. Two conditional steps a butterfly instead of three:
//   with M0 opaque (ff/fp_cuda.hpp), 6.6-7.3% off every BLS12-381 pass (BENCHMARKS.md, "Three
//   device-code variants timed"). (A first try at lazy BLS12-381 butterflies kept the data as the row
//   operand and failed on the device: 9fcb473's branch.)
//
// The host model (CUZK_FP_CUDA_HOST_MODEL: cuda_ntt_plan_model_test) runs these same steps
// on the host; elsewhere on the host the butterflies are exact.
template <class F>
constexpr bool kLazyNarrow = F::Params::MODULUS.limb[F::N - 1] < 0x3333333333333333ull;  // cuda_fp::kLazyProducts

#if defined(CUZK_NTT_FP_STEPS)
// A lazy value v times a twiddle w, in [0, 2p): v is the product's row operand where it may
// reach 4p (narrow), w where v stays below 2p (wide).
template <class F>
CUZK_INLINE typename F::Int twiddle_product(const typename F::Int& v, const F& w) {
  if constexpr (kLazyNarrow<F>) {
    return ff::cuda_fp::mont_mul_lazy<typename F::Params>(v, w.mont());
  } else {
    return ff::cuda_fp::mont_mul_lazy<typename F::Params>(w.mont(), v);
  }
}
// A DIF butterfly's x0 - x1 on its way into the product: unreduced, x0 - x1 + 2p < 4p
// (narrow), or one conditional step of 2p (wide).
template <class F>
CUZK_INLINE typename F::Int dif_difference(const typename F::Int& a, const typename F::Int& b) {
  if constexpr (kLazyNarrow<F>) {
    return ff::cuda_fp::sub_plus_2p<typename F::Params>(a, b);
  } else {
    return ff::cuda_fp::sub_lazy<typename F::Params>(a, b);
  }
}
#endif

template <class F>
CUZK_INLINE void butterfly(F& x0, F& x1, const F& w, bool trivial, bool dit) {
#if defined(CUZK_NTT_FP_STEPS)
  using P = typename F::Params;
  namespace cf = ff::cuda_fp;
  const auto a = x0.mont(), b = x1.mont();
  if (dit) {
    const auto t = trivial ? b : twiddle_product(b, w);
    x0 = F::from_mont(cf::add_lazy<P>(a, t));
    x1 = F::from_mont(cf::sub_lazy<P>(a, t));
  } else {
    x0 = F::from_mont(cf::add_lazy<P>(a, b));
    x1 = F::from_mont(trivial ? cf::sub_lazy<P>(a, b) : twiddle_product(dif_difference<F>(a, b), w));
  }
#else
  if (dit) {
    F t = trivial ? x1 : x1 * w;
    x1 = x0 - t;
    x0 = x0 + t;
  } else {
    F d = x0 - x1;
    x0 = x0 + x1;
    x1 = trivial ? d : d * w;
  }
#endif
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
  // The coset factor c * g^rev(p) of an inverse DIF, g^2 = w, folded into its last two
  // passes (coset_fold_ops): rev(p) = rev_k(r) 2^(L-k) + rev_(L-k)(H) for p = H 2^k + r,
  // k the last pass's digit. g^rev(H) = g^b w^(rev(H) >> 1), b = rev(H) & 1 = bit L-1 of p.
  kTwiddleCoset,  // post of the last pass but one: its boundary twiddle times w^(rev(H) >> 1),
                  // one root from the table (lo_bits = k)
  kRowCoset,      // post of the last pass: times lo[b 2^k + r] = c g^(b + rev_k(r) 2^(L-k))
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
  F* out = nullptr;  // where a pass of Store::kOut or kReversedOut stores
};

// c * g^i from an op's two tables.
template <class F>
CUZK_INLINE F power_factor(const Op<F>& op, uint64_t i) {
  return load_table(op.lo + (i & ((uint64_t(1) << op.lo_bits) - 1))) * load_table(op.hi + (i >> op.lo_bits));
}

// x below p again after lazy butterflies (x < 2p).
template <class F>
CUZK_INLINE F canonical(const F& x) {
#if defined(CUZK_NTT_FP_STEPS)
  return F::from_mont(ff::cuda_fp::reduce_once<typename F::Params>(x.mont()));
#else
  return x;
#endif
}

// f·x below p for a factor f < p and a pass's lazy value x < 2p: f is the product's row
// operand (ff/fp_cuda.hpp: below 2p before its final subtraction), so x needs no
// canonical() first.
template <class F>
CUZK_INLINE F factor_times(const F& f, const F& x) {
#if defined(CUZK_NTT_FP_STEPS)
  return F::from_mont(ff::cuda_fp::mont_mul<typename F::Params>(f.mont(), x.mont()));
#else
  return x * f;
#endif
}

// x after the factors of `op` (kNone, kTwiddle, kScale, kPowers) at element ep, below p; x
// is below p (loaded) or, kLazy, below 2p (a pass's result).
template <bool kLazy = false, class F>
CUZK_INLINE F apply_factor(const Op<F>& op, const PassArgs<F>& a, const ElemPos& ep, const F& x) {
  const auto none = [&x] { return kLazy ? canonical(x) : x; };
  switch (op.kind) {
    case OpKind::kTwiddle: {
      const uint64_t e = twiddle_exponent(a.g, ep);
      return e == 0 ? none() : factor_times(root_pow(a.half, a.g.log_n, e, a.inverse), x);
    }
    case OpKind::kScale:
      return factor_times(op.c, x);
    case OpKind::kPowers:
      return factor_times(power_factor(op, op.rev_index ? reverse_bits(ep.p, a.g.log_n) : ep.p), x);
    case OpKind::kTwiddleCoset: {
      const uint64_t n = uint64_t(1) << a.g.log_n;
      const uint64_t h = reverse_bits(ep.p >> op.lo_bits, a.g.log_n - op.lo_bits) >> 1;
      const uint64_t e = twiddle_exponent(a.g, ep) & (n - 1);
      const uint64_t E = (a.inverse ? h + n - e : h + e) & (n - 1);
      return E == 0 ? none() : factor_times(root_pow(a.half, a.g.log_n, E, false), x);
    }
    case OpKind::kRowCoset: {
      const uint64_t b = ep.p >> (a.g.log_n - 1);
      return factor_times(load_table(op.lo + ((b << a.g.k) | (ep.p & ((uint64_t(1) << a.g.k) - 1)))), x);
    }
    default:
      return none();
  }
}

// Writes element ep's final value x of the pass.
template <Store kStore, class F>
CUZK_INLINE void store_element(const PassArgs<F>& a, const ElemPos& ep, const F& x) {
  const Op<F>& op = a.post;
  if (op.kind == OpKind::kCombineCanonical || op.kind == OpKind::kCombineMont) {
    // Read a and b before writing out: out may alias a.
    const F v = load_elem(op.a + ep.p) * load_elem(op.b + ep.p) - canonical(x);
    if (op.kind == OpKind::kCombineCanonical) {
      store_int(static_cast<typename F::Int*>(op.out) + ep.p, v.mont());
    } else {
      store_elem(static_cast<F*>(op.out) + ep.p, v);
    }
    return;
  }
  if constexpr (kStore == Store::kReversedOut) {
    ElemPos q = ep;
    q.p = reverse_bits(ep.p, a.g.log_n);
    store_elem(a.out + q.p, apply_factor<true>(op, a, q, x));
  } else {
    store_elem((kStore == Store::kOut ? a.out : a.data) + ep.p, apply_factor<true>(op, a, ep, x));
  }
}

CUZK_INLINE unsigned line_stride(const Geometry& g) { return (1u << g.k) + 1; }
CUZK_INLINE unsigned tile_words(const Geometry& g) { return (1u << (tile_elements_log(g) - g.k)) * line_stride(g); }
// Where (line, row) sits in shared memory: lines padded by one element, and a row's two low
// bits XORed with its bits 2-3, 4-5 and 6-7. A 128-byte wavefront holds 4 elements, so a
// warp's 32 accesses cost least when they spread over the 4 element slots (index mod 4)
// evenly: they do for runs of consecutive rows and of lines, and for every round's groups
// whatever its lowest distance (ntt_plan_test checks every warp access of the pass shapes of
// 2^11 .. 2^27). Measured on the H200 (BENCHMARKS.md, "Trivial twiddles skipped by whole
// warps"), this swizzle beat one of bits 4-5 and 6-7 only, though both spread the same.
CUZK_INLINE unsigned smem_index(const Geometry& g, unsigned line, unsigned row) {
  return line * line_stride(g) + (row ^ (((row >> 2) ^ (row >> 4) ^ (row >> 6)) & 3));
}

// A line's k stages run in rounds of up to kMaxRound stages, each round in registers on
// groups of 2^stages rows (one shared-memory round trip and one barrier per round instead of
// per stage). The round at the line's edge (DIF's distances 2, 1, DIT's 1, 2) is full and
// knows its trivial twiddles at compile time; the short round, if any, is at the other end.
// DIF runs rounds 0, 1, ... from stage 0; DIT's round 0 is its edge round. Rounds of two
// stages (kMinBlocks in ntt_impl.cuh says why); run_round also takes rounds of three.
constexpr unsigned kMaxRound = 2;

struct Round {
  unsigned s0;      // first stage
  unsigned stages;  // 1 ..= kMaxRound
  bool edge;        // the group's rows are consecutive (its lowest distance is 1)
};

CUZK_INLINE unsigned round_count(const Geometry& g) { return (g.k + kMaxRound - 1) / kMaxRound; }

CUZK_INLINE Round round_of(const Geometry& g, bool dit, unsigned i) {
  const unsigned n = round_count(g);
  const unsigned short_stages = g.k - kMaxRound * (n - 1);
  if (dit) return {kMaxRound * i, i + 1 == n ? short_stages : kMaxRound, i == 0};
  return {i == 0 ? 0 : short_stages + kMaxRound * (i - 1), i == 0 ? short_stages : kMaxRound, i + 1 == n};
}

// The three phases of a pass over one tile, run by `threads` threads with index `tid` (the
// kernel puts a barrier between phases and between stages; the host model runs one thread).
// smem holds the tile, then the table of the line's root.
template <Store kStore = Store::kInPlace, class F>
CUZK_INLINE void load_tile(const PassArgs<F>& a, uint64_t tile, F* smem, unsigned tid, unsigned threads) {
  const unsigned count = 1u << tile_elements_log(a.g);
  const unsigned half_line = (1u << a.g.k) >> 1;
  F* w = smem + tile_words(a.g);
  for (unsigned i = tid; i < half_line; i += threads) {
    w[i] = root_pow(a.half, a.g.log_n, uint64_t(i) << (a.g.log_n - a.g.k), a.inverse);
  }
  for (unsigned e = tid; e < count; e += threads) {
    const ElemPos ep = tile_element<kStore>(a.g, tile, e);
    smem[smem_index(a.g, ep.line, ep.row)] = apply_factor(a.pre, a, ep, load_elem(a.data + ep.p));
  }
}

// log2 of the lowest distance of the round of R stages from stage s0 (0 at the edge).
CUZK_INLINE unsigned round_lo(const Geometry& g, bool dit, unsigned s0, unsigned R, bool edge) {
  return edge ? 0 : (dit ? s0 : g.k - s0 - R);
}

// A round's group of rows: low | t << lo | high << (lo + R) of line `line`, t < 2^R, where
// 2^lo is the round's lowest distance.
struct Group {
  unsigned line;
  unsigned low;
  unsigned high;
};

constexpr unsigned kWarpLog = 5;

// Whether group_of can give each warp one `low`: the tile has 2^(5 + lo) groups or more.
CUZK_INLINE bool warp_uniform_low(const Geometry& g, unsigned R, unsigned lo) {
  return tile_elements_log(g) >= R + lo + kWarpLog;
}

// Group q of a round of R stages with lowest distance 2^lo. Threads take q = tid, tid +
// threads, ... (threads a multiple of 32). With `uniform` (warp_uniform_low), `low` is
// made of q's bits above a warp's five, so the 32 groups of a warp share it: their pairs
// share their twiddles (one broadcast read), and where low == 0 the pairs whose twiddle is
// w^0 skip their products as a whole warp (a radix-2 line transform has 2^k - 1 of them:
// the edge round knows 3/4 of those at compile time, this gives most of the rest). `low`
// is rotated by q's higher bits so that the light warps (low == 0) of a block fall on
// different schedulers (warp % 4) rather than all on one. Else low is q's lowest bits.
CUZK_INLINE Group group_of(const Geometry& g, unsigned R, unsigned lo, unsigned q, bool uniform) {
  unsigned low, rest;
  if (uniform) {
    low = ((q >> kWarpLog) + (q >> (kWarpLog + lo))) & ((1u << lo) - 1);
    rest = (q & ((1u << kWarpLog) - 1)) | ((q >> (kWarpLog + lo)) << kWarpLog);
  } else {
    low = q & ((1u << lo) - 1);
    rest = q >> lo;
  }
  const unsigned high_bits = g.k - R - lo;
  return {rest >> high_bits, low, rest & ((1u << high_bits) - 1)};
}

// One round of R stages from stage s0 (see Round). A group (group_of) holds the rows
// base | t << lo, t < 2^R; DIF stage s0 + i pairs t with t + 2^(R-1-i), DIT stage s0 + i
// with t + 2^i. A pair's twiddle index is j = (r0 mod distance) shifted as in a radix-2
// pass: << s for DIF, << (k - 1 - s) for DIT.
template <unsigned R, bool kEdge, bool kDit, class F>
CUZK_INLINE void tile_round(const PassArgs<F>& a, unsigned s0, F* smem, unsigned tid, unsigned threads) {
  constexpr unsigned kRows = 1u << R;
  const unsigned count = 1u << tile_elements_log(a.g);
  const unsigned k = a.g.k;
  const unsigned lo = round_lo(a.g, kDit, s0, R, kEdge);
  const bool uniform = !kEdge && warp_uniform_low(a.g, R, lo);
  const F* w = smem + tile_words(a.g);
  for (unsigned q = tid; q < (count >> R); q += threads) {
    const Group gr = group_of(a.g, R, lo, q, uniform);
    const unsigned line = gr.line;
    const unsigned low = gr.low;
    const unsigned base = low | (gr.high << (lo + R));
    // The pairs with tj == 0 have j == 0 in these groups (warp-uniform where it is true).
    const bool low_zero = uniform && low == 0;
    unsigned at[kRows];
    F x[kRows];
    CUZK_UNROLL
    for (unsigned t = 0; t < kRows; ++t) {
      at[t] = smem_index(a.g, line, base | (t << lo));
      x[t] = smem[at[t]];
    }
    CUZK_UNROLL
    for (unsigned i = 0; i < R; ++i) {
      const unsigned tb = kDit ? i : R - 1 - i;
      const unsigned s = s0 + i;
      CUZK_UNROLL
      for (unsigned t = 0; t < kRows; ++t) {
        if (t & (1u << tb)) continue;
        const unsigned tj = t & ((1u << tb) - 1);
        const unsigned j = low | (tj << lo);
        const unsigned widx = kDit ? j << (k - 1 - s) : j << s;
        // At the edge j is tj (low is empty): its zero twiddles are known here. Elsewhere
        // j == 0 needs low == 0, a whole warp's branch; where low is not warp-uniform, j ==
        // 0 multiplies by w^0 = 1 rather than diverge.
        if (kEdge) {
          butterfly(x[t], x[t | (1u << tb)], w[widx], tj == 0, kDit);
        } else if (tj == 0 && low_zero) {
          butterfly(x[t], x[t | (1u << tb)], w[widx], true, kDit);
        } else {
          butterfly(x[t], x[t | (1u << tb)], w[widx], false, kDit);
        }
      }
    }
    CUZK_UNROLL
    for (unsigned t = 0; t < kRows; ++t) smem[at[t]] = x[t];
  }
}

// Round r of the pass (the kernel puts a barrier after each).
template <bool kDit, class F>
CUZK_INLINE void run_round(const PassArgs<F>& a, const Round& r, F* smem, unsigned tid, unsigned threads) {
  if constexpr (kMaxRound >= 3) {
    if (r.stages == 3) {
      return r.edge ? tile_round<3, true, kDit>(a, r.s0, smem, tid, threads)
                    : tile_round<3, false, kDit>(a, r.s0, smem, tid, threads);
    }
  }
  if (r.edge) {
    if (r.stages == 2) return tile_round<2, true, kDit>(a, r.s0, smem, tid, threads);
    return tile_round<1, true, kDit>(a, r.s0, smem, tid, threads);
  }
  if (r.stages == 2) return tile_round<2, false, kDit>(a, r.s0, smem, tid, threads);
  return tile_round<1, false, kDit>(a, r.s0, smem, tid, threads);
}

template <Store kStore = Store::kInPlace, class F>
CUZK_INLINE void store_tile(const PassArgs<F>& a, uint64_t tile, const F* smem, unsigned tid, unsigned threads) {
  const unsigned count = 1u << tile_elements_log(a.g);
  // Stored reversed: neighbouring threads take one row of neighbouring lines (side by side).
  const unsigned llog = tile_elements_log(a.g) - a.g.k;
  for (unsigned i = tid; i < count; i += threads) {
    const unsigned e = kStore == Store::kReversedOut ? ((i & ((1u << llog) - 1)) << a.g.k) | (i >> llog) : i;
    const ElemPos ep = tile_element<kStore>(a.g, tile, e);
    store_element<kStore>(a, ep, smem[smem_index(a.g, ep.line, ep.row)]);
  }
}

// Whether an inverse DIF over `plan` can take the coset factor c * g^rev(p) in its last two
// passes (kTwiddleCoset, kRowCoset): two passes or more, and g a square root of the
// domain's root w (snarkjs's shift is w_2n). One product per element instead of two.
template <class F>
bool can_fold_coset(const std::vector<Geometry>& plan, const F& g, const F& w) {
  return plan.size() >= 2 && g.square() == w;
}

// kRowCoset's table for a last pass of k bits: t[b 2^k + r] = c g^(b + rev_k(r) 2^(L-k)).
template <class F>
std::vector<F> row_coset_table(unsigned log_n, unsigned k, const F& g, const F& c) {
  F step = g;  // g^(2^(L-k))
  for (unsigned i = k; i < log_n; ++i) step = step.square();
  const size_t m = size_t(1) << k;
  std::vector<F> pw(m);
  pw[0] = F::one();
  for (size_t j = 1; j < m; ++j) pw[j] = pw[j - 1] * step;
  std::vector<F> t(2 * m);
  const F cg = c * g;
  for (size_t r = 0; r < m; ++r) {
    const F& q = pw[reverse_bits(r, k)];
    t[r] = c * q;
    t[m + r] = cg * q;
  }
  return t;
}

// The posts of an inverse DIF's last pass but one and last pass that apply the coset factor
// whose row_coset_table() is `row` (in device memory for the kernels).
template <class F>
void coset_fold_ops(const std::vector<Geometry>& plan, const F* row, Op<F>& penultimate, Op<F>& last) {
  penultimate = Op<F>{};
  penultimate.kind = OpKind::kTwiddleCoset;
  penultimate.lo_bits = plan.back().k;
  last = Op<F>{};
  last.kind = OpKind::kRowCoset;
  last.lo = row;
}

// Shared-memory elements one tile of the pass needs.
CUZK_INLINE size_t tile_smem_elements(const Geometry& g) { return tile_words(g) + ((size_t(1) << g.k) >> 1); }

// The bit reversal in tiles of 32 x 32 (log_n >= 10): index bits (r: 5 | m | c: 5) go to
// (rev c | rev m | rev r), so tile m's rows land as rows of tile rev m.
constexpr unsigned kBitrevTileLog = 5;

CUZK_INLINE uint64_t bitrev_position(unsigned log_n, uint64_t m, unsigned r, unsigned c) {
  return (uint64_t(r) << (log_n - kBitrevTileLog)) | (m << kBitrevTileLog) | c;
}

// The last DIF pass and the bit reversal after it, overlapped. The last pass's tiles are
// 2^t contiguous elements; a bit-reversal tile pair (m, rev m) holds the elements whose
// bits [5, L - 5) are m or rev m. Where L > 2t, the index bits [t, L - t) of an element (its
// y, o = L - 2t bits) are fixed within a last-pass tile, and a tile pair holds elements of
// y and rev_o(y) only. So the last pass runs in chunks of y values closed under rev_o, and
// each launch runs the pass over one chunk beside the bit reversal of the chunk before
// (which the previous launch finished): memory-bound reversal blocks on the same
// multiprocessors as product-bound pass blocks, on disjoint elements. The last launch
// reverses the final chunk, the class {0}, alone: 1/2^o of the bit reversal.
// On the H200 (BENCHMARKS.md, "The bit reversal in the last pass") 2^27 (o = 5) gained 0.6
// ms of the reversal's 2.6, 2^26 (o = 4) 0.13 ms, and 2^25 (o = 3) and 2^24 (o = 2) lost
// 0.01-0.02 ms: at least 4 bits, so that the chunks are small beside the whole.
constexpr unsigned kMinOverlapBits = 4;
constexpr unsigned kMaxOverlapBits = 6;

struct OverlapLaunch {
  uint32_t pass_blocks = 0;
  uint32_t bitrev_blocks = 0;
  uint32_t n_pass_ys = 0;    // the y values of this launch's last-pass tiles
  uint32_t n_bitrev_ys = 0;  // one y of each class whose tile pairs this launch reverses
  uint16_t pass_ys[1u << kMaxOverlapBits] = {};
  uint16_t bitrev_ys[1u << kMaxOverlapBits] = {};
  unsigned o = 0;  // y = index bits [t, t + o)
  unsigned t = 0;
};

// The launches of the overlapped last pass and bit reversal of `plan`; none where its shape
// does not allow it (one pass, fewer than 2^10 elements, or o outside 4 ..= 6). The chunks
// hold about 2^o / 8 values each: the classes {y, rev y} first, then the palindromes but 0.
inline std::vector<OverlapLaunch> overlap_launches(const std::vector<Geometry>& plan) {
  std::vector<OverlapLaunch> launches;
  if (plan.size() < 2) return launches;
  const unsigned log_n = plan.back().log_n, t = tile_elements_log(plan.back());
  if (log_n < 2 * kBitrevTileLog || log_n < 2 * t + kMinOverlapBits || log_n > 2 * t + kMaxOverlapBits) {
    return launches;
  }
  const unsigned o = log_n - 2 * t;
  const uint32_t ys = 1u << o, target = ys / 8 > 0 ? ys / 8 : 1;
  struct Chunk {
    std::vector<uint16_t> members, leads;
  };
  std::vector<Chunk> chunks(1);
  for (bool palindromes : {false, true}) {
    for (uint32_t y = 1; y < ys; ++y) {
      const uint32_t r = uint32_t(reverse_bits(y, o));
      if (r < y || (r == y) != palindromes) continue;
      if (chunks.back().members.size() >= target) chunks.emplace_back();
      chunks.back().members.push_back(uint16_t(y));
      if (r != y) chunks.back().members.push_back(uint16_t(r));
      chunks.back().leads.push_back(uint16_t(y));
    }
  }
  chunks.push_back({{0}, {0}});
  const uint32_t tiles_per_y = 1u << t;  // the tile index's bits above y
  const uint32_t pairs_per_y = 1u << (2 * (t - kBitrevTileLog));
  for (size_t c = 0; c <= chunks.size(); ++c) {
    OverlapLaunch l;
    l.o = o;
    l.t = t;
    if (c < chunks.size()) {
      for (uint16_t y : chunks[c].members) l.pass_ys[l.n_pass_ys++] = y;
      l.pass_blocks = l.n_pass_ys * tiles_per_y;
    }
    if (c > 0) {
      for (uint16_t y : chunks[c - 1].leads) l.bitrev_ys[l.n_bitrev_ys++] = y;
      l.bitrev_blocks = l.n_bitrev_ys * pairs_per_y;
    }
    launches.push_back(l);
  }
  return launches;
}

// Block b of a launch: a bit-reversal block (and its index among them) or a pass block,
// spread evenly through the grid so that both kinds run at once.
struct OverlapRole {
  bool bitrev;
  uint64_t index;
};
CUZK_INLINE OverlapRole overlap_role(const OverlapLaunch& l, uint64_t b) {
  const uint64_t total = uint64_t(l.pass_blocks) + l.bitrev_blocks;
  const uint64_t before = b * l.bitrev_blocks / total, after = (b + 1) * l.bitrev_blocks / total;
  return after > before ? OverlapRole{true, before} : OverlapRole{false, b - before};
}

// The last-pass tile of pass block j.
CUZK_INLINE uint64_t overlap_pass_tile(const OverlapLaunch& l, uint64_t j) {
  return ((j / l.n_pass_ys) << l.o) | l.pass_ys[j % l.n_pass_ys];
}

// The tile m of bit-reversal block j (its pair is rev m), and whether the block swaps the
// pair: a class {y, rev y} lists y alone, so each of its pairs comes once; a palindrome's
// pairs come from both ends, and the lower tile swaps.
CUZK_INLINE uint64_t overlap_bitrev_tile(const OverlapLaunch& l, uint64_t j) {
  const unsigned lo = l.t - kBitrevTileLog;
  const uint64_t y = l.bitrev_ys[j % l.n_bitrev_ys], rest = j / l.n_bitrev_ys;
  return ((rest >> lo) << (lo + l.o)) | (y << lo) | (rest & ((uint64_t(1) << lo) - 1));
}
CUZK_INLINE bool overlap_bitrev_swaps(const OverlapLaunch& l, uint64_t m, uint64_t mr) {
  const unsigned lo = l.t - kBitrevTileLog;
  const uint64_t mask = (uint64_t(1) << l.o) - 1;
  return m <= mr || ((m >> lo) & mask) != ((mr >> lo) & mask);
}

}  // namespace cuzk::cuda::ntt_detail
