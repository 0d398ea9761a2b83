// Kernels and the host driver behind cuda/msm/msm.hpp. Included only by the msm_*.cu
// files, one per group, so the device builds of the four groups compile in parallel.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cuda/cuda_status.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/msm/msm.hpp"
#include "cuda/msm/msm_sort.hpp"

namespace cuzk::cuda::msm_detail {

constexpr unsigned kThreads = 128;
constexpr unsigned kMaxWindows = 128;              // c >= 2 over at most 256 bits
constexpr size_t kGroupEntries = size_t(1) << 26;  // sorted (bucket, point) pairs per window group
constexpr size_t kOnesPartials = 131072;           // at most this many threads sum the scalars equal to 1
constexpr size_t kSegment = 8;                     // buckets per thread in the weighted bucket sums
constexpr unsigned kSegmentLog = 3;
constexpr unsigned kReduceFanIn = 16;
constexpr unsigned kPartialsPerThread = 16;  // accumulation levels after the first

inline unsigned floor_log2(size_t x) {
  unsigned r = 0;
  while (x >>= 1) ++r;
  return r;
}
inline size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }
inline unsigned blocks_for(size_t threads) { return unsigned(ceil_div(threads, kThreads)); }

// Window layout for m points of `bits`-bit scalars. The width depends on m only through
// floor(log2 m), so scratch_bytes() can bound every run of up to n points.
struct Plan {
  size_t m = 0;
  unsigned c = 0, windows = 0, group = 0;
  size_t nb = 0;  // buckets per window, 2^(c-1); slot nb collects zero digits
};

inline unsigned choose_window(size_t m, size_t bits) {
  // Per window: one mixed addition per point, and the bucket sums at ~5 mixed additions per
  // bucket (two full additions plus reading the bucket; measured on the H200: 4.8 at 2^22,
  // 7 at 2^24 on BLS12-381 G1).
  const double m_eff = double(size_t(1) << floor_log2(m)) * 1.4;
  unsigned best = 2;
  double best_cost = 1e300;
  for (unsigned c = 2; c <= 20; ++c) {
    double windows = double(ceil_div(bits + 1, c));
    double cost = windows * (m_eff + 5.0 * double(size_t(1) << (c - 1)));
    if (cost < best_cost) {
      best_cost = cost;
      best = c;
    }
  }
  return best;
}

inline Plan make_plan(size_t m, size_t bits) {
  Plan p;
  p.m = m;
  p.c = choose_window(m, bits);
  p.windows = unsigned(ceil_div(bits + 1, p.c));  // Booth digits need one bit above the top
  p.group = unsigned(std::clamp<size_t>(kGroupEntries / std::max<size_t>(m, 1), 1, p.windows));
  p.nb = size_t(1) << (p.c - 1);
  return p;
}

// Entries per thread in the first accumulation level: a power of two, more threads for
// small groups. The thread count stays below max(2^18, entries / 64).
inline size_t first_per_thread(size_t entries) {
  size_t q = entries >> 17;
  size_t pt = q == 0 ? 1 : size_t(1) << floor_log2(q);
  return std::clamp<size_t>(pt, 4, 64);
}
inline size_t first_partials_bound(size_t entries) {
  size_t t = std::max(std::min(ceil_div(entries, 4), size_t(1) << 18), ceil_div(entries, 64));
  return 2 * t;
}

// Blocks per SM the accumulation kernels are compiled for. Measured on the H200 with the
// 32-bit-word field product: 3 (168 registers) beat the compiler's choice on BLS12-381 G1
// by ~3%; on G2 and on BN254 the compiler's own choice was fastest (G2 with 4: 20% slower).
template <class G>
constexpr int accumulate_min_blocks() {
  return sizeof(typename G::Base) == 48 ? 3 : 1;
}

// Points a weighted_rows() of `rows` rows of k takes from its arena (mirrors its recursion).
inline size_t weighted_points(size_t rows, size_t k) {
  if (k <= kSegment) return rows;
  const size_t segs = ceil_div(k, kSegment);
  return 2 * rows * segs + 2 * rows + 2 * rows * ceil_div(segs, kReduceFanIn) + weighted_points(rows, segs - 1);
}

