// The host half of fixed_base_mul (cuda/setup/fixed_base.hpp): the windowed table of a
// base's multiples, built on CPU threads. Compiled by the host compiler in its own file
// (fixed_base_table.cpp) rather than inside fixed_base.cu: nvcc's host pass over four
// groups' inlined point formulas took as long as the device code.
#pragma once

#include <vector>

#include "core/thread_pool.hpp"
#include "ec/points.hpp"

namespace cuzk::cuda::setup_detail {

// T[k·(2^bits − 1) + d − 1] = d·2^(bits·k)·base, affine, for windows k and digits d ≥ 1.
template <class G>
std::vector<ec::Affine<G>> fixed_base_table(const ec::Affine<G>& base, unsigned windows, unsigned bits,
                                            ThreadPool& pool);

}  // namespace cuzk::cuda::setup_detail
