// Kernels and host code behind cuda/ntt/ntt.hpp. Included only by the ntt_<curve>.cu files,
// each of which instantiates it for one field.
#pragma once

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cuda/cuda_status.hpp"
#include "cuda/ntt/ntt.hpp"
#include "cuda/ntt/ntt_pass.hpp"

namespace cuzk::cuda {

namespace ntt_detail {

constexpr unsigned kThreads = 256;
constexpr unsigned kMaxTileLog = 11;
constexpr unsigned kMinTileLog = 6;

// Three blocks per multiprocessor (at most 85 registers a thread): a round keeps
// 2^kMaxRound = 4 elements and their products in registers. On the H200 (BENCHMARKS.md, "NTT
// at 2^27 (H12)") rounds of two stages at three blocks ran 2-4% faster than rounds of three
// at two blocks (fewer stages per barrier, but more warps to hide the product chains).
constexpr unsigned kMinBlocks = 3;

// One tile of a pass, by the whole block.
template <class F, bool kDit, Store kStore = Store::kInPlace>
__device__ __forceinline__ void pass_tile(const PassArgs<F>& a, uint64_t tile, F* smem) {
  load_tile<kStore>(a, tile, smem, threadIdx.x, blockDim.x);
  __syncthreads();
  const unsigned rounds = round_count(a.g);
  for (unsigned i = 0; i < rounds; ++i) {
    run_round<kDit>(a, round_of(a.g, kDit, i), smem, threadIdx.x, blockDim.x);
    __syncthreads();
  }
  store_tile<kStore>(a, tile, smem, threadIdx.x, blockDim.x);
}

template <class F, bool kDit, Store kStore = Store::kInPlace>
__global__ void __launch_bounds__(kThreads, kMinBlocks) pass_kernel(PassArgs<F> a) {
  extern __shared__ uint4 smem_raw[];
  pass_tile<F, kDit, kStore>(a, blockIdx.x, reinterpret_cast<F*>(smem_raw));
}

template <class F>
CUZK_INLINE F scaled(const Op<F>& op, uint64_t q, const F& x) {
  if (op.kind == OpKind::kScale) return x * op.c;
  if (op.kind == OpKind::kPowers) return x * power_factor(op, q);
  return x;
}

// 32 x 32 tiles, rows padded to 33 elements; block m swaps tile m with tile rev(m).
constexpr unsigned kBitrevRow = (1u << kBitrevTileLog) + 1;
constexpr size_t kBitrevSmem = 2 * (size_t(1) << kBitrevTileLog) * kBitrevRow;

// Swaps tile m with tile mr = rev(m) (or reverses tile m in itself), by the whole block.
template <class F>
__device__ __forceinline__ void bitrev_tiles(F* d, unsigned log_n, uint64_t m, uint64_t mr, const Op<F>& op, F* x) {
  F* y = x + (size_t(1) << kBitrevTileLog) * kBitrevRow;
  constexpr unsigned kSide = 1u << kBitrevTileLog;
  const bool pair = m != mr;
  for (unsigned e = threadIdx.x; e < kSide * kSide; e += blockDim.x) {
    const unsigned r = e >> kBitrevTileLog, c = e & (kSide - 1);
    x[r * kBitrevRow + c] = load_elem(d + bitrev_position(log_n, m, r, c));
    if (pair) y[r * kBitrevRow + c] = load_elem(d + bitrev_position(log_n, mr, r, c));
  }
  __syncthreads();
  for (unsigned e = threadIdx.x; e < kSide * kSide; e += blockDim.x) {
    const unsigned r = e >> kBitrevTileLog, c = e & (kSide - 1);
    const unsigned src =
        unsigned(reverse_bits(c, kBitrevTileLog)) * kBitrevRow + unsigned(reverse_bits(r, kBitrevTileLog));
    const uint64_t q = bitrev_position(log_n, m, r, c);
    store_elem(d + q, scaled(op, q, pair ? y[src] : x[src]));
    if (pair) {
      const uint64_t q2 = bitrev_position(log_n, mr, r, c);
      store_elem(d + q2, scaled(op, q2, x[src]));
    }
  }
}

template <class F>
__global__ void __launch_bounds__(kThreads) bitrev_tile_kernel(F* d, unsigned log_n, Op<F> op) {
  extern __shared__ uint4 smem_raw[];
  const uint64_t m = blockIdx.x;
  const uint64_t mr = reverse_bits(m, log_n - 2 * kBitrevTileLog);
  if (m > mr) return;
  bitrev_tiles(d, log_n, m, mr, op, reinterpret_cast<F*>(smem_raw));
}

// One launch of the overlapped last DIF pass and bit reversal (overlap_launches).
template <class F>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    last_pass_bitrev_kernel(PassArgs<F> a, Op<F> op, OverlapLaunch l) {
  extern __shared__ uint4 smem_raw[];
  F* smem = reinterpret_cast<F*>(smem_raw);
  const OverlapRole role = overlap_role(l, blockIdx.x);
  if (!role.bitrev) {
    pass_tile<F, false>(a, overlap_pass_tile(l, role.index), smem);
    return;
  }
  const uint64_t m = overlap_bitrev_tile(l, role.index);
  const uint64_t mr = reverse_bits(m, a.g.log_n - 2 * kBitrevTileLog);
  if (overlap_bitrev_swaps(l, m, mr)) bitrev_tiles(a.data, a.g.log_n, m, mr, op, smem);
}

template <class F>
__global__ void bitrev_small_kernel(F* d, unsigned log_n, Op<F> op) {
  const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= (uint64_t(1) << log_n)) return;
  const uint64_t r = reverse_bits(i, log_n);
  if (i > r) return;
  const F xi = d[i], xr = d[r];
  d[i] = scaled(op, i, xr);
  if (i != r) d[r] = scaled(op, r, xi);
}

// out[i] = lo[i & mask] * hi[i >> lo_bits] for i < count.
template <class F>
__global__ void expand_powers_kernel(F* out, uint64_t count, Op<F> op) {
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += uint64_t(gridDim.x) * blockDim.x) {
    out[i] = power_factor(op, i);
  }
}