// Hands out consecutive points of one region; with a null base it only counts.
template <class P>
struct PointArena {
  P* base;
  size_t used = 0;
  P* take(size_t n) {
    P* p = base ? base + used : nullptr;
    used += n;
    return p;
  }
};

// Carves one device allocation into aligned pieces; with a null base it only measures.
class Carver {
 public:
  explicit Carver(uint8_t* base) : base_(base) {}
  template <class T>
  T* take(size_t count) {
    size_t at = (used_ + 255) & ~size_t(255);
    used_ = at + count * sizeof(T);
    return base_ ? reinterpret_cast<T*>(base_ + at) : nullptr;
  }
  size_t used() const { return used_; }

 private:
  uint8_t* base_;
  size_t used_ = 0;
};

// Scratch of the split and of the ones' sum, for n points.
template <class G>
struct SplitScratch {
  using P = ec::Xyzz<G>;
  uint32_t *one_idx, *rest_idx, *counts;
  void* temp;
  size_t temp_bytes;
  P *results, *ones_part, *ones_red;  // results: [0] the ones' sum, [1 + w] window w
  SplitScratch(uint8_t* base, size_t n, size_t& total) {
    Carver cv(base);
    one_idx = cv.take<uint32_t>(n);
    rest_idx = cv.take<uint32_t>(n);
    counts = cv.take<uint32_t>(2);
    temp_bytes = classify_temp_bytes(n);
    temp = cv.take<uint8_t>(temp_bytes);
    results = cv.take<P>(1 + kMaxWindows);
    const size_t parts = std::min(n, kOnesPartials);
    ones_part = cv.take<P>(parts);
    ones_red = cv.take<P>(2 * (ceil_div(parts, kReduceFanIn) + 1));
    total = cv.used();
  }
};

// Scratch of one window group of Pippenger: `entries` sorted pairs, `buckets` buckets.
template <class G>
struct GroupScratch {
  using P = ec::Xyzz<G>;
  uint32_t *keys_in, *vals_in, *keys_out, *vals_out;
  void* sort_temp;
  size_t sort_temp_bytes;
  P* buckets;
  uint32_t *pkeys_a, *pkeys_b;
  P *pvals_a, *pvals_b;
  P* arena;  // the weighted bucket sums (weighted_rows)
  GroupScratch(uint8_t* base, size_t entries, size_t buckets_n, size_t sort_m, unsigned c, size_t rows, size_t nb,
               size_t& total) {
    Carver cv(base);
    keys_in = cv.take<uint32_t>(entries);
    vals_in = cv.take<uint32_t>(entries);
    keys_out = cv.take<uint32_t>(entries);
    vals_out = cv.take<uint32_t>(entries);
    sort_temp_bytes = msm_detail::sort_temp_bytes(sort_m, c);
    sort_temp = cv.take<uint8_t>(sort_temp_bytes);
    buckets = cv.take<P>(buckets_n);
    const size_t pa = first_partials_bound(entries);
    const size_t pb = 2 * ceil_div(pa, kPartialsPerThread);
    pkeys_a = cv.take<uint32_t>(pa);
    pvals_a = cv.take<P>(pa);
    pkeys_b = cv.take<uint32_t>(pb);
    pvals_b = cv.take<P>(pb);
    arena = cv.take<P>(weighted_points(rows, nb));
    total = cv.used();
  }
};

template <class G>
__device__ __noinline__ ec::Xyzz<G> add_full(const ec::Xyzz<G>& a, const ec::Xyzz<G>& b) {
  return a + b;
}
template <class G>
__device__ __noinline__ ec::Xyzz<G> dbl_full(const ec::Xyzz<G>& a) {
  return a.dbl();
}

__device__ __forceinline__ size_t slot_of(uint32_t key, unsigned c, size_t nb) {
  return size_t(key >> c) * (nb + 1) + (key & ((uint32_t(1) << c) - 1));
}

