// The NTT of poly/domain.hpp, and the pointwise products of the H steps (poly/h_poly.hpp),
// eight field elements at a time on CPUs with AVX-512 IFMA.
//
// The butterflies' products run in 52-bit lanes (ff/lanes52.hpp: Fp's own Montgomery
// form, so the results are exactly the scalar code's). Inside, lane values stay below
// about 4p and are reduced lazily (Harvey's butterfly), and the array is converted to lanes
// once per pass rather than once per stage: a first pass runs the stages inside blocks of
// 2^12 elements on a 52-bit copy of the block, and the remaining stages run in column
// passes of up to six stages each over rows 2^k elements apart, eight columns wide.
//
// Runtime dispatch: compiled for AVX-512 F + IFMA by function attributes only; callers
// check ff::lanes::enabled() and keep the scalar path for other CPUs.
#pragma once

#include <cstddef>
#include <type_traits>

#include "core/thread_pool.hpp"
#include "ff/cpu_lanes.hpp"
#include "ff/fields.hpp"

namespace cuzk::poly::lanes {

// The scalar fields the lanes are written for (4 limbs of 64 bits).
template <class F>
inline constexpr bool kSupported = std::is_same_v<F, bn254::Fr> || std::is_same_v<F, bls12_381::Fr>;

// Smaller domains (log2) stay scalar: the lane stages need two vectors of eight.
inline constexpr unsigned kMinLog = 4;

// The stages of a decimation-in-time transform on bit-reversed input a of size 2^log_n
// (log_n >= kMinLog), with tw[i] = omega^i for i < n/2; results canonical. `inverse` runs
// the transform by omega^-1 instead (the inverse transform without its 1/n), from the same
// table. Call only when ff::lanes::enabled().
template <class F>
void butterflies(F* a, unsigned log_n, const F* tw, bool inverse, ThreadPool& pool);

// a[j] *= c·g^j for j < n (one thread's share of EvaluationDomain::scale_by_powers).
// Call only when ff::lanes::enabled().
template <class F>
void scale_run(F* a, size_t n, const F& c, const F& g);

// out[i] = a[i]·b[i] − c[i] for i < n (out may be a). Call only when ff::lanes::enabled().
template <class F>
void mul_sub_run(const F* a, const F* b, const F* c, size_t n, F* out);

// The same as canonical integers (out of Montgomery form). Call only when
// ff::lanes::enabled().
template <class F>
void mul_sub_canonical_run(const F* a, const F* b, const F* c, size_t n, typename F::Int* out);

}  // namespace cuzk::poly::lanes