inline size_t max_pass_smem_bytes(size_t elem) {
  size_t best = 0;
  for (unsigned k = 1; k <= kMaxTileLog; ++k) {
    Geometry g{kMaxTileLog, k, k, kMaxTileLog};
    size_t b = tile_smem_elements(g) * elem;
    best = b > best ? b : best;
  }
  return best;
}

// The overlapped last pass's shared memory: a tile of the pass or a bit-reversal tile pair.
inline size_t last_pass_bitrev_smem_bytes(const Geometry& g, size_t elem) {
  const size_t pass = tile_smem_elements(g) * elem, bitrev = kBitrevSmem * elem;
  return pass > bitrev ? pass : bitrev;
}

inline unsigned lo_bits_for(unsigned log_n) { return (log_n + 1) / 2; }

// Events between a transform's launches, for the per-kernel benchmark profile.
struct KernelTimer {
  std::vector<Event> marks;
  Status mark(const Stream& s) {
    CUZK_ASSIGN_OR_RETURN(Event e, Event::create());
    CUZK_RETURN_IF_ERROR(e.record(s));
    marks.push_back(std::move(e));
    return Status::ok();
  }
  Result<std::vector<float>> intervals_ms() const {
    for (const Event& e : marks) CUZK_RETURN_IF_ERROR(e.synchronize());
    std::vector<float> ms;
    for (size_t i = 1; i < marks.size(); ++i) {
      CUZK_ASSIGN_OR_RETURN(float t, Event::elapsed_ms(marks[i - 1], marks[i]));
      ms.push_back(t);
    }
    return ms;
  }
};

}  // namespace ntt_detail

template <class Fr>
struct NttDomain<Fr>::State {
  struct CosetTable {
    DeviceBuffer<Fr> buf;
    unsigned lo_bits = 0;
  };
  using Key = std::array<uint64_t, 2 * Fr::N>;

  unsigned log_n = 0;
  ff::RootConvention conv{};
  NttOptions options;
  Fr omega, omega_inv, n_inv, shift;
  Fr r_inv;  // R^-1: the factor that leaves Montgomery limbs canonical
  std::vector<ntt_detail::Geometry> plan;
  std::vector<ntt_detail::OverlapLaunch> overlap;  // empty: the bit reversal after the last pass
  DeviceBuffer<Fr> half;                           // w^i, i < n/2
  mutable std::mutex mu;
  mutable std::map<Key, CosetTable> cosets;      // by (g, c): c * g^i
  mutable std::map<Key, CosetTable> row_cosets;  // by (g, c): row_coset_table() (lo_bits: its k)

  static Key key_of(const Fr& g, const Fr& c) {
    Key k{};
    for (size_t i = 0; i < Fr::N; ++i) {
      k[i] = g.mont().limb[i];
      k[Fr::N + i] = c.mont().limb[i];
    }
    return k;
  }