// One thread sums `per_thread` consecutive sorted entries, run by run (a run = one
// bucket). A run that begins and ends inside the chunk is the whole bucket: it is stored.
// The first and the last run may continue in the neighbouring chunks: they go out as
// partial sums, two per chunk (the second infinity when the chunk is one run), in key
// order, for the next level. On the last level (one chunk) every run is stored.
template <class G, class AddEntry>
__device__ __forceinline__ void accumulate_chunk(const uint32_t* keys, size_t count, size_t per_thread, unsigned c,
                                                 size_t nb, ec::Xyzz<G>* buckets, uint32_t* out_keys,
                                                 ec::Xyzz<G>* out_vals, bool last_level, AddEntry add_entry) {
  using P = ec::Xyzz<G>;
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t i0 = t * per_thread;
  if (i0 >= count) return;
  const size_t i1 = min(count, i0 + per_thread);
  uint32_t cur = keys[i0];
  P acc = P::infinity();
  bool head = true;
  for (size_t i = i0; i < i1; ++i) {
    const uint32_t k = keys[i];
    if (k != cur) {
      if (head && !last_level) {
        out_keys[2 * t] = cur;
        out_vals[2 * t] = acc;
      } else {
        buckets[slot_of(cur, c, nb)] = acc;
      }
      head = false;
      acc = P::infinity();
      cur = k;
    }
    add_entry(i, acc);
  }
  if (last_level) {
    buckets[slot_of(cur, c, nb)] = acc;
    return;
  }
  if (head) {
    out_keys[2 * t] = cur;
    out_vals[2 * t] = acc;
    acc = P::infinity();
  }
  out_keys[2 * t + 1] = cur;
  out_vals[2 * t + 1] = acc;
}

template <class G>
__global__ void __launch_bounds__(kThreads, accumulate_min_blocks<G>())
    accumulate_points_kernel(const ec::Affine<G>* bases, const uint32_t* keys, const uint32_t* vals, size_t count,
                             size_t per_thread, unsigned c, size_t nb, ec::Xyzz<G>* buckets, uint32_t* out_keys,
                             ec::Xyzz<G>* out_vals, bool last_level) {
  accumulate_chunk<G>(keys, count, per_thread, c, nb, buckets, out_keys, out_vals, last_level,
                      [&](size_t i, ec::Xyzz<G>& acc) {
                        const uint32_t v = vals[i];
                        ec::Affine<G> p = bases[v & 0x7fffffffu];
                        if (v >> 31) p.y = -p.y;  // -(0, 0) is (0, 0)
                        acc += p;
                      });
}

template <class G>
__global__ void __launch_bounds__(kThreads)
    accumulate_partials_kernel(const uint32_t* keys, const ec::Xyzz<G>* vals, size_t count, size_t per_thread,
                               unsigned c, size_t nb, ec::Xyzz<G>* buckets, uint32_t* out_keys, ec::Xyzz<G>* out_vals,
                               bool last_level) {
  accumulate_chunk<G>(keys, count, per_thread, c, nb, buckets, out_keys, out_vals, last_level,
                      [&](size_t i, ec::Xyzz<G>& acc) { acc = add_full<G>(acc, vals[i]); });
}

// Segment s of row r: the elements in[r·stride + j] for j in [s·len, s·len + len) ∩ [0, k).
// t_out gets sum (j - lo + 1)·in_j (a running sum from the top), r_out their plain sum;
// both laid out [rows][segs].
template <class G>
__global__ void __launch_bounds__(kThreads)
    segment_sums_kernel(const ec::Xyzz<G>* in, size_t rows, size_t stride, size_t k, size_t len, size_t segs,
                        ec::Xyzz<G>* t_out, ec::Xyzz<G>* r_out) {
  using P = ec::Xyzz<G>;
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= rows * segs) return;
  const size_t r = t / segs, s = t % segs;
  const size_t lo = s * len, hi = min(k, lo + len);
  const P* row = in + r * stride;
  P run = P::infinity(), total = P::infinity();
  for (size_t j = hi; j-- > lo;) {
    run = add_full<G>(run, row[j]);
    total = add_full<G>(total, run);
  }
  t_out[t] = total;
  r_out[t] = run;
}

