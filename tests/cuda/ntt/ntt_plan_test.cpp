// The device NTT's pass plan and per-element steps (cuda/ntt/ntt_pass.hpp), run on the host
// one tile at a time as the kernels run them, against poly's transforms. Needs no GPU: it
// checks the index arithmetic of every pass shape on any machine.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "core/thread_pool.hpp"
#include "cuda/ntt/ntt_pass.hpp"
#include "ff/fields.hpp"
#include "ff/roots.hpp"
#include "poly/domain.hpp"
#include "poly/h_poly.hpp"

namespace cuzk::cuda::ntt_detail {
namespace {

// The kernels' work, serially: what ntt_impl.cuh launches, with one "thread" per tile.
template <class F>
struct HostModel {
  unsigned log_n;
  std::vector<Geometry> plan;
  std::vector<F> half;
  struct Table {
    std::vector<F> v;
    unsigned lo_bits;
  };

  HostModel(unsigned log_n_, unsigned tile_log, const F& omega) : log_n(log_n_), plan(make_plan(log_n_, tile_log)) {
    half.resize((size_t(1) << log_n) / 2);
    F p = F::one();
    for (auto& h : half) {
      h = p;
      p = p * omega;
    }
  }

  Table table(const F& g, const F& c) const {
    Table t;
    t.lo_bits = (log_n + 1) / 2;
    size_t lo_n = size_t(1) << t.lo_bits, hi_n = size_t(1) << (log_n - t.lo_bits);
    t.v.resize(lo_n + hi_n);
    t.v[0] = F::one();
    for (size_t i = 1; i < lo_n; ++i) t.v[i] = t.v[i - 1] * g;
    F step = t.v[lo_n - 1] * g;
    t.v[lo_n] = c;
    for (size_t j = 1; j < hi_n; ++j) t.v[lo_n + j] = t.v[lo_n + j - 1] * step;
    return t;
  }
  static Op<F> powers(const Table& t, bool rev) {
    Op<F> op;
    op.kind = OpKind::kPowers;
    op.rev_index = rev;
    op.lo_bits = t.lo_bits;
    op.lo = t.v.data();
    op.hi = t.v.data() + (size_t(1) << t.lo_bits);
    return op;
  }