  // The two tables of c * g^i, i < n: lo[j] = g^j (j < 2^b), hi[j] = c * g^(j 2^b).
  static Result<CosetTable> build_table(unsigned log_n, const Fr& g, const Fr& c, const Stream& s) {
    const unsigned b = ntt_detail::lo_bits_for(log_n);
    const size_t lo_n = size_t(1) << b, hi_n = size_t(1) << (log_n - b);
    std::vector<Fr> host(lo_n + hi_n);
    host[0] = Fr::one();
    for (size_t i = 1; i < lo_n; ++i) host[i] = host[i - 1] * g;
    const Fr step = host[lo_n - 1] * g;
    host[lo_n] = c;
    for (size_t j = 1; j < hi_n; ++j) host[lo_n + j] = host[lo_n + j - 1] * step;
    CosetTable t;
    t.lo_bits = b;
    CUZK_ASSIGN_OR_RETURN(t.buf, DeviceBuffer<Fr>::allocate(host.size(), "ntt coset table"));
    CUZK_RETURN_IF_ERROR(t.buf.upload(host, s));
    CUZK_RETURN_IF_ERROR(s.synchronize());  // `host` goes out of scope
    return Result<CosetTable>(std::move(t));
  }

  static ntt_detail::Op<Fr> powers_op(const CosetTable& t, bool rev_index) {
    ntt_detail::Op<Fr> op;
    op.kind = ntt_detail::OpKind::kPowers;
    op.rev_index = rev_index;
    op.lo_bits = t.lo_bits;
    op.lo = t.buf.data();
    op.hi = t.buf.data() + (size_t(1) << t.lo_bits);
    return op;
  }

  // The cached kRowCoset table of (g, c) for this plan's last pass (built on `s` on first use).
  Result<const CosetTable*> row_coset(const Fr& g, const Fr& c, const Stream& s) const {
    std::lock_guard<std::mutex> lock(mu);
    Key key = key_of(g, c);
    auto it = row_cosets.find(key);
    if (it != row_cosets.end()) return &it->second;
    const unsigned k = plan.back().k;
    const std::vector<Fr> host = ntt_detail::row_coset_table(log_n, k, g, c);
    CosetTable t;
    t.lo_bits = k;
    CUZK_ASSIGN_OR_RETURN(t.buf, DeviceBuffer<Fr>::allocate(host.size(), "ntt coset row table"));
    CUZK_RETURN_IF_ERROR(t.buf.upload(host, s));
    CUZK_RETURN_IF_ERROR(s.synchronize());  // `host` goes out of scope
    auto ins = row_cosets.emplace(key, std::move(t));
    return &ins.first->second;
  }

  // The cached table of c * g^i (built on `s` on first use).
  Result<const CosetTable*> coset(const Fr& g, const Fr& c, const Stream& s) const {
    std::lock_guard<std::mutex> lock(mu);
    Key key = key_of(g, c);
    auto it = cosets.find(key);
    if (it != cosets.end()) return &it->second;
    CUZK_ASSIGN_OR_RETURN(CosetTable t, build_table(log_n, g, c, s));
    auto ins = cosets.emplace(key, std::move(t));
    return &ins.first->second;
  }

  Status pass(Fr* d, const ntt_detail::Geometry& g, bool inverse, bool dit, const ntt_detail::Op<Fr>& pre,
              const ntt_detail::Op<Fr>& post, const Stream& s, ntt_detail::KernelTimer* timer) const {
    return launch({d, half.data(), g, inverse, dit, pre, post}, ntt_detail::Store::kInPlace, s, timer);
  }

  // One pass; kOut and kReversedOut are DIF passes (dif_reversed).
  Status launch(const ntt_detail::PassArgs<Fr>& a, ntt_detail::Store store, const Stream& s,
                ntt_detail::KernelTimer* timer) const {
    using ntt_detail::Store;
    const uint64_t tiles = (uint64_t(1) << log_n) >> ntt_detail::tile_elements_log(a.g);
    const size_t smem = ntt_detail::tile_smem_elements(a.g) * sizeof(Fr);
    if (store == Store::kOut) {
      ntt_detail::pass_kernel<Fr, false, Store::kOut><<<unsigned(tiles), ntt_detail::kThreads, smem, s.get()>>>(a);
      CUZK_RETURN_IF_ERROR(check_launch("ntt.pass_kernel(dif, out)"));
    } else if (store == Store::kReversedOut) {
      ntt_detail::pass_kernel<Fr, false, Store::kReversedOut>
          <<<unsigned(tiles), ntt_detail::kThreads, smem, s.get()>>>(a);
      CUZK_RETURN_IF_ERROR(check_launch("ntt.pass_kernel(dif, reversed out)"));
    } else if (a.dit) {
      ntt_detail::pass_kernel<Fr, true><<<unsigned(tiles), ntt_detail::kThreads, smem, s.get()>>>(a);
      CUZK_RETURN_IF_ERROR(check_launch("ntt.pass_kernel(dit)"));
    } else {
      ntt_detail::pass_kernel<Fr, false><<<unsigned(tiles), ntt_detail::kThreads, smem, s.get()>>>(a);
      CUZK_RETURN_IF_ERROR(check_launch("ntt.pass_kernel(dif)"));
    }
    return timer != nullptr ? timer->mark(s) : Status::ok();
  }