// out[r] = a[r] + 2^shift·b[r].
template <class G>
__global__ void __launch_bounds__(kThreads)
    combine_kernel(const ec::Xyzz<G>* a, const ec::Xyzz<G>* b, size_t rows, unsigned shift, ec::Xyzz<G>* out) {
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= rows) return;
  ec::Xyzz<G> x = b[t];
  for (unsigned i = 0; i < shift; ++i) x = dbl_full<G>(x);
  out[t] = add_full<G>(a[t], x);
}

// out[r][j] = sum of in[r][j·f .. j·f + f) over rows of k elements.
template <class G>
__global__ void __launch_bounds__(kThreads)
    sum_rows_kernel(const ec::Xyzz<G>* in, size_t rows, size_t k, unsigned f, ec::Xyzz<G>* out) {
  using P = ec::Xyzz<G>;
  const size_t kout = (k + f - 1) / f;
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= rows * kout) return;
  const size_t r = t / kout, j = t % kout;
  const size_t lo = j * f, hi = min(k, lo + f);
  P acc = P::infinity();
  for (size_t i = lo; i < hi; ++i) acc = add_full<G>(acc, in[r * k + i]);
  out[r * kout + j] = acc;
}

template <class G>
__global__ void __launch_bounds__(kThreads, accumulate_min_blocks<G>())
    sum_ones_kernel(const ec::Affine<G>* bases, const uint32_t* idx, size_t count, size_t threads, ec::Xyzz<G>* out) {
  using P = ec::Xyzz<G>;
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  P acc = P::infinity();
  for (size_t i = t; i < count; i += threads) acc += bases[idx[i]];
  out[t] = acc;
}

// Threads for the ones' sum: one full wave of the device (every thread then does the same
// number of additions), at most kOnesPartials.
template <class G>
size_t ones_threads() {
  static const size_t resident = [] {
    int device = 0, sms = 0, blocks = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, sum_ones_kernel<G>, kThreads, 0) != cudaSuccess ||
        blocks <= 0) {
      return kOnesPartials / 2;  // the query failed: a size that fills an H200 several times
    }
    return std::min(kOnesPartials, size_t(sms) * size_t(blocks) * kThreads);
  }();
  return resident;
}

// Reduces each of `rows` rows of k points to one, into dest[0 .. rows), through the two
// temporaries (each holding rows·ceil(k / fan-in) points).
template <class G>
Status reduce_rows(const ec::Xyzz<G>* in, size_t rows, size_t k, ec::Xyzz<G>* tmp_a, ec::Xyzz<G>* tmp_b,
                   ec::Xyzz<G>* dest, cudaStream_t s) {
  ec::Xyzz<G>* tmp[2] = {tmp_a, tmp_b};
  int next = 0;
  do {
    const size_t kout = ceil_div(k, kReduceFanIn);
    ec::Xyzz<G>* out = kout == 1 ? dest : tmp[next];
    sum_rows_kernel<G><<<blocks_for(rows * kout), kThreads, 0, s>>>(in, rows, k, kReduceFanIn, out);
    CUZK_RETURN_IF_ERROR(check_launch("msm.sum_rows_kernel"));
    in = out;
    k = kout;
    next ^= 1;
  } while (k > 1);
  return Status::ok();
}

