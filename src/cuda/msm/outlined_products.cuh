// Product policies for ec::madd_in_place / ec::add_in_place that keep each field product out
// of line: one called copy instead of one inlined copy per use. Device code; the MSM kernels
// (msm_kernels.cuh, which says where they pay) and cuda_arith_bench use them.
#pragma once

namespace cuzk::cuda::msm_detail {

// Over Fq2 (the G2 groups) the kernels take each product and square out of line. One
// BLS12-381 G2 addition inlined is ~50k PTX instructions, far beyond the instruction
// caches: in lock-step (cuda_g2_add_bench) it ran at 0.83 G/s, in the accumulation, where
// the warps of a multiprocessor drift apart, at 0.42. Out of line (one copy of each
// product) the accumulation runs at 0.82 G/s (H200, BENCHMARKS.md "G2 MSM (H10)").
template <class F>
struct OutlinedMul {
  __device__ __noinline__ static F mul(F a, F b) { return a * b; }
  __device__ __noinline__ static F sqr(F a) { return a.square(); }
};
// ... with Y3 = R·(Q - X3) - Y1·PPP out of line too, as one call of Fp::mul_sub (both
// products, one reduction) instead of two products: BLS12-381 G1's level 1 ran 3.6-3.9%
// faster (H200, BENCHMARKS.md "FP64-pipe products, and mul_sub out of line"). Over Fq2 a
// mul_sub sharing its reductions was tried and made the G2 level 1 16% slower (its live
// wide products), so G2 keeps OutlinedMul.
template <class F>
struct OutlinedMulSub : OutlinedMul<F> {
  __device__ __noinline__ static F mul_sub(F a, F b, F c, F d) { return F::mul_sub(a, b, c, d); }
};

}  // namespace cuzk::cuda::msm_detail