  // Natural order in, bit-reversed out; `pre` on the first pass's input, `post` on the
  // last pass's output, `penultimate` (if given) instead of the boundary twiddle on the last
  // pass but one's.
  Status dif(Fr* d, bool inverse, const ntt_detail::Op<Fr>& pre, const ntt_detail::Op<Fr>& post, const Stream& s,
             ntt_detail::KernelTimer* timer = nullptr, const ntt_detail::Op<Fr>* penultimate = nullptr) const {
    ntt_detail::Op<Fr> none, twiddle;
    twiddle.kind = ntt_detail::OpKind::kTwiddle;
    for (size_t t = 0; t < plan.size(); ++t) {
      const bool last = t + 1 == plan.size();
      const ntt_detail::Op<Fr>& between = penultimate != nullptr && t + 2 == plan.size() ? *penultimate : twiddle;
      CUZK_RETURN_IF_ERROR(pass(d, plan[t], inverse, false, t == 0 ? pre : none, last ? post : between, s, timer));
    }
    return Status::ok();
  }

  // The inverse DIF with the coset factor c * g^rev(p) on its output: folded into the last
  // two passes when g is a square root of omega (snarkjs's shift), else from the two tables.
  Status inverse_coset_dif(Fr* d, const Fr& g, const Fr& c, const Stream& s,
                           ntt_detail::KernelTimer* timer = nullptr) const {
    if (ntt_detail::can_fold_coset(plan, g, omega)) {
      CUZK_ASSIGN_OR_RETURN(const CosetTable* t, row_coset(g, c, s));
      ntt_detail::Op<Fr> pen, last;
      ntt_detail::coset_fold_ops(plan, t->buf.data(), pen, last);
      return dif(d, true, ntt_detail::Op<Fr>{}, last, s, timer, &pen);
    }
    CUZK_ASSIGN_OR_RETURN(const CosetTable* t, coset(g, c, s));
    return dif(d, true, ntt_detail::Op<Fr>{}, powers_op(*t, true), s, timer);
  }

  // Bit-reversed in, natural out; `post` on the last pass's output.
  Status dit(Fr* d, bool inverse, const ntt_detail::Op<Fr>& post, const Stream& s,
             ntt_detail::KernelTimer* timer = nullptr) const {
    ntt_detail::Op<Fr> none, twiddle;
    twiddle.kind = ntt_detail::OpKind::kTwiddle;
    for (size_t t = plan.size(); t-- > 0;) {
      const bool first = t + 1 == plan.size();
      CUZK_RETURN_IF_ERROR(pass(d, plan[t], inverse, true, first ? none : twiddle, t == 0 ? post : none, s, timer));
    }
    return Status::ok();
  }

  // dif() without a post op, then bitrev() with `op`: the last pass and the bit reversal
  // overlapped where the plan allows (overlap_launches), the timer marking both as one.
  Status dif_bitrev(Fr* d, bool inverse, const ntt_detail::Op<Fr>& pre, const ntt_detail::Op<Fr>& op, const Stream& s,
                    ntt_detail::KernelTimer* timer = nullptr) const {
    using namespace ntt_detail;
    if (overlap.empty()) {
      CUZK_RETURN_IF_ERROR(dif(d, inverse, pre, {}, s, timer));
      return bitrev(d, op, s, timer);
    }
    Op<Fr> none, twiddle;
    twiddle.kind = OpKind::kTwiddle;
    for (size_t t = 0; t + 1 < plan.size(); ++t) {
      CUZK_RETURN_IF_ERROR(pass(d, plan[t], inverse, false, t == 0 ? pre : none, twiddle, s, timer));
    }
    const PassArgs<Fr> a{d, half.data(), plan.back(), inverse, false, none, none};
    const size_t smem = last_pass_bitrev_smem_bytes(plan.back(), sizeof(Fr));
    for (const OverlapLaunch& l : overlap) {
      last_pass_bitrev_kernel<Fr><<<l.pass_blocks + l.bitrev_blocks, kThreads, smem, s.get()>>>(a, op, l);
      CUZK_RETURN_IF_ERROR(check_launch("ntt.last_pass_bitrev_kernel"));
    }
    return timer != nullptr ? timer->mark(s) : Status::ok();
  }