// dest[r] = sum_{j < k} (j + 1)·in[r·stride + j] for each of `rows` rows. With segments of
// L = 2^kSegmentLog: sum = sum_s T_s + L·sum_s s·R_s (T_s, R_s: segment s's weighted and
// plain sums), and sum_s s·R_s is the same problem over the R_s, one level smaller. No
// thread does more than 2L additions before the next level, so every level is parallel.
template <class G>
Status weighted_rows(const ec::Xyzz<G>* in, size_t rows, size_t stride, size_t k, PointArena<ec::Xyzz<G>>& arena,
                     ec::Xyzz<G>* dest, cudaStream_t s) {
  using P = ec::Xyzz<G>;
  if (k <= kSegment) {
    P* plain = arena.take(rows);
    segment_sums_kernel<G><<<blocks_for(rows), kThreads, 0, s>>>(in, rows, stride, k, k, 1, dest, plain);
    return check_launch("msm.segment_sums_kernel");
  }
  const size_t segs = ceil_div(k, kSegment);
  P* t = arena.take(rows * segs);
  P* r = arena.take(rows * segs);
  segment_sums_kernel<G><<<blocks_for(rows * segs), kThreads, 0, s>>>(in, rows, stride, k, kSegment, segs, t, r);
  CUZK_RETURN_IF_ERROR(check_launch("msm.segment_sums_kernel"));
  P* a = arena.take(rows);
  P* b = arena.take(rows);
  P* tmp_a = arena.take(rows * ceil_div(segs, kReduceFanIn));
  P* tmp_b = arena.take(rows * ceil_div(segs, kReduceFanIn));
  CUZK_RETURN_IF_ERROR(reduce_rows<G>(t, rows, segs, tmp_a, tmp_b, a, s));
  // R_s has weight s: R_1 .. R_{segs-1} are "buckets" 0 .. segs-2.
  CUZK_RETURN_IF_ERROR(weighted_rows<G>(r + 1, rows, segs, segs - 1, arena, b, s));
  combine_kernel<G><<<blocks_for(rows), kThreads, 0, s>>>(a, b, rows, kSegmentLog, dest);
  return check_launch("msm.combine_kernel");
}

// Events between the stages of one run, when MsmStats::profile asks for them.
class StageTimer {
 public:
  enum Stage { kSplit, kOnes, kSort, kAccumulate, kReduce, kStages };
  StageTimer(bool on, cudaStream_t s) : on_(on), s_(s) { mark(kStages); }
  void mark(Stage finished) {
    if (!on_) return;
    cudaEvent_t e = nullptr;
    if (cudaEventCreate(&e) != cudaSuccess || cudaEventRecord(e, s_) != cudaSuccess) {
      on_ = false;
      return;
    }
    marks_.push_back({finished, e});
  }
  // After the stream has finished: milliseconds per stage.
  void collect(MsmStats& st) {
    float* out[kStages] = {&st.split_ms, &st.ones_ms, &st.sort_ms, &st.accumulate_ms, &st.reduce_ms};
    for (size_t i = 1; on_ && i < marks_.size(); ++i) {
      float ms = 0;
      if (cudaEventElapsedTime(&ms, marks_[i - 1].second, marks_[i].second) == cudaSuccess) {
        *out[marks_[i].first] += ms;
      }
    }
  }
  ~StageTimer() {
    for (auto& m : marks_) (void)cudaEventDestroy(m.second);
  }

 private:
  bool on_;
  cudaStream_t s_;
  std::vector<std::pair<Stage, cudaEvent_t>> marks_;
};

template <class G>
size_t group_bytes_bound(size_t m_lo, size_t m_hi, size_t bits) {
  const Plan p = make_plan(m_lo, bits);
  const size_t entries = std::min(size_t(p.windows) * m_hi, std::max(m_hi, kGroupEntries));
  const size_t buckets = size_t(p.group) * (p.nb + 1);
  size_t total = 0;
  GroupScratch<G>(nullptr, entries, buckets, m_hi, p.c, p.group, p.nb, total);
  return total;
}

}  // namespace cuzk::cuda::msm_detail

