// Many multiples of one fixed point on the device: out[i] = scalars[i]·G, for the dev
// setup, whose G1 and G2 points (about 4n and n of them for a domain of n) are the slow
// part of building a key on CPU threads. Windowed table (built once on the host, d·2^(wk)·G
// for every window k and digit d), one mixed addition per non-zero window per point, then
// affine conversion in groups of 16 with one inversion each.
#pragma once

#include <span>

#include "core/status.hpp"
#include "core/thread_pool.hpp"
#include "ec/points.hpp"

namespace cuzk::cuda {

// `scalars` in Montgomery form (as the setup holds them); host memory in and out, streamed
// through the current device in chunks. Device memory: the table plus about
// 2^22 · (32 + 3·|Base| + 2·|Base|) bytes per chunk.
template <class G>
Status fixed_base_mul(const ec::Affine<G>& base, std::span<const typename G::Scalar> scalars,
                      std::span<ec::Affine<G>> out, ThreadPool& pool);

}  // namespace cuzk::cuda