  // dif() without a post op, then bitrev() with `op`, through `scratch` (n elements apart
  // from d): the last pass but one stores into scratch, and the last reads it and stores each
  // element at its bit-reversed position in d, taking `op` there. No bit-reversal kernel: its
  // traffic rides on the product-bound last pass. Without scratch, or with one pass:
  // dif_bitrev.
  Status dif_reversed(Fr* d, Fr* scratch, bool inverse, const ntt_detail::Op<Fr>& pre, const ntt_detail::Op<Fr>& op,
                      const Stream& s, ntt_detail::KernelTimer* timer = nullptr) const {
    using namespace ntt_detail;
    if (scratch == nullptr || plan.size() < 2) return dif_bitrev(d, inverse, pre, op, s, timer);
    Op<Fr> none, twiddle;
    twiddle.kind = OpKind::kTwiddle;
    for (size_t t = 0; t < plan.size(); ++t) {
      const bool last = t + 1 == plan.size();
      PassArgs<Fr> a{last ? scratch : d,  half.data(),        plan[t], inverse, false,
                     t == 0 ? pre : none, last ? op : twiddle};
      Store store = Store::kInPlace;
      if (t + 2 == plan.size()) {
        a.out = scratch;
        store = Store::kOut;
      }
      if (last) {
        a.out = d;
        store = Store::kReversedOut;
      }
      CUZK_RETURN_IF_ERROR(launch(a, store, s, timer));
    }
    return Status::ok();
  }

  // In-place bit reversal, each element then times `op`'s factor at its new position.
  Status bitrev(Fr* d, const ntt_detail::Op<Fr>& op, const Stream& s, ntt_detail::KernelTimer* timer = nullptr) const {
    using namespace ntt_detail;
    if (log_n >= 2 * kBitrevTileLog) {
      const uint64_t blocks = uint64_t(1) << (log_n - 2 * kBitrevTileLog);
      bitrev_tile_kernel<Fr><<<unsigned(blocks), kThreads, kBitrevSmem * sizeof(Fr), s.get()>>>(d, log_n, op);
      CUZK_RETURN_IF_ERROR(check_launch("ntt.bitrev_tile_kernel"));
    } else {
      const uint64_t n = uint64_t(1) << log_n;
      bitrev_small_kernel<Fr><<<unsigned((n + kThreads - 1) / kThreads), kThreads, 0, s.get()>>>(d, log_n, op);
      CUZK_RETURN_IF_ERROR(check_launch("ntt.bitrev_small_kernel"));
    }
    return timer != nullptr ? timer->mark(s) : Status::ok();
  }

  ntt_detail::Op<Fr> scale_op(const Fr& c) const {
    ntt_detail::Op<Fr> op;
    op.kind = ntt_detail::OpKind::kScale;
    op.c = c;
    return op;
  }

  // a <- factor * (the evaluations at shift * w^i of the polynomial whose evaluations at
  // w^i are a); `post` on the last pass (a combine, or nothing).
  Status shift_evaluations(Fr* d, const Fr& shift_, const Fr& factor, const ntt_detail::Op<Fr>& post, const Stream& s,
                           Pacer* pace = nullptr) const {
    CUZK_RETURN_IF_ERROR(inverse_coset_dif(d, shift_, n_inv * factor, s));
    if (pace != nullptr) CUZK_RETURN_IF_ERROR(pace->boundary());
    return dit(d, false, post, s);
  }
};

namespace ntt_detail {

inline Status check_pointer(const void* p, const char* what) {
  if (p == nullptr) return invalid_argument(std::string("ntt: ") + what + " is null");
  if (reinterpret_cast<uintptr_t>(p) % 16 != 0) {
    return invalid_argument(std::string("ntt: ") + what + " is not 16-byte aligned");
  }
  return Status::ok();
}

// A transform's data and its optional scratch (n elements apart from the data).
inline Status check_pointers(const void* d, const void* scratch, const std::string& call) {
  CUZK_RETURN_IF_ERROR(check_pointer(d, (call + ": data").c_str()));
  if (scratch == nullptr) return Status::ok();
  CUZK_RETURN_IF_ERROR(check_pointer(scratch, (call + ": scratch").c_str()));
  if (scratch == d) return invalid_argument("ntt: " + call + ": the scratch is the data");
  return Status::ok();
}

template <class Fr>
Fr odd_shift(unsigned log_n, ff::RootConvention conv) {
  if (log_n < Fr::S) return ff::two_adic_root<Fr>(log_n + 1, conv);
  return Fr::from_u64(25);
}

}  // namespace ntt_detail