namespace cuzk::cuda {

template <class G>
size_t Msm<G>::scratch_bytes(size_t n) {
  using namespace msm_detail;
  if (n == 0) return 0;
  constexpr size_t bits = G::Scalar::BITS;
  size_t split = 0;
  SplitScratch<G>(nullptr, n, split);
  // The window width is constant on [2^k, 2^(k+1)): bound each such range at its ends.
  size_t group = 0;
  for (unsigned k = 0; k <= floor_log2(n); ++k) {
    const size_t lo = size_t(1) << k, hi = std::min(n, (size_t(2) << k) - 1);
    group = std::max(group, group_bytes_bound<G>(lo, hi, bits));
  }
  return split + group;
}

template <class G>
Result<ec::Jacobian<G>> Msm<G>::run(const AffinePoint* d_bases, const ScalarInt* d_scalars, size_t n,
                                    const Stream& stream, Reservation* scratch_from, MsmStats* stats) {
  using namespace msm_detail;
  using P = ec::Xyzz<G>;
  static_assert(sizeof(ScalarInt) == kScalarLimbs * sizeof(uint64_t), "scalars are four 64-bit limbs");
  constexpr size_t bits = G::Scalar::BITS;
  const bool profile = stats != nullptr && stats->profile;
  if (stats != nullptr) *stats = MsmStats{};
  if (n == 0) return ec::Jacobian<G>::infinity();
  if (n >= (size_t(1) << 31)) {
    return invalid_argument("msm: " + std::to_string(n) + " points; at most 2^31 - 1 are supported");
  }
  const cudaStream_t s = stream.get();
  StageTimer timer(profile, s);
  const uint64_t* scalars = reinterpret_cast<const uint64_t*>(d_scalars);

  size_t split_bytes = 0;
  SplitScratch<G>(nullptr, n, split_bytes);
  CUZK_ASSIGN_OR_RETURN(auto split_buf,
                        DeviceBuffer<uint8_t>::allocate(split_bytes, "msm scratch (split)", scratch_from));
  SplitScratch<G> sp(split_buf.data(), n, split_bytes);
  CUZK_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(sp.results, 0, (1 + kMaxWindows) * sizeof(P), s),
                            "msm: clearing the window sums");
  CUZK_RETURN_IF_ERROR(classify(scalars, n, sp.one_idx, sp.rest_idx, sp.counts, sp.temp, sp.temp_bytes, s));
  uint32_t counts[2] = {0, 0};
  CUZK_RETURN_IF_ERROR(copy_async(counts, sp.counts, sizeof(counts), cudaMemcpyDeviceToHost, s, "msm.counts"));
  CUZK_RETURN_IF_ERROR(stream.synchronize());
  const size_t ones = counts[0], m = counts[1];
  timer.mark(StageTimer::kSplit);

  // The ones' sum needs nothing from Pippenger: unless profiling, it runs beside it on a
  // stream of its own (the split is complete, the host has waited for it).
  const bool beside = ones != 0 && m != 0 && !profile;
  std::optional<Stream> side;
  std::optional<Event> ones_done;
  if (beside) {
    CUZK_ASSIGN_OR_RETURN(Stream st, Stream::create());
    side.emplace(std::move(st));
    CUZK_ASSIGN_OR_RETURN(Event ev, Event::create(false));
    ones_done.emplace(std::move(ev));
  }
  if (ones != 0) {
    const cudaStream_t so = beside ? side->get() : s;
    const size_t threads = std::min(ones, ones_threads<G>());
    sum_ones_kernel<G><<<blocks_for(threads), kThreads, 0, so>>>(d_bases, sp.one_idx, ones, threads, sp.ones_part);
    CUZK_RETURN_IF_ERROR(check_launch("msm.sum_ones_kernel"));
    const size_t half = ceil_div(threads, kReduceFanIn) + 1;
    CUZK_RETURN_IF_ERROR(reduce_rows<G>(sp.ones_part, 1, threads, sp.ones_red, sp.ones_red + half, sp.results, so));
    if (beside) CUZK_RETURN_IF_ERROR(ones_done->record(*side));
    timer.mark(StageTimer::kOnes);
  }