  void pass(F* d, const Geometry& g, bool inverse, bool dit, const Op<F>& pre, const Op<F>& post) const {
    launch<Store::kInPlace>({d, half.data(), g, inverse, dit, pre, post});
  }
  template <Store kStore>
  void launch(const PassArgs<F>& a) const {
    const Geometry& g = a.g;
    const bool dit = a.dit;
    std::vector<F> smem(tile_smem_elements(g));
    const uint64_t tiles = (uint64_t(1) << log_n) >> tile_elements_log(g);
    for (uint64_t t = 0; t < tiles; ++t) {
      load_tile<kStore>(a, t, smem.data(), 0, 1);
      for (unsigned i = 0; i < round_count(g); ++i) {
        if (dit) {
          run_round<true>(a, round_of(g, true, i), smem.data(), 0, 1);
        } else {
          run_round<false>(a, round_of(g, false, i), smem.data(), 0, 1);
        }
      }
      store_tile<kStore>(a, t, smem.data(), 0, 1);
    }
  }
  void dif(F* d, bool inverse, const Op<F>& pre, const Op<F>& post, const Op<F>* penultimate = nullptr) const {
    Op<F> none, tw;
    tw.kind = OpKind::kTwiddle;
    for (size_t t = 0; t < plan.size(); ++t) {
      const Op<F>& between = penultimate != nullptr && t + 2 == plan.size() ? *penultimate : tw;
      pass(d, plan[t], inverse, false, t == 0 ? pre : none, t + 1 == plan.size() ? post : between);
    }
  }
  // The inverse DIF with the coset factor c * g^rev(p) on its output, as shift_evaluations
  // runs it: folded into the last two passes where it can be, else from the two tables.
  void inverse_coset_dif(F* d, const F& g, const F& c, const F& w) const {
    if (can_fold_coset(plan, g, w)) {
      const std::vector<F> row = row_coset_table(log_n, plan.back().k, g, c);
      Op<F> pen, last;
      coset_fold_ops(plan, row.data(), pen, last);
      dif(d, true, Op<F>{}, last, &pen);
      return;
    }
    const Table t = table(g, c);
    dif(d, true, Op<F>{}, powers(t, true));
  }
  void dit(F* d, bool inverse, const Op<F>& post) const {
    Op<F> none, tw;
    tw.kind = OpKind::kTwiddle;
    for (size_t t = plan.size(); t-- > 0;)
      pass(d, plan[t], inverse, true, t + 1 == plan.size() ? none : tw, t == 0 ? post : none);
  }
  static F scaled(const Op<F>& op, uint64_t q, const F& x) {
    if (op.kind == OpKind::kScale) return x * op.c;
    if (op.kind == OpKind::kPowers) return x * power_factor(op, q);
    return x;
  }
  // One block of the tile kernel: tile m swapped with tile mr (or reversed in itself).
  void bitrev_tiles(F* d, uint64_t m, uint64_t mr, const Op<F>& op) const {
    constexpr unsigned side = 1u << kBitrevTileLog;
    std::vector<F> x(side * side), y(side * side);
    for (unsigned r = 0; r < side; ++r)
      for (unsigned c = 0; c < side; ++c) {
        x[r * side + c] = d[bitrev_position(log_n, m, r, c)];
        y[r * side + c] = d[bitrev_position(log_n, mr, r, c)];
      }
    for (unsigned r = 0; r < side; ++r)
      for (unsigned c = 0; c < side; ++c) {
        unsigned src = unsigned(reverse_bits(c, kBitrevTileLog)) * side + unsigned(reverse_bits(r, kBitrevTileLog));
        uint64_t q = bitrev_position(log_n, m, r, c);
        d[q] = scaled(op, q, m != mr ? y[src] : x[src]);
        if (m != mr) {
          uint64_t q2 = bitrev_position(log_n, mr, r, c);
          d[q2] = scaled(op, q2, x[src]);
        }
      }
  }
  // The tile kernel's reads and writes (log_n >= 10), or the small kernel's.
  void bitrev(F* d, const Op<F>& op) const {
    if (log_n >= 2 * kBitrevTileLog) {
      const unsigned mid = log_n - 2 * kBitrevTileLog;
      for (uint64_t m = 0; m < (uint64_t(1) << mid); ++m) {
        uint64_t mr = reverse_bits(m, mid);
        if (m <= mr) bitrev_tiles(d, m, mr, op);
      }
      return;
    }
    for (uint64_t i = 0; i < (uint64_t(1) << log_n); ++i) {
      uint64_t r = reverse_bits(i, log_n);
      if (i > r) continue;
      F xi = d[i], xr = d[r];
      d[i] = scaled(op, i, xr);
      if (i != r) d[r] = scaled(op, r, xi);
    }
  }
  // dif() without a post op, then bitrev(op), through `scratch` as NttDomain::State::
  // dif_reversed runs them.
  void dif_reversed(F* d, F* scratch, bool inverse, const Op<F>& pre, const Op<F>& op) const {
    Op<F> none, tw;
    tw.kind = OpKind::kTwiddle;
    for (size_t t = 0; t < plan.size(); ++t) {
      const bool last = t + 1 == plan.size();
      PassArgs<F> a{last ? scratch : d, half.data(), plan[t], inverse, false, t == 0 ? pre : none, last ? op : tw};
      if (last) {
        a.out = d;
        launch<Store::kReversedOut>(a);
      } else if (t + 2 == plan.size()) {
        a.out = scratch;
        launch<Store::kOut>(a);
      } else {
        launch<Store::kInPlace>(a);
      }
    }
  }
  // dif() without a post op, then bitrev(): as NttDomain::State::dif_bitrev launches them,
  // the overlapped launches' blocks in grid order. Where a launch's pass blocks and bit-
  // reversal blocks would touch the same element (a race on the device), records it in
  // `races`.
  void dif_bitrev(F* d, bool inverse, const Op<F>& pre, const Op<F>& op, size_t* races = nullptr) const {
    const std::vector<OverlapLaunch> launches = overlap_launches(plan);
    if (launches.empty()) {
      dif(d, inverse, pre, Op<F>{});
      bitrev(d, op);
      return;
    }
    Op<F> none, tw;
    tw.kind = OpKind::kTwiddle;
    for (size_t t = 0; t + 1 < plan.size(); ++t) pass(d, plan[t], inverse, false, t == 0 ? pre : none, tw);
    const Geometry& g = plan.back();
    const PassArgs<F> a{d, half.data(), g, inverse, false, none, none};
    std::vector<F> smem(tile_smem_elements(g));
    const unsigned mid = log_n - 2 * kBitrevTileLog, t = tile_elements_log(g);
    for (const OverlapLaunch& l : launches) {
      std::vector<uint8_t> by(size_t(1) << log_n, 0);  // 1: a pass block's, 2: a reversal block's
      auto touch = [&](uint64_t p, uint8_t who) {
        if (races != nullptr && by[p] != 0 && by[p] != who) ++*races;
        by[p] = who;
      };
      for (uint64_t b = 0; b < uint64_t(l.pass_blocks) + l.bitrev_blocks; ++b) {
        const OverlapRole role = overlap_role(l, b);
        if (!role.bitrev) {
          const uint64_t tile = overlap_pass_tile(l, role.index);
          for (uint64_t e = 0; e < (uint64_t(1) << t); ++e) touch((tile << t) + e, 1);
          load_tile(a, tile, smem.data(), 0, 1);
          for (unsigned i = 0; i < round_count(g); ++i) run_round<false>(a, round_of(g, false, i), smem.data(), 0, 1);
          store_tile(a, tile, smem.data(), 0, 1);
          continue;
        }
        const uint64_t m = overlap_bitrev_tile(l, role.index), mr = reverse_bits(m, mid);
        if (!overlap_bitrev_swaps(l, m, mr)) continue;
        for (unsigned r = 0; r < (1u << kBitrevTileLog); ++r)
          for (unsigned c = 0; c < (1u << kBitrevTileLog); ++c) {
            touch(bitrev_position(log_n, m, r, c), 2);
            touch(bitrev_position(log_n, mr, r, c), 2);
          }
        bitrev_tiles(d, m, mr, op);
      }
    }
  }
};

using Fr = bn254::Fr;

template <class F = Fr>
std::vector<F> random_vec(size_t n, std::mt19937_64& rng) {
  std::vector<F> v(n);
  for (auto& x : v) x = F::random(rng);
  return v;
}

TEST(NttPlan, PassesCoverEveryBitOnce) {
  for (unsigned tile_log = 6; tile_log <= 11; ++tile_log) {
    for (unsigned log_n = 1; log_n <= 28; ++log_n) {
      auto plan = make_plan(log_n, tile_log);
      unsigned hi = log_n;
      for (size_t t = 0; t < plan.size(); ++t) {
        EXPECT_EQ(plan[t].hi, hi);
        EXPECT_GE(plan[t].k, 1u);
        if (t + 1 < plan.size()) {
          EXPECT_LE(plan[t].k, tile_log - 2) << log_n << " " << tile_log;
        }
        EXPECT_LE(plan[t].k, tile_log);
        hi -= plan[t].k;
      }
      EXPECT_EQ(hi, 0u) << "log_n " << log_n << " tile_log " << tile_log;
    }
  }
}

TEST(NttPlan, TileElementsCoverEveryPositionOnce) {
  for (unsigned tile_log : {6u, 8u, 11u}) {
    for (unsigned log_n = 1; log_n <= 16; ++log_n) {
      for (const Geometry& g : make_plan(log_n, tile_log)) {
        std::vector<int> seen(size_t(1) << log_n, 0);
        uint64_t tiles = (uint64_t(1) << log_n) >> tile_elements_log(g);
        for (uint64_t t = 0; t < tiles; ++t)
          for (unsigned e = 0; e < (1u << tile_elements_log(g)); ++e) ++seen[tile_element(g, t, e).p];
        for (size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], 1) << log_n << " " << tile_log << " pos " << i;
      }
    }
  }
}

// Round i of pass g as tile_round runs it: its lowest distance 2^lo, whether group_of gives
// warps one `low`, and the rows of a group.
struct RoundShape {
  Round r;
  unsigned lo;
  bool uniform;
  RoundShape(const Geometry& g, bool dit, unsigned i) : r(round_of(g, dit, i)) {
    lo = round_lo(g, dit, r.s0, r.stages, r.edge);
    uniform = !r.edge && warp_uniform_low(g, r.stages, lo);
  }
  unsigned row(const Group& gr, unsigned t) const { return gr.low | (t << lo) | (gr.high << (lo + r.stages)); }
};

// Every round of every pass shape, both directions: group_of's groups cover each row of
// the tile once; where it promises a warp-uniform `low`, each warp's 32 groups share it.
TEST(NttPlan, RoundGroupsCoverEveryRowOnce) {
  for (unsigned tile_log : {6u, 8u, 11u}) {
    for (unsigned log_n = 1; log_n <= 20; ++log_n) {
      for (const Geometry& g : make_plan(log_n, tile_log)) {
        const unsigned count = 1u << tile_elements_log(g);
        for (bool dit : {false, true}) {
          for (unsigned i = 0; i < round_count(g); ++i) {
            const RoundShape rs(g, dit, i);
            const Round& r = rs.r;
            const unsigned lo = rs.lo;
            const bool uniform = rs.uniform;
            SCOPED_TRACE(testing::Message() << "log_n " << log_n << " tile_log " << tile_log << " k " << g.k << " dit "
                                            << dit << " round " << i << " lo " << lo);
            std::vector<int> seen(count, 0);
            for (unsigned q = 0; q < (count >> r.stages); ++q) {
              const Group gr = group_of(g, r.stages, lo, q, uniform);
              ASSERT_LT(gr.low, 1u << lo);
              if (uniform) {
                ASSERT_EQ(gr.low, group_of(g, r.stages, lo, q & ~31u, uniform).low);
              }
              for (unsigned t = 0; t < (1u << r.stages); ++t) {
                const unsigned row = rs.row(gr, t);
                ASSERT_LT(row, 1u << g.k);
                ASSERT_LT(gr.line, count >> g.k);
                ++seen[(gr.line << g.k) | row];
              }
            }
            for (unsigned e = 0; e < count; ++e) ASSERT_EQ(seen[e], 1) << "row " << e;
          }
        }
      }
    }
  }
}

// The kernels' tiles (2^11 elements, 256 threads) read and write shared memory in warps of
// 32 elements of 32 bytes; a 128-byte wavefront serves 4, so a warp's access costs least
// when its elements spread over the 4 slots (index mod 4) 8 and 8. Every warp access of
// every round and of the tile loads and stores, at the pass shapes of 2^11 .. 2^27.
TEST(NttPlan, WarpAccessesSpreadOverTheSharedMemorySlots) {
  constexpr unsigned kTileLog = 11;
  auto check = [](const std::vector<unsigned>& at, const std::string& what) {
    unsigned slots[4] = {0, 0, 0, 0};
    for (unsigned i : at) ++slots[i & 3];
    for (unsigned s = 0; s < 4; ++s) ASSERT_EQ(slots[s], 8u) << what << ": slot " << s;
  };
  for (unsigned log_n = kTileLog; log_n <= 27; ++log_n) {
    for (const Geometry& g : make_plan(log_n, kTileLog)) {
      const unsigned count = 1u << tile_elements_log(g);
      for (unsigned e0 = 0; e0 < count; e0 += 32) {
        std::vector<unsigned> at;
        for (unsigned e = e0; e < e0 + 32; ++e) {
          const ElemPos ep = tile_element(g, 1, e);
          at.push_back(smem_index(g, ep.line, ep.row));
        }
        check(at, "log_n " + std::to_string(log_n) + " k " + std::to_string(g.k) + " tile load/store e " +
                      std::to_string(e0));
      }
      for (bool dit : {false, true}) {
        for (unsigned i = 0; i < round_count(g); ++i) {
          const RoundShape rs(g, dit, i);
          for (unsigned q0 = 0; q0 < (count >> rs.r.stages); q0 += 32) {
            for (unsigned t = 0; t < (1u << rs.r.stages); ++t) {
              std::vector<unsigned> at;
              for (unsigned q = q0; q < q0 + 32; ++q) {
                const Group gr = group_of(g, rs.r.stages, rs.lo, q, rs.uniform);
                at.push_back(smem_index(g, gr.line, rs.row(gr, t)));
              }
              check(at, "log_n " + std::to_string(log_n) + " k " + std::to_string(g.k) + " dit " + std::to_string(dit) +
                            " round " + std::to_string(i) + " q " + std::to_string(q0) + " t " + std::to_string(t));
            }
          }
        }
      }
    }
  }
}

// Forward, inverse, both cosets and the two H steps of the model against poly over F, at
// every size up to 2^max_log and tile shapes that make 1, 2, 3 and more passes.
template <class F>
void model_matches_poly(unsigned max_log) {
  std::mt19937_64 rng(std::random_device{}());
  ThreadPool pool(2);
  for (unsigned tile_log : {6u, 7u, 11u}) {
    for (unsigned log_n = 1; log_n <= max_log; ++log_n) {
      SCOPED_TRACE("log_n " + std::to_string(log_n) + " tile_log " + std::to_string(tile_log));
      auto dom = poly::EvaluationDomain<F>::create(log_n).value();
      HostModel<F> m(log_n, tile_log, dom.omega());
      const size_t n = dom.size();
      const F shift = F::random(rng);
      const F n_inv = dom.size_inv();
      Op<F> none;

      auto x = random_vec<F>(n, rng);
      auto want = x;
      dom.ntt(want, pool);
      auto got = x;
      size_t races = 0;
      m.dif_bitrev(got.data(), false, none, none, &races);
      ASSERT_EQ(got, want) << "forward";
      ASSERT_EQ(races, 0u);
      std::vector<F> scratch(n);
      if (m.plan.size() >= 2) {
        got = x;
        m.dif_reversed(got.data(), scratch.data(), false, none, none);
        ASSERT_EQ(got, want) << "forward, stored bit-reversed";
      }

      want = x;
      dom.intt(want, pool);
      got = x;
      Op<F> scale;
      scale.kind = OpKind::kScale;
      scale.c = n_inv;
      m.dif_bitrev(got.data(), true, none, scale);
      ASSERT_EQ(got, want) << "inverse";

      want = x;
      dom.coset_ntt(want, shift, pool);
      got = x;
      auto fwd = m.table(shift, F::one());
      m.dif_bitrev(got.data(), false, HostModel<F>::powers(fwd, false), none);
      ASSERT_EQ(got, want) << "coset forward";

      want = x;
      dom.coset_intt(want, shift, pool);
      got = x;
      auto back = m.table(shift.inverse(), n_inv);
      m.dif_bitrev(got.data(), true, none, HostModel<F>::powers(back, false));
      ASSERT_EQ(got, want) << "coset inverse";
      if (m.plan.size() >= 2) {
        got = x;
        m.dif_reversed(got.data(), scratch.data(), true, none, HostModel<F>::powers(back, false));
        ASSERT_EQ(got, want) << "coset inverse, stored bit-reversed";
      }

      // snarkjs H, p aliasing a.
      auto a = random_vec<F>(n, rng), b = random_vec<F>(n, rng), c = random_vec<F>(n, rng);
      auto ra = a, rb = b, rc = c;
      std::vector<typename F::Int> rp(n);
      ASSERT_TRUE(poly::snarkjs_h(dom, std::span<F>(ra), std::span<F>(rb), std::span<F>(rc),
                                  std::span<typename F::Int>(rp), pool)
                      .is_ok());
      F s = poly::snarkjs_odd_shift(dom);
      typename F::Int one_limb{};
      one_limb.limb[0] = 1;
      const F r_inv = F::from_mont(one_limb);  // b and c times R^-1
      // The folded coset factor wherever the plan has two passes (the shift is w_2n).
      EXPECT_EQ(can_fold_coset(m.plan, s, dom.omega()), m.plan.size() >= 2);
      m.inverse_coset_dif(a.data(), s, n_inv, dom.omega());
      m.inverse_coset_dif(b.data(), s, n_inv * r_inv, dom.omega());
      m.inverse_coset_dif(c.data(), s, n_inv * r_inv, dom.omega());
      m.dit(a.data(), false, none);
      m.dit(b.data(), false, none);
      Op<F> combine;
      combine.kind = OpKind::kCombineCanonical;
      combine.a = a.data();
      combine.b = b.data();
      combine.out = a.data();
      m.dit(c.data(), false, combine);
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(a[i].mont(), rp[i]) << "snarkjs H at " << i;
    }
  }
}

TEST(NttPlan, ModelMatchesPoly) {
  ASSERT_NO_FATAL_FAILURE(model_matches_poly<bn254::Fr>(14));
  ASSERT_NO_FATAL_FAILURE(model_matches_poly<bls12_381::Fr>(12));
}

// A last pass with spread lines covers every position once, and the rows of a tile's lines
// stored bit-reversed land side by side: 2^(tile_log - k) elements in a row.
TEST(NttPlan, SpreadLinesCoverEveryPositionAndStoreSideBySide) {
  for (unsigned tile_log : {6u, 8u, 11u}) {
    for (unsigned log_n = tile_log + 1; log_n <= 20; ++log_n) {
      SCOPED_TRACE("log_n " + std::to_string(log_n) + " tile_log " + std::to_string(tile_log));
      const Geometry g = make_plan(log_n, tile_log).back();
      const unsigned t = tile_elements_log(g), llog = t - g.k;
      std::vector<uint8_t> seen(size_t(1) << log_n, 0);
      for (uint64_t tile = 0; tile < (uint64_t(1) << (log_n - t)); ++tile) {
        for (unsigned e = 0; e < (1u << t); ++e) {
          const ElemPos ep = tile_element<Store::kReversedOut>(g, tile, e);
          ASSERT_LT(ep.p, seen.size());
          ASSERT_EQ(seen[ep.p]++, 0);
          ASSERT_EQ(ep.line, e >> g.k);
          ASSERT_EQ(ep.row, e & ((1u << g.k) - 1));
          // Line j's element of a row sits j places after line 0's once reversed.
          const ElemPos first = tile_element<Store::kReversedOut>(g, tile, ep.row);
          ASSERT_EQ(reverse_bits(ep.p, log_n), reverse_bits(first.p, log_n) + reverse_bits(ep.line, llog));
        }
      }
    }
  }
}

// Every shape's overlapped launches: each last-pass tile once, each bit-reversal tile pair
// swapped once, and each pair in the launch after the one whose pass finished its elements;
// the last launch reverses the class {0} alone.
TEST(NttPlan, OverlapLaunchesCoverEveryTileAndPairOnce) {
  size_t shapes = 0;
  for (unsigned tile_log = 6; tile_log <= 11; ++tile_log) {
    for (unsigned log_n = 1; log_n <= 28; ++log_n) {
      SCOPED_TRACE("log_n " + std::to_string(log_n) + " tile_log " + std::to_string(tile_log));
      const auto plan = make_plan(log_n, tile_log);
      const auto launches = overlap_launches(plan);
      const unsigned t = tile_elements_log(plan.back());
      const bool fits = plan.size() >= 2 && log_n >= 2 * kBitrevTileLog && log_n >= 2 * t + 4 && log_n <= 2 * t + 6;
      ASSERT_EQ(!launches.empty(), fits);
      if (!fits) continue;
      ++shapes;
      const unsigned o = log_n - 2 * t, mid = log_n - 2 * kBitrevTileLog;
      const uint64_t mask = (uint64_t(1) << o) - 1;
      std::vector<uint8_t> tiles(size_t(1) << (log_n - t), 0), pairs(size_t(1) << mid, 0);
      std::vector<uint8_t> done_ys(size_t(1) << o, 0);  // y values whose pass ran in the launch before
      for (size_t c = 0; c < launches.size(); ++c) {
        const OverlapLaunch& l = launches[c];
        std::vector<uint8_t> ys(size_t(1) << o, 0);
        for (uint64_t b = 0; b < uint64_t(l.pass_blocks) + l.bitrev_blocks; ++b) {
          const OverlapRole role = overlap_role(l, b);
          if (!role.bitrev) {
            const uint64_t tile = overlap_pass_tile(l, role.index);
            ASSERT_LT(tile, tiles.size());
            ASSERT_EQ(tiles[tile]++, 0) << "tile " << tile;
            ys[tile & mask] = 1;
            continue;
          }
          const uint64_t m = overlap_bitrev_tile(l, role.index), mr = reverse_bits(m, mid);
          ASSERT_LT(m, pairs.size());
          if (!overlap_bitrev_swaps(l, m, mr)) continue;
          ASSERT_EQ(pairs[m]++, 0) << "tile pair " << m;
          if (mr != m) {
            ASSERT_EQ(pairs[mr]++, 0) << "tile pair " << mr;
          }
          // Every element of both tiles (their corners suffice: they share bits [5, L - 5))
          // sits in a last-pass tile of the launch before.
          for (uint64_t q : {m, mr}) {
            for (unsigned corner : {0u, (1u << kBitrevTileLog) - 1}) {
              const uint64_t p = bitrev_position(log_n, q, corner, corner);
              ASSERT_EQ(done_ys[(p >> t) & mask], 1) << "pair " << m << " before its pass";
            }
          }
        }
        done_ys = ys;
        if (c + 1 == launches.size()) {
          EXPECT_EQ(l.pass_blocks, 0u);
          EXPECT_EQ(l.n_bitrev_ys, 1u);
          EXPECT_EQ(l.bitrev_ys[0], 0u);
        }
      }
      for (uint8_t x : tiles) ASSERT_EQ(x, 1);
      for (uint8_t x : pairs) ASSERT_EQ(x, 1);
    }
  }
  EXPECT_GE(shapes, 18u);
}

// The overlapped launches against the separate pass and bit reversal, and against poly, at
// shapes with 4 ..= 6 bits of y; no element is touched by both kinds of block in a launch.
TEST(NttPlan, OverlappedBitReversalMatchesPoly) {
  std::mt19937_64 rng(std::random_device{}());
  ThreadPool pool(2);
  for (const auto& [log_n, tile_log] : {std::pair{16u, 6u}, {17u, 6u}, {18u, 6u}, {18u, 7u}}) {
    SCOPED_TRACE("log_n " + std::to_string(log_n) + " tile_log " + std::to_string(tile_log));
    auto dom = poly::EvaluationDomain<Fr>::create(log_n).value();
    HostModel<Fr> m(log_n, tile_log, dom.omega());
    ASSERT_FALSE(overlap_launches(m.plan).empty());
    const auto x = random_vec(dom.size(), rng);
    auto want = x;
    dom.ntt(want, pool);
    auto got = x;
    size_t races = 0;
    m.dif_bitrev(got.data(), false, Op<Fr>{}, Op<Fr>{}, &races);
    ASSERT_EQ(races, 0u);
    ASSERT_EQ(got, want) << "forward";

    const Fr shift = Fr::random(rng);
    want = x;
    dom.coset_intt(want, shift, pool);
    auto back = m.table(shift.inverse(), dom.size_inv());
    const Op<Fr> op = HostModel<Fr>::powers(back, false);
    got = x;
    m.dif_bitrev(got.data(), true, Op<Fr>{}, op);
    auto separate = x;
    m.dif(separate.data(), true, Op<Fr>{}, Op<Fr>{});
    m.bitrev(separate.data(), op);
    ASSERT_EQ(got, separate) << "coset inverse, separate";
    ASSERT_EQ(got, want) << "coset inverse";
  }
}

// The coset factor folded into the last two passes against the two-table factor, both
// curves' Fr, every plan shape up to 2^16; and a shift that is not a square root of the
// root is not folded.
template <class F>
void check_coset_fold() {
  std::mt19937_64 rng(std::random_device{}());
  for (unsigned tile_log : {6u, 7u, 8u, 11u}) {
    for (unsigned log_n = 1; log_n <= 16; ++log_n) {
      SCOPED_TRACE("log_n " + std::to_string(log_n) + " tile_log " + std::to_string(tile_log));
      const F w = ff::two_adic_root<F>(log_n, ff::RootConvention::kSnarkjs);
      const F g = ff::two_adic_root<F>(log_n + 1, ff::RootConvention::kSnarkjs);
      HostModel<F> m(log_n, tile_log, w);
      const F c = F::random(rng);
      ASSERT_EQ(can_fold_coset(m.plan, g, w), m.plan.size() >= 2);
      EXPECT_FALSE(can_fold_coset(m.plan, F::from_u64(7) * g, w));
      std::vector<F> x(size_t(1) << log_n);
      for (auto& v : x) v = F::random(rng);
      auto want = x, got = x;
      const auto t = m.table(g, c);
      m.dif(want.data(), true, Op<F>{}, HostModel<F>::powers(t, true));
      m.inverse_coset_dif(got.data(), g, c, w);
      ASSERT_EQ(got, want);
    }
  }
}

TEST(NttPlan, CosetFoldMatchesTheTables) {
  check_coset_fold<bn254::Fr>();
  check_coset_fold<bls12_381::Fr>();
}

}  // namespace
}  // namespace cuzk::cuda::ntt_detail