template <class Fr>
NttDomain<Fr>::NttDomain(std::unique_ptr<State> st) : state_(std::move(st)) {}
template <class Fr>
NttDomain<Fr>::NttDomain(NttDomain&&) noexcept = default;
template <class Fr>
NttDomain<Fr>& NttDomain<Fr>::operator=(NttDomain&&) noexcept = default;
template <class Fr>
NttDomain<Fr>::~NttDomain() = default;

template <class Fr>
size_t NttDomain<Fr>::coset_table_bytes(unsigned log_n) {
  const unsigned b = ntt_detail::lo_bits_for(log_n);
  return ((size_t(1) << b) + (size_t(1) << (log_n - b))) * sizeof(Fr);
}

template <class Fr>
size_t NttDomain<Fr>::device_bytes(unsigned log_n, NttOptions options) {
  // snarkjs's shift is w_2n below 2^S: with two passes or more its factors are two row
  // tables of the last pass (create() builds them), else two coset tables.
  const auto plan = ntt_detail::make_plan(log_n, options.tile_log);
  const size_t factor =
      plan.size() >= 2 && log_n < Fr::S ? (size_t(2) << plan.back().k) * sizeof(Fr) : coset_table_bytes(log_n);
  return (size_t(1) << log_n) / 2 * sizeof(Fr) + 2 * factor;
}

template <class Fr>
size_t NttDomain<Fr>::snarkjs_h_scratch_bytes(unsigned) {
  return 0;
}

template <class Fr>
Result<NttDomain<Fr>> NttDomain<Fr>::create(unsigned log_n, const Stream& s, ff::RootConvention conv,
                                            NttOptions options) {
  using namespace ntt_detail;
  const unsigned max_log = Fr::S < kMaxLog ? unsigned(Fr::S) : kMaxLog;
  if (log_n < 1 || log_n > max_log) {
    return invalid_argument("ntt: domain of size 2^" + std::to_string(log_n) + " outside 2^1 ..= 2^" +
                            std::to_string(max_log));
  }
  if (options.tile_log < kMinTileLog || options.tile_log > kMaxTileLog) {
    return invalid_argument("ntt: tile_log " + std::to_string(options.tile_log) + " outside " +
                            std::to_string(kMinTileLog) + " ..= " + std::to_string(kMaxTileLog));
  }
  // Per device (the attribute belongs to the current device's context), so on every creation.
  cudaError_t smem_err = cudaFuncSetAttribute(pass_kernel<Fr, false>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              int(max_pass_smem_bytes(sizeof(Fr))));
  if (smem_err == cudaSuccess) {
    smem_err = cudaFuncSetAttribute(pass_kernel<Fr, true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    int(max_pass_smem_bytes(sizeof(Fr))));
  }
  if (smem_err == cudaSuccess) {
    smem_err = cudaFuncSetAttribute(pass_kernel<Fr, false, Store::kOut>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    int(max_pass_smem_bytes(sizeof(Fr))));
  }
  if (smem_err == cudaSuccess) {
    smem_err = cudaFuncSetAttribute(pass_kernel<Fr, false, Store::kReversedOut>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, int(max_pass_smem_bytes(sizeof(Fr))));
  }
  if (smem_err == cudaSuccess) {
    smem_err = cudaFuncSetAttribute(bitrev_tile_kernel<Fr>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    int(kBitrevSmem * sizeof(Fr)));
  }
  if (smem_err == cudaSuccess) {
    smem_err = cudaFuncSetAttribute(last_pass_bitrev_kernel<Fr>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    int(std::max(max_pass_smem_bytes(sizeof(Fr)), kBitrevSmem * sizeof(Fr))));
  }
  CUZK_CUDA_RETURN_IF_ERROR(smem_err, "ntt: cudaFuncSetAttribute(MaxDynamicSharedMemorySize)");

  auto st = std::make_unique<State>();
  st->log_n = log_n;
  st->conv = conv;
  st->options = options;
  st->omega = ff::two_adic_root<Fr>(log_n, conv);
  st->omega_inv = st->omega.inverse();
  st->n_inv = Fr::from_u64(uint64_t(1) << log_n).inverse();
  st->shift = odd_shift<Fr>(log_n, conv);
  typename Fr::Int one_limb{};
  one_limb.limb[0] = 1;
  st->r_inv = Fr::from_mont(one_limb);
  st->plan = make_plan(log_n, options.tile_log);
  if (options.overlap_bit_reversal) st->overlap = overlap_launches(st->plan);

  const uint64_t half_n = (uint64_t(1) << log_n) / 2;
  CUZK_ASSIGN_OR_RETURN(st->half, DeviceBuffer<Fr>::allocate(half_n, "ntt twiddles"));
  {
    CUZK_ASSIGN_OR_RETURN(typename State::CosetTable powers, State::build_table(log_n, st->omega, Fr::one(), s));
    Op<Fr> op = State::powers_op(powers, false);
    const uint64_t blocks = (half_n + kThreads - 1) / kThreads;
    expand_powers_kernel<Fr>
        <<<unsigned(blocks < 65536 ? blocks : 65536), kThreads, 0, s.get()>>>(st->half.data(), half_n, op);
    CUZK_RETURN_IF_ERROR(check_launch("ntt.expand_powers_kernel"));
    CUZK_RETURN_IF_ERROR(s.synchronize());
  }
  // The tables snarkjs H takes (factor 1 for a, R^-1 for b and c), built now.
  if (can_fold_coset(st->plan, st->shift, st->omega)) {
    CUZK_RETURN_IF_ERROR(st->row_coset(st->shift, st->n_inv, s).status());
    CUZK_RETURN_IF_ERROR(st->row_coset(st->shift, st->n_inv * st->r_inv, s).status());
  } else {
    CUZK_RETURN_IF_ERROR(st->coset(st->shift, st->n_inv, s).status());
    CUZK_RETURN_IF_ERROR(st->coset(st->shift, st->n_inv * st->r_inv, s).status());
  }
  return Result<NttDomain>(NttDomain(std::move(st)));
}