  Plan plan;
  DeviceBuffer<uint8_t> group_buf;
  if (m != 0) {
    plan = make_plan(m, bits);
    size_t group_bytes = 0;
    GroupScratch<G>(nullptr, plan.group * m, plan.group * (plan.nb + 1), m, plan.c, plan.group, plan.nb, group_bytes);
    CUZK_ASSIGN_OR_RETURN(group_buf,
                          DeviceBuffer<uint8_t>::allocate(group_bytes, "msm scratch (window group)", scratch_from));
    GroupScratch<G> gs(group_buf.data(), plan.group * m, plan.group * (plan.nb + 1), m, plan.c, plan.group, plan.nb,
                       group_bytes);

    for (unsigned w0 = 0; w0 < plan.windows; w0 += plan.group) {
      const unsigned wg = std::min(plan.group, plan.windows - w0);
      const size_t entries = size_t(wg) * m;
      CUZK_RETURN_IF_ERROR(window_digits(scalars, sp.rest_idx, m, plan.c, w0, wg, gs.keys_in, gs.vals_in, s));
      for (unsigned wl = 0; wl < wg; ++wl) {
        const size_t off = size_t(wl) * m;
        CUZK_RETURN_IF_ERROR(sort_window(gs.keys_in + off, gs.keys_out + off, gs.vals_in + off, gs.vals_out + off, m,
                                         plan.c, gs.sort_temp, gs.sort_temp_bytes, s));
      }
      CUZK_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(gs.buckets, 0, size_t(wg) * (plan.nb + 1) * sizeof(P), s),
                                "msm: clearing the buckets");
      timer.mark(StageTimer::kSort);

      // Level 1 over the sorted points, then levels over the partial sums until one chunk.
      size_t per_thread = first_per_thread(entries);
      size_t threads = ceil_div(entries, per_thread);
      bool last = threads == 1;
      accumulate_points_kernel<G><<<blocks_for(threads), kThreads, 0, s>>>(d_bases, gs.keys_out, gs.vals_out, entries,
                                                                           per_thread, plan.c, plan.nb, gs.buckets,
                                                                           gs.pkeys_a, gs.pvals_a, last);
      CUZK_RETURN_IF_ERROR(check_launch("msm.accumulate_points_kernel"));
      uint32_t* keys_io[2] = {gs.pkeys_a, gs.pkeys_b};
      P* vals_io[2] = {gs.pvals_a, gs.pvals_b};
      int cur = 0;
      size_t count = 2 * threads;
      while (!last) {
        threads = ceil_div(count, kPartialsPerThread);
        last = threads == 1;
        accumulate_partials_kernel<G>
            <<<blocks_for(threads), kThreads, 0, s>>>(keys_io[cur], vals_io[cur], count, kPartialsPerThread, plan.c,
                                                      plan.nb, gs.buckets, keys_io[cur ^ 1], vals_io[cur ^ 1], last);
        CUZK_RETURN_IF_ERROR(check_launch("msm.accumulate_partials_kernel"));
        cur ^= 1;
        count = 2 * threads;
      }
      timer.mark(StageTimer::kAccumulate);

      PointArena<P> arena{gs.arena};
      CUZK_RETURN_IF_ERROR(weighted_rows<G>(gs.buckets, wg, plan.nb + 1, plan.nb, arena, sp.results + 1 + w0, s));
      timer.mark(StageTimer::kReduce);
    }
  }

  if (beside) CUZK_RETURN_IF_ERROR(stream.wait(*ones_done));
  const size_t windows = m != 0 ? plan.windows : 0;
  std::vector<P> sums(1 + windows);
  CUZK_RETURN_IF_ERROR(
      copy_async(sums.data(), sp.results, sums.size() * sizeof(P), cudaMemcpyDeviceToHost, s, "msm.window_sums"));
  CUZK_RETURN_IF_ERROR(stream.synchronize());

  // sum_w 2^(c·w)·S_w by Horner's rule, plus the ones' sum.
  P total = P::infinity();
  for (size_t w = windows; w-- > 0;) {
    for (unsigned i = 0; i < plan.c; ++i) total = total.dbl();
    total += sums[1 + w];
  }
  total += sums[0];
  if (stats != nullptr) {
    timer.collect(*stats);
    stats->ones = ones;
    stats->rest = m;
    stats->window_bits = plan.c;
    stats->windows = plan.windows;
    stats->windows_per_group = plan.group;
  }
  return total.to_jacobian();
}

}  // namespace cuzk::cuda

#define CUZK_INSTANTIATE_MSM(G) template class cuzk::cuda::Msm<G>