template <class Fr>
unsigned NttDomain<Fr>::log_size() const {
  return state_->log_n;
}
template <class Fr>
size_t NttDomain<Fr>::size() const {
  return size_t(1) << state_->log_n;
}
template <class Fr>
ff::RootConvention NttDomain<Fr>::convention() const {
  return state_->conv;
}
template <class Fr>
const Fr& NttDomain<Fr>::omega() const {
  return state_->omega;
}
template <class Fr>
const Fr& NttDomain<Fr>::snarkjs_shift() const {
  return state_->shift;
}

template <class Fr>
Status NttDomain<Fr>::forward(Fr* d, const Stream& s, Fr* scratch) const {
  CUZK_RETURN_IF_ERROR(ntt_detail::check_pointers(d, scratch, "forward"));
  return state_->dif_reversed(d, scratch, false, {}, {}, s);
}

template <class Fr>
Result<std::vector<float>> NttDomain<Fr>::forward_kernel_ms(Fr* d, const Stream& s, Fr* scratch) const {
  CUZK_RETURN_IF_ERROR(ntt_detail::check_pointers(d, scratch, "forward_kernel_ms"));
  ntt_detail::KernelTimer timer;
  CUZK_RETURN_IF_ERROR(timer.mark(s));
  CUZK_RETURN_IF_ERROR(state_->dif_reversed(d, scratch, false, {}, {}, s, &timer));
  return timer.intervals_ms();
}

template <class Fr>
Result<std::vector<float>> NttDomain<Fr>::shift_evaluations_kernel_ms(Fr* d, const Stream& s) const {
  CUZK_RETURN_IF_ERROR(ntt_detail::check_pointer(d, "shift_evaluations_kernel_ms: data"));
  ntt_detail::KernelTimer timer;
  CUZK_RETURN_IF_ERROR(timer.mark(s));
  CUZK_RETURN_IF_ERROR(state_->inverse_coset_dif(d, state_->shift, state_->n_inv, s, &timer));
  CUZK_RETURN_IF_ERROR(state_->dit(d, false, {}, s, &timer));
  return timer.intervals_ms();
}

template <class Fr>
Status NttDomain<Fr>::inverse(Fr* d, const Stream& s, Fr* scratch) const {
  CUZK_RETURN_IF_ERROR(ntt_detail::check_pointers(d, scratch, "inverse"));
  return state_->dif_reversed(d, scratch, true, {}, state_->scale_op(state_->n_inv), s);
}

template <class Fr>
Status NttDomain<Fr>::coset_forward(Fr* d, const Fr& shift, const Stream& s, Fr* scratch) const {
  CUZK_RETURN_IF_ERROR(ntt_detail::check_pointers(d, scratch, "coset_forward"));
  CUZK_ASSIGN_OR_RETURN(const typename State::CosetTable* t, state_->coset(shift, Fr::one(), s));
  return state_->dif_reversed(d, scratch, false, State::powers_op(*t, false), {}, s);
}

template <class Fr>
Status NttDomain<Fr>::coset_inverse(Fr* d, const Fr& shift, const Stream& s, Fr* scratch) const {
  CUZK_RETURN_IF_ERROR(ntt_detail::check_pointers(d, scratch, "coset_inverse"));
  if (shift.is_zero()) return invalid_argument("ntt: coset_inverse: the shift is zero");
  CUZK_ASSIGN_OR_RETURN(const typename State::CosetTable* t, state_->coset(shift.inverse(), state_->n_inv, s));
  return state_->dif_reversed(d, scratch, true, {}, State::powers_op(*t, false), s);
}

template <class Fr>
Status NttDomain<Fr>::shift_evaluations(Fr* d, const Fr& shift, const Stream& s) const {
  CUZK_RETURN_IF_ERROR(ntt_detail::check_pointer(d, "shift_evaluations: data"));
  return state_->shift_evaluations(d, shift, Fr::one(), {}, s);
}

template <class Fr>
Status snarkjs_h(const NttDomain<Fr>& d, Fr* a, Fr* b, Fr* c, typename Fr::Int* p, const Stream& s, Pacer* pace) {
  using namespace ntt_detail;
  CUZK_RETURN_IF_ERROR(check_pointer(a, "snarkjs_h: a"));
  CUZK_RETURN_IF_ERROR(check_pointer(b, "snarkjs_h: b"));
  CUZK_RETURN_IF_ERROR(check_pointer(c, "snarkjs_h: c"));
  CUZK_RETURN_IF_ERROR(check_pointer(p, "snarkjs_h: p"));
  const auto& st = d.state();
  // b and c come out times R^-1, their limbs canonical: a * b - c is then canonical with one
  // product (the conversion is free).
  CUZK_RETURN_IF_ERROR(st.shift_evaluations(a, st.shift, Fr::one(), {}, s, pace));
  if (pace != nullptr) CUZK_RETURN_IF_ERROR(pace->boundary());
  CUZK_RETURN_IF_ERROR(st.shift_evaluations(b, st.shift, st.r_inv, {}, s, pace));
  if (pace != nullptr) CUZK_RETURN_IF_ERROR(pace->boundary());
  Op<Fr> combine;
  combine.kind = OpKind::kCombineCanonical;
  combine.a = a;
  combine.b = b;
  combine.out = p;
  return st.shift_evaluations(c, st.shift, st.r_inv, combine, s, pace);
}

template <class Fr>
Status bellperson_h(const NttDomain<Fr>& d, Fr* a, Fr* b, Fr* c, const Fr& shift, const Stream& s) {
  using namespace ntt_detail;
  CUZK_RETURN_IF_ERROR(check_pointer(a, "bellperson_h: a"));
  CUZK_RETURN_IF_ERROR(check_pointer(b, "bellperson_h: b"));
  CUZK_RETURN_IF_ERROR(check_pointer(c, "bellperson_h: c"));
  const auto& st = d.state();
  const Fr z = shift.pow(uint64_t(d.size())) - Fr::one();
  if (z.is_zero()) return invalid_argument("ntt: bellperson H: the coset shift is an n-th root of unity");
  CUZK_ASSIGN_OR_RETURN(const typename NttDomain<Fr>::State::CosetTable* back,
                        st.coset(shift.inverse(), st.n_inv * z.inverse(), s));
  CUZK_RETURN_IF_ERROR(st.shift_evaluations(a, shift, Fr::one(), {}, s));
  CUZK_RETURN_IF_ERROR(st.shift_evaluations(b, shift, Fr::one(), {}, s));
  Op<Fr> combine;
  combine.kind = OpKind::kCombineMont;
  combine.a = a;
  combine.b = b;
  combine.out = a;
  CUZK_RETURN_IF_ERROR(st.shift_evaluations(c, shift, Fr::one(), combine, s));
  // 1/Z folds into the inverse transform's 1/n, as in poly::bellperson_h; b is spent, so the
  // bit reversal rides on the last pass through it (dif_reversed).
  return st.dif_reversed(a, b, true, {}, NttDomain<Fr>::State::powers_op(*back, false), s);
}

}  // namespace cuzk::cuda

#define CUZK_INSTANTIATE_NTT(F)                                                                            \
  template class cuzk::cuda::NttDomain<F>;                                                                 \
  template cuzk::Status cuzk::cuda::snarkjs_h<F>(const cuzk::cuda::NttDomain<F>&, F*, F*, F*, F::Int*,     \
                                                 const cuzk::cuda::Stream&, cuzk::cuda::Pacer*);           \
  template cuzk::Status cuzk::cuda::bellperson_h<F>(const cuzk::cuda::NttDomain<F>&, F*, F*, F*, const F&, \
                                                    const cuzk::cuda::Stream&)
